"""scripts/device/shipped_header_configs.py: the header's choice per shape, beside cuBLAS."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.evaluation.deploy.dispatch_tree import LEAF, DispatchTree, TreeNode
from benchspace.evaluation.deploy.kernel_header import (
    CUBLAS,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
    render_gemm_header,
)
from benchspace.evaluation.deploy.pinned import parse_key
from benchspace.evaluation.deploy.shape_features import shape_features

SCRIPT = Path(__file__).parents[2] / "scripts" / "device" / "shipped_header_configs.py"
KERNEL = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
PIN = parse_key(
    "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
)


def _header(path: Path) -> None:
    """SYNTHETIC: M <= 100 runs KERNEL along N with swizzle 2; M <= 1000 PIN; else cublas."""
    spec = GemmHeaderSpec(path=str(path))
    nodes = (
        TreeNode(dim=0, edge=100, left=1, right=2),
        TreeNode(dim=LEAF, choice=0, samples=1),
        TreeNode(dim=0, edge=1000, left=3, right=4),
        TreeNode(dim=LEAF, choice=1, samples=1),
        TreeNode(dim=LEAF, choice=2, samples=1),
    )
    dispatch = GemmDispatch(
        spec=spec,
        tree=DispatchTree(nodes=nodes),
        choices=(
            GemmChoice(kernel=KERNEL, raster="N", swizzle=2),
            GemmChoice(kernel=PIN.enum_name),
            GemmChoice(kernel=CUBLAS),
        ),
        kernels=(KERNEL, PIN.enum_name, CUBLAS),
        origin="a synthetic tree (test data)",
        features=shape_features(spec.domain, 132),
        sms=132,
        pinned=(PIN,),
        cublaslt_version=130100,
    )
    path.write_text(render_gemm_header(dispatch))


def test_each_shape_gets_the_headers_choice_then_cublas(tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    header = tmp_path / "gemm_kernels.hh"
    _header(header)
    shapes = tmp_path / "shapes.txt"
    shapes.write_text("# three shapes\n64 64 64\n512x512x512\n\n4096 4096 4096\n")
    argv = [sys.executable, str(SCRIPT), "--header", str(header), "--shapes", str(shapes),
            "--algos", "2"]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [line for line in out if not line.startswith("#")]
    cublas = "cublas:heuristic cublas:algo0 cublas:algo1"
    assert rows == [
        f"64 64 64 {KERNEL}:N:2 {cublas}  # cutlass",
        f"512 512 512 {PIN.key} {cublas}  # pinned",
        f"4096 4096 4096 {cublas}  # cublas",
    ]
    assert out[-1] == "# 1 cutlass, 1 pinned, 1 cublas"


def test_bad_shapes_are_one_line(tmp_path: Path) -> None:
    shapes = tmp_path / "shapes.txt"
    shapes.write_text("64 64\n")
    header = tmp_path / "h.hh"
    header.write_text("")
    argv = [sys.executable, str(SCRIPT), "--header", str(header), "--shapes", str(shapes)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (
        proc.returncode == 1 and "shapes.txt:1:" in proc.stderr and "Traceback" not in proc.stderr
    )
