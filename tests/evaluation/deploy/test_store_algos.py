"""Reading a tune run's store: each cublas:* row's configuration, and the position sentinel."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from benchspace.evaluation.deploy.store_algos import cublas_algos, sentinel_ratios, store_beside
from benchspace.harness.errors import UsageError
from benchspace.harness.measurement import Measurement
from benchspace.harness.store import Store

ALGO = "id=66;tile=59;splitk=1;reduction=0;swizzle=0;custom=2;stages=35;inner=0;cluster=8;ws=0;"
ALGO += "waves=0.5"


def _attempt(config: str, shape: tuple[int, int, int], **extra: float | str) -> Measurement:
    m, n, k = shape
    return Measurement(
        bench="gemm_tune_shapes", case_index=0, phase="main", params={"kernel": config},
        argv=("cutlass_bench",), env={}, exe_sha256="0" * 64, status="ok", value=1.0,
        cache_key=f"{config}{shape}", extra={"M": float(m), "N": float(n), "K": float(k), **extra},
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "profile.store.sqlite"
    with Store(path) as s:
        s.add(_attempt("cublas:algo0", (24, 64, 64), cublas_algo=ALGO))
        s.add(_attempt("cublas:heuristic", (24, 64, 64), cublas_algo=ALGO.replace("59", "17")))
        s.add(_attempt("kernel_a", (24, 64, 64), sentinel="first", sentinel_ratio=1.031))
        s.add(_attempt("kernel_b", (48, 64, 64), sentinel="first", sentinel_ratio=0.999))
    return path


def test_configurations_and_sentinels_from_a_store_and_its_gzip(store: Path) -> None:
    gz = store.with_name("store.sqlite.gz")
    gz.write_bytes(gzip.compress(store.read_bytes()))
    for path in (store, gz):
        algos = cublas_algos(path, "gemm_tune_shapes")
        assert algos[(24, 64, 64), "cublas:algo0"].tile == 59
        assert algos[(24, 64, 64), "cublas:heuristic"].tile == 17
        assert sentinel_ratios(path, "gemm_tune_shapes") == {"24x64x64": 1.031, "48x64x64": 0.999}
    assert store_beside(store.with_name("profile.json")) == store


def test_a_file_that_is_not_a_store_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "store.sqlite.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(UsageError, match="cannot read the measurement store"):
        cublas_algos(bad, "gemm_tune_shapes")
