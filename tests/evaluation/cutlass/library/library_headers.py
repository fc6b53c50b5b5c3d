"""Small GEMM headers for the library tests, written by the header generator.

``small_header`` renders a two-leaf dispatch (SYNTHETIC: no selector, nothing measured) with
``render_gemm_header`` (the generator writes the pinned block, with no entries here);
``legacy`` removes that block, as a header written before pinned entries existed reads;
``with_pinned`` adds pinned cuBLASLt entries to a legacy header as the pinned interface lays
them out (enumerators between the CUTLASS kernels and ``cublas``, their ``cublaslt:`` keys in
kGemmKernelNames, the kCublasLtVersion / kFirstPinned / kNumPinned / kPinned declarations).
"""

from __future__ import annotations

import re

from benchspace.evaluation.deploy.dispatch_tree import LEAF, DispatchTree, TreeNode
from benchspace.evaluation.deploy.kernel_header import (
    CUBLAS,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
    render_gemm_header,
)
from benchspace.evaluation.deploy.shape_features import shape_features

PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
KERNEL = PREFIX + "128x128x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"
"""A default-level kernel (the batch build's test kernel)."""
PINNED = (
    (66, 194, 1, 0, 0, 6, 35, 0, 5),
    (66, 24, 2, 1, 1, 0, 20, 0, 5),
)
VERSION = 131000


def small_header(kernels: tuple[str, ...] = (KERNEL,)) -> str:
    """M <= 1024 runs kernels[0] (raster M, swizzle 2), larger M runs cublas."""
    spec = GemmHeaderSpec(path="gemm_kernels.hh", max_leaves=2, samples=8)
    nodes = (
        TreeNode(dim=0, edge=1024, left=1, right=2),
        TreeNode(dim=LEAF, choice=0, samples=4),
        TreeNode(dim=LEAF, choice=1, samples=4),
    )
    dispatch = GemmDispatch(
        spec=spec,
        tree=DispatchTree(nodes=nodes),
        choices=(GemmChoice(kernel=kernels[0], raster="M", swizzle=2), GemmChoice(kernel=CUBLAS)),
        kernels=(*kernels, CUBLAS),
        origin="a hand-made synthetic tree (test data)",
        features=shape_features(spec.domain, 132),
        sms=132,
        cublas_leaves=1,
    )
    return render_gemm_header(dispatch)


_BLOCK = re.compile(
    r"// Pinned cuBLASLt configurations:.*?gemm_pinned_config\(GemmKernel kernel\).*?\n\}\n\n",
    re.S,
)


def legacy(text: str) -> str:
    """The header without its pinned block (kCublasLtVersion ... gemm_pinned_config)."""
    out, n = _BLOCK.subn("", text)
    assert n == 1, "the generator's pinned block was not found"
    return out


def with_pinned(
    text: str, pinned: tuple[tuple[int, ...], ...] = PINNED, version: int = VERSION
) -> str:
    """The header with pinned entries inserted before ``cublas`` (the interface's layout)."""
    enum = re.search(
        r"(enum class GemmKernel : int32_t \{\n)(.*?)(    cublas = (\d+),\n)", text, re.S
    )
    assert enum is not None
    first = int(enum.group(4))
    enumerators = "".join(
        f"    cublaslt_{'_'.join(map(str, row))} = {first + i},\n" for i, row in enumerate(pinned)
    )
    text = text.replace(
        enum.group(0),
        enum.group(1) + enum.group(2) + enumerators + f"    cublas = {first + len(pinned)},\n",
    )
    count = first + len(pinned) + 1
    text = re.sub(r"kGemmKernelCount = \d+;", f"kGemmKernelCount = {count};", text)
    fields = (
        "id",
        "tile",
        "splitk",
        "reduction",
        "swizzle",
        "custom",
        "stages",
        "inner",
        "cluster",
    )
    keys = "".join(
        '    "cublaslt:' + ";".join(f"{f}={v}" for f, v in zip(fields, row, strict=True)) + '",\n'
        for row in pinned
    )
    text = text.replace('    "cublas",\n};', keys + '    "cublas",\n};', 1)
    rows = (
        "".join("    {" + ", ".join(map(str, row)) + "},\n" for row in pinned)
        or "    {0, 0, 0, 0, 0, 0, 0, 0, 0},\n"
    )
    block = (
        "struct CublasLtConfig {\n"
        "    int32_t algo_id, tile, splitk, reduction, swizzle, custom, stages, inner, cluster;\n"
        "};\n\n"
        f"inline constexpr int64_t kCublasLtVersion = {version if pinned else 0};\n"
        f"inline constexpr int32_t kFirstPinned = {first};\n"
        f"inline constexpr int32_t kNumPinned = {len(pinned)};\n\n"
        "inline constexpr CublasLtConfig kPinned[kNumPinned > 0 ? kNumPinned : 1] = {\n"
        f"{rows}}};\n\n"
    )
    marker = "// A kernel with its runtime scheduler knobs"
    return text.replace(marker, block + marker, 1)
