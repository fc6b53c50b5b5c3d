"""The real driver, built with nvcc where one is installed: its description and its grammar.

No GPU is needed: a configuration the driver rejects exits 2 before it touches the device; one
it accepts goes on to the device (exit 5 on a machine without one).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.build import build_driver
from benchspace.evaluation.cutlass.driver_csv import COLUMNS, parse_config
from benchspace.harness.errors import UsageError

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")

PIN = "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
K = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8_x"
TEXTS = (
    K,
    f"{K}:M",
    f"{K}:N:4",
    f"{K}:H:1:k2:dK",
    f"{K}:H:2:k4",
    f"{K}:H:1:dS",
    "cublas:heuristic",
    "cublas:algo7",
    f"{K}:H:2:1",
    f"{K}:H:1:dS:k2",
    f"{K}:H:1:k0",
    f"{K}:X",
    "cublas:algo",
    "cublas:best",
    PIN,
    PIN.replace("id=66", "id=x"),
    PIN.rsplit(";", 1)[0],
    "cublaslt:tile=194;" + PIN.split(";", 1)[1],
    PIN + ";ws=0",
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cutlass_bench built into a temporary folder (about 10 s)."""
    return build_driver(tmp_path_factory.mktemp("driver"))


def test_describe_lists_the_readers_columns(driver: Path) -> None:
    out = subprocess.run([str(driver), "--describe"], capture_output=True, text=True, check=True)
    described = json.loads(out.stdout)
    assert described["version"] == 4 and described["abi_version"] == 2
    columns = described["columns"].split(",")
    assert columns[: len(COLUMNS)] == list(COLUMNS)
    assert {"splits", "decomposition", "ms_median", "cublas_algo"} <= set(columns)
    assert {"position", "sentinel", "sentinel_ratio", "order_seed", "iters"} <= set(columns)
    assert described["defaults"]["sample_ms"] == 0
    assert any(c.startswith("cublaslt:") for c in described["cublas"])
    assert "not_offered" in described["statuses"]
    assert described["round_columns"].startswith("config,M,N,K,round,seq,ms")


def test_driver_and_reader_accept_the_same_configurations(driver: Path) -> None:
    for text in TEXTS:
        proc = subprocess.run(
            [str(driver), "--cublas-lib", "/nonexistent", "64", "64", "64", text],
            capture_output=True,
            text=True,
            timeout=60,
        )
        try:
            parse_config(text)
            python_accepts = True
        except UsageError:
            python_accepts = False
        assert (proc.returncode != 2) == python_accepts, (text, proc.stderr[-300:])


def test_two_builds_of_the_driver_are_the_same_bytes(driver: Path, tmp_path: Path) -> None:
    """A store keys attempts by the driver's sha256: a rebuild of the same source (another
    process id, so another nvcc temporary name) must hash the same, or a resumed tune on a
    fresh machine would measure everything again."""
    import hashlib

    again = build_driver(tmp_path / "again")
    digest = hashlib.sha256(driver.read_bytes()).hexdigest()
    assert hashlib.sha256(again.read_bytes()).hexdigest() == digest
