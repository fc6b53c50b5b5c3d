"""The tune-my-shapes header of a cuBLASLt study: chosen in the selection run, judged in the
confirmation run; bad folders get one line and exit 1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.deploy.measured_header import measured_dispatch
from benchspace.evaluation.deploy.study_header import header_figure, study_table
from benchspace.harness.cli import main

KERNEL = (
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8_"
    "warpspecialized_pingpong_epi_tma"
)
PIN = "cublaslt:id=66;tile=24;splitk=1;reduction=0;swizzle=0;custom=7;stages=35;inner=0;cluster=5"
STUDY = DATA_DIR / "h200" / "cublaslt_wide"


def _row(run: str, config: str, ms: float) -> dict[str, object]:
    return {"run": run, "status": "ok", "config": config, "M": 64, "N": 64, "K": 64,
            "ms_median": ms}  # fmt: skip


def test_the_header_runs_the_selection_winner_and_its_figure_is_the_confirmation_run() -> None:
    rows = pd.DataFrame(
        [
            _row("a", KERNEL, 1.0),
            _row("a", "cublas:heuristic", 0.9),
            _row("a", PIN, 0.8),
            _row("a", "cublas:algo3", 0.5),  # a rank: its pinned twin stands for it
            _row("a", PIN + "@last", 0.1),  # the position sentinel's copy: never a candidate
            _row("d", "cublas:heuristic", 1.0),
            _row("d", PIN, 0.8),
        ]
    )
    finalists = {"64x64x64": {"shortlist": [KERNEL], "top8": [PIN], "extra": [PIN]}}
    table = study_table(rows, finalists)
    assert sorted(table["config"]) == sorted([KERNEL, "cublas:heuristic", "cublas:algo:" + PIN])
    dispatch = measured_dispatch(table, 132, None, "test", 130100)
    assert [p.key for p in dispatch.pinned] == [PIN]
    figure = header_figure(dispatch, rows)
    assert (figure.shapes, figure.timed, figure.pinned) == (1, 1, 1)
    assert figure.geomean == pytest.approx(1.25)


def test_a_folder_that_is_no_study_gets_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "h.hh"
    assert main(["cutlass", "header", "--from-study", str(tmp_path), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a cuBLASLt study folder" in err
    assert not out.exists()


def test_unreadable_rows_get_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not (STUDY / "finalists.json").exists():
        pytest.skip("the H200 data is not installed")
    for name in ("finalists.json", "cublas.json"):
        shutil.copy(STUDY / name, tmp_path / name)
    (tmp_path / "timing_rows_a_g0r10.csv.gz").write_bytes(b"not gzip")
    out = tmp_path / "h.hh"
    assert main(["cutlass", "header", "--from-study", str(tmp_path), "--out", str(out)]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()


def test_the_recorded_study_header_is_regenerated_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not (STUDY / "finalists.json").exists():
        pytest.skip("the H200 data is not installed")
    out = tmp_path / "tuned.hh"
    rel = STUDY.relative_to(Path.cwd()) if STUDY.is_relative_to(Path.cwd()) else STUDY
    assert main(["cutlass", "header", "--from-study", str(rel), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "geomean 1.0637" in printed and "ahead on 58 of 64" in printed
    if rel != STUDY:
        assert out.read_text() == (STUDY / "gemm_kernels_tuned.hh").read_text()
