"""The generated GEMM kernel header: the tree, golden bytes, g++ -Werror, the env override."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from selector_data import ROOT

from benchspace.evaluation.deploy.dispatch_tree import LEAF, DispatchTree, TreeNode
from benchspace.evaluation.deploy.kernel_header import (
    CUBLAS,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
    render_gemm_header,
    spec_from_space,
)
from benchspace.evaluation.deploy.shape_features import feature_matrix, shape_features
from benchspace.harness.errors import HeaderError
from benchspace.harness.spaces.load import load_space

GOLDEN = Path(__file__).parents[1] / "data" / "gemm_kernels_golden.hh"
ENV = "BENCHSPACE_GEMM_KERNEL"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
K1 = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
K2 = PREFIX + "256x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"
K3 = PREFIX + "64x64x128_1x1x1_0_tnn_align8_warpspecialized_epi_nosmem"
SHAPES = ((64, 64, 64), (4096, 4096, 4096), (100, 5000, 64), (1024, 1025, 1024), (2048, 64, 64))
PROGRAM = """
#include <cstdio>
#include "gemm_kernels.hh"
namespace g = synthetic::gemm;
int main() {
    const long long shapes[][3] = {
        {64, 64, 64}, {4096, 4096, 4096}, {100, 5000, 64}, {1024, 1025, 1024}, {2048, 64, 64}};
    for (const auto& s : shapes) {
        const auto c = g::gemm_kernel_for(s[0], s[1], s[2]);
        std::printf("%s %c %d\\n", g::gemm_kernel_name(c.kernel), c.raster, c.swizzle);
    }
    static_assert(g::gemm_kernel_default(64, 64, 64).kernel == g::GemmKernel::KERNEL_ONE);
    static_assert(g::gemm_kernel_default(4096, 64, 64).kernel == g::GemmKernel::cublas);
    return 0;
}
"""


def synthetic_dispatch() -> GemmDispatch:
    """A hand-made tree (SYNTHETIC: no selector, nothing measured).

    M <= 1024: N <= 1024 runs K1, else K2 along M with swizzle 2; M > 1024: cublas.
    """
    spec = GemmHeaderSpec(
        path="gemm_kernels.hh",
        namespace="synthetic::gemm",
        env_var=ENV,
        guard="SYNTHETIC_GEMM_KERNELS_HH",
        max_leaves=3,
        samples=12,
    )
    nodes = (
        TreeNode(dim=0, edge=1024, left=1, right=4),
        TreeNode(dim=1, edge=1024, left=2, right=3),
        TreeNode(dim=LEAF, choice=0, samples=4),
        TreeNode(dim=LEAF, choice=1, samples=4),
        TreeNode(dim=LEAF, choice=2, samples=4),
    )
    return GemmDispatch(
        spec=spec,
        tree=DispatchTree(nodes=nodes),
        choices=(
            GemmChoice(kernel=K1),
            GemmChoice(kernel=K2, raster="M", swizzle=2),
            GemmChoice(kernel=CUBLAS),
        ),
        kernels=(K1, K2, K3, CUBLAS),
        origin="a hand-made synthetic tree (test data)",
        features=shape_features(spec.domain, 132),
        sms=132,
        cublas_leaves=1,
    )


def test_header_matches_the_golden_file() -> None:
    text = render_gemm_header(synthetic_dispatch())
    if os.environ.get("BENCHSPACE_REGENERATE_GOLDEN") == "1":
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), "regenerate with BENCHSPACE_REGENERATE_GOLDEN=1"


def test_the_tree_chooses_in_python_as_in_cxx() -> None:
    assert synthetic_dispatch().choose(np.array(SHAPES)).tolist() == [0, 2, 1, 1, 2]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp("gemm_header")
    (folder / "gemm_kernels.hh").write_text(render_gemm_header(synthetic_dispatch()))
    (folder / "main.cc").write_text(PROGRAM.replace("KERNEL_ONE", K1))
    argv = [
        gxx,
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{folder}",
        str(folder / "main.cc"),
        "-o",
        str(folder / "main"),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return folder / "main"


def _run(program: Path, value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if value is not None:
        env[ENV] = value
    return subprocess.run(
        [str(program)], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()


def test_compiled_choice_follows_the_tree(program: Path) -> None:
    # N = 1025 is the first N right of its edge; M > 1024 falls in the cublas leaf.
    assert _run(program, None) == [
        f"{K1} H 1",
        f"{CUBLAS} H 1",
        f"{K2} M 2",
        f"{K2} M 2",
        f"{CUBLAS} H 1",
    ]


@pytest.mark.parametrize("value", [K3, K2, CUBLAS])
def test_override_selects_the_named_kernel(program: Path, value: str) -> None:
    assert _run(program, value) == [f"{value} H 1"] * len(SHAPES)


@pytest.mark.parametrize("value", ["", "nonsense", K3[:-3], "1", "CUBLAS"])
def test_anything_else_keeps_the_compiled_choice(program: Path, value: str) -> None:
    assert _run(program, value) == _run(program, None)


def test_space_header_section_sets_the_spec(tmp_path: Path) -> None:
    space = tmp_path / "space.json"
    space.write_text(
        """{"spaces": [{"bench": "gemm", "metric": "tflops", "direction": "max",
        "arg_spec": ["M", "N", "K", "kernel"],
        "cases": [{"fixed": {"M": 64, "N": 64, "K": 64}, "tune": {"kernel": ["a", "b"]}}]}],
        "header": {"path": "include/x/gemm.hh", "namespace": "x::gemm", "env_prefix": "X_",
        "bucket_key": "M", "buckets": [["SMALL", 256], ["BIG", null]], "leaves": 32,
        "constants": [{"name": "GEMM_KERNEL", "type": "enum", "values": ["a", "b"],
        "sources": [{"bench": "gemm", "param": "kernel"}]}]}}"""
    )
    spec = spec_from_space(load_space(space))
    assert spec == GemmHeaderSpec(
        path="include/x/gemm.hh",
        namespace="x::gemm",
        env_var="X_GEMM_KERNEL",
        guard=None,
        max_leaves=32,
    )


def test_bad_names_are_refused() -> None:
    good = synthetic_dispatch()
    bad = GemmDispatch(
        spec=GemmHeaderSpec(namespace="x::class"),
        tree=good.tree,
        choices=good.choices,
        kernels=good.kernels,
        origin="x",
        features=good.features,
        sms=132,
    )
    with pytest.raises(
        HeaderError,
        match=r"include/benchspace/gemm_kernels.hh: cannot generate: namespace part 'class' "
        r"is a C\+\+ keyword",
    ):
        render_gemm_header(bad)
    bad = GemmDispatch(
        spec=good.spec,
        tree=good.tree,
        choices=good.choices,
        kernels=(K1, CUBLAS),
        origin="x",
        features=good.features,
        sms=132,
    )
    with pytest.raises(HeaderError, match=f"leaf kernel '{K2}' is not in the kernel list"):
        render_gemm_header(bad)
    bad = GemmDispatch(
        spec=good.spec,
        tree=good.tree,
        choices=good.choices,
        kernels=(K1, K2),
        origin="x",
        features=good.features,
        sms=132,
    )
    with pytest.raises(HeaderError, match="the kernel list must end with 'cublas'"):
        render_gemm_header(bad)


def test_the_generator_has_the_template() -> None:
    assert (ROOT / "generators" / "templates" / "gemm_kernels.hh.j2").is_file()


def test_the_features_agree_between_numpy_and_cxx(tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    (tmp_path / "gemm_kernels.hh").write_text(render_gemm_header(synthetic_dispatch()))
    shapes = [(1, 1, 1), (100, 5000, 64), (4096, 4096, 4096), (16384, 200, 33), (129, 257, 7)]
    body = "".join(
        f'for (int f = 0; f < {len(synthetic_dispatch().features)}; ++f) std::printf("%lld ", '
        f'static_cast<long long>(g::gemm_feature(f, {m}, {n}, {k})));\n    std::printf("\\n");\n'
        for m, n, k in shapes
    )
    (tmp_path / "main.cc").write_text(
        '#include <cstdio>\n#include "gemm_kernels.hh"\nnamespace g = synthetic::gemm;\n'
        f"int main() {{\n{body}return 0;\n}}\n"
    )
    argv = [gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}"]
    proc = subprocess.run(
        [*argv, str(tmp_path / "main.cc"), "-o", str(tmp_path / "main")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    got = [[int(v) for v in line.split()] for line in out.stdout.splitlines()]
    assert got == feature_matrix(np.array(shapes), 132).tolist()
