"""The generated GEMM kernel header: buckets, golden bytes, g++ -Werror, the env override."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from selector_data import ROOT

from evaluation.deploy.kernel_header import (
    DEFAULT_BUCKETS,
    GemmCell,
    GemmHeaderSpec,
    GemmTable,
    render_gemm_header,
    representatives,
    spec_from_space,
)
from harness.errors import HeaderError
from harness.spaces.load import load_space

GOLDEN = Path(__file__).parents[1] / "data" / "gemm_kernels_golden.hh"
ENV = "BENCHSPACE_GEMM_KERNEL"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
K1 = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
K2 = PREFIX + "256x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"
K3 = PREFIX + "64x64x128_1x1x1_0_tnn_align8_warpspecialized_epi_nosmem"
SHAPES = ((64, 64, 64), (4096, 4096, 4096), (100, 5000, 64), (1024, 1025, 1024))
PROGRAM = """
#include <cstdio>
#include "gemm_kernels.hh"
namespace g = synthetic::gemm;
int main() {
    const long long shapes[][3] = {
        {64, 64, 64}, {4096, 4096, 4096}, {100, 5000, 64}, {1024, 1025, 1024}};
    for (const auto& s : shapes) {
        const auto c = g::gemm_kernel_for(s[0], s[1], s[2]);
        std::printf("%s %c %d\\n", g::gemm_kernel_name(c.kernel), c.raster, c.swizzle);
    }
    static_assert(g::gemm_bucket(1024) == 0 && g::gemm_bucket(1025) == 1);
    return 0;
}
"""


def synthetic_table() -> GemmTable:
    """A hand-made two-bucket table (SYNTHETIC: no selector, nothing measured)."""
    spec = GemmHeaderSpec(
        path="gemm_kernels.hh",
        namespace="synthetic::gemm",
        env_var=ENV,
        buckets=(("SMALL", 1024), ("LARGE", None)),
        guard="SYNTHETIC_GEMM_KERNELS_HH",
    )
    sizes = representatives(spec.buckets)
    cells = []
    for i, m in enumerate(("SMALL", "LARGE")):
        for j, n in enumerate(("SMALL", "LARGE")):
            for k, kk in enumerate(("SMALL", "LARGE")):
                kernel = K2 if (m, n) == ("LARGE", "LARGE") else K1
                cells.append(
                    GemmCell(
                        buckets=(m, n, kk),
                        shape=(sizes[i], sizes[j], sizes[k]),
                        kernel=kernel,
                        raster="M" if k else "H",
                        swizzle=2 if k else 1,
                    )
                )
    return GemmTable(
        spec=spec,
        cells=tuple(cells),
        kernels=(K1, K2, K3),
        origin="a hand-made synthetic table (test data)",
    )


def test_representatives_are_geometric_centres() -> None:
    assert representatives(DEFAULT_BUCKETS) == [64, 256, 1024, 4096, 11584]
    assert representatives((("SMALL", 1024), ("LARGE", None))) == [192, 1440]


def test_header_matches_the_golden_file() -> None:
    text = render_gemm_header(synthetic_table())
    if os.environ.get("BENCHSPACE_REGENERATE_GOLDEN") == "1":
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), "regenerate with BENCHSPACE_REGENERATE_GOLDEN=1"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp("gemm_header")
    (folder / "gemm_kernels.hh").write_text(render_gemm_header(synthetic_table()))
    (folder / "main.cc").write_text(PROGRAM)
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


def test_compiled_choice_follows_the_buckets(program: Path) -> None:
    # 4096^3 is LARGE in every dimension; N = 1025 is the first LARGE N.
    assert _run(program, None) == [f"{K1} H 1", f"{K2} M 2", f"{K1} H 1", f"{K1} H 1"]


@pytest.mark.parametrize("value", [K3, K2])
def test_override_selects_the_named_kernel(program: Path, value: str) -> None:
    assert _run(program, value) == [f"{value} H 1"] * len(SHAPES)


@pytest.mark.parametrize("value", ["", "nonsense", K3[:-3], "1"])
def test_anything_else_keeps_the_compiled_choice(program: Path, value: str) -> None:
    assert _run(program, value) == _run(program, None)


def test_space_header_section_sets_the_spec(tmp_path: Path) -> None:
    space = tmp_path / "space.json"
    space.write_text(
        """{"spaces": [{"bench": "gemm", "metric": "tflops", "direction": "max",
        "arg_spec": ["M", "N", "K", "kernel"],
        "cases": [{"fixed": {"M": 64, "N": 64, "K": 64}, "tune": {"kernel": ["a", "b"]}}]}],
        "header": {"path": "include/x/gemm.hh", "namespace": "x::gemm", "env_prefix": "X_",
        "bucket_key": "M", "buckets": [["SMALL", 256], ["BIG", null]],
        "constants": [{"name": "GEMM_KERNEL", "type": "enum", "values": ["a", "b"],
        "sources": [{"bench": "gemm", "param": "kernel"}]}]}}"""
    )
    spec = spec_from_space(load_space(space))
    assert spec == GemmHeaderSpec(
        path="include/x/gemm.hh",
        namespace="x::gemm",
        env_var="X_GEMM_KERNEL",
        buckets=(("SMALL", 256), ("BIG", None)),
        guard=None,
    )


def test_bad_names_are_refused() -> None:
    table = synthetic_table()
    bad = GemmTable(
        spec=GemmHeaderSpec(namespace="x::class"),
        cells=table.cells,
        kernels=table.kernels,
        origin="x",
    )
    with pytest.raises(
        HeaderError,
        match=r"include/benchspace/gemm_kernels.hh: cannot generate: namespace part 'class' "
        r"is a C\+\+ keyword",
    ):
        render_gemm_header(bad)
    bad = GemmTable(spec=table.spec, cells=table.cells[:3], kernels=table.kernels, origin="x")
    with pytest.raises(HeaderError, match="3 cells for 2 buckets; need 8"):
        render_gemm_header(bad)


def test_the_generator_has_the_template() -> None:
    assert (ROOT / "generators" / "templates" / "gemm_kernels.hh.j2").is_file()
