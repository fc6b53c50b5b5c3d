"""Runs with rounds (dataset v2): read through the one reader, the fair summary, one clock per
shape, and the committed data's interleaved rounds."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.dataset import DatasetError
from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.dataset_runs import (
    ROUND_COLUMNS,
    align_runs,
    interleaving_problems,
    per_config,
)
from benchspace.evaluation.cutlass.driver_csv import parse_config
from benchspace.evaluation.cutlass.shape_file import load_shape_classes
from benchspace.evaluation.study.summary import summarise_fair
from benchspace.evaluation.study.summary_format import render_fair

COMMITTED = Path(__file__).parents[3] / "evaluation" / "data" / "h200" / "v2"
SHAPES = Path(__file__).parents[3] / "evaluation" / "data" / "shapes" / "h200_v2.json"
A = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8_a"
B = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_64x64x128_1x1x1_0_tnn_align8_b"


def _write(path: Path, fields: tuple[str, ...], rows: list[dict[str, object]]) -> None:
    with gzip.open(path, "wt", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)


Rows = list[dict[str, object]]


def _run(run: str, split: str, tag: str, times: dict[str, float], start: float = 0.0) -> Rows:
    rows: list[dict[str, object]] = []
    t = start
    for rnd in range(3):
        for seq, (config, ms) in enumerate(times.items()):
            t += 0.001
            rows.append(
                {"run": run, "split": split, "pass": tag, "config": config, "M": 256, "N": 512,
                 "K": 1024, "round": rnd, "seq": seq, "ms": ms * (1 + 0.01 * rnd),
                 "sm_clock_mhz": 1500 + rnd, "power_w": 690.0, "t_s": round(t, 4)}
            )  # fmt: skip
    return rows


def _dataset(tmp_path: Path, rounds: list[dict[str, object]]) -> Path:
    (tmp_path / "provenance.json").write_text(
        json.dumps({"format": "benchspace-cutlass-dataset", "version": 2, "gpu": "test"})
    )
    _write(tmp_path / "rounds_c1_eval.csv.gz", ROUND_COLUMNS, rounds)
    fields = ("run", "split", "pass", "config", "name", "M", "N", "K", "status")
    rows = [
        {**{k: r[k] for k in fields if k in r}, "name": parse_config(str(r["config"])).name,
         "status": "ok"}
        for r in rounds if r["round"] == 0
    ]  # fmt: skip
    _write(tmp_path / "rows_c1_eval.csv.gz", fields, rows)
    return tmp_path


def test_fair_ratios_come_from_one_run(tmp_path: Path) -> None:
    x = _run("eval-256x512x1024-x", "eval", "x",
             {A: 0.02, B: 0.03, "cublas:heuristic": 0.025, "cublas:algo0": 0.025,
              "cublas:algo1": 0.022})  # fmt: skip
    k = _run("eval-256x512x1024-k", "eval", "k",
             {A: 0.021, f"{A}:M:2": 0.016, f"{A}:H:1:k2:dK": 0.03, "cublas:heuristic": 0.024,
              "cublas:algo0": 0.024, "cublas:algo1": 0.02}, start=1.0)  # fmt: skip
    data = load_dataset(_dataset(tmp_path, x + k))
    assert interleaving_problems(data.rounds) == []
    table = per_config(data.rounds)
    assert set(table.loc[table["config"] == f"{A}:M:2", "swizzle"]) == {2}
    summary = summarise_fair(data)
    (row,) = summary.shapes.to_dict("records")
    assert row["oracle_config"] == f"{A}:M:2"
    # Medians over rounds; every time grows 1 % a round, so the ratios are the base ratios.
    assert row["oracle_vs_heuristic"] == pytest.approx(0.024 / 0.016)
    assert row["oracle_vs_best_of_n"] == pytest.approx(0.020 / 0.016)
    assert row["knob_gain"] == pytest.approx(0.021 / 0.016)
    assert row["default_vs_heuristic"] == pytest.approx(0.025 / 0.020)
    assert row["clock_p5"] >= 1500 and row["clock_p95"] <= 1502
    text = render_fair(summary, "test")
    assert "geometric means by class" in text and "M:2" in text


def test_a_later_topup_is_the_sweep_and_counts_the_new_kernels(tmp_path: Path) -> None:
    """Pass y (a later call) re-times the earlier best's knobs beside new kernels: the fair
    ratios come from it alone, and the shape counts the kernels of x and y together."""
    x = _run("eval-256x512x1024-x", "eval", "x",
             {A: 0.02, "cublas:heuristic": 0.025, "cublas:algo0": 0.025})  # fmt: skip
    k = _run(
        "eval-256x512x1024-k",
        "eval",
        "k",
        {f"{A}:M:2": 0.010, "cublas:heuristic": 0.024, "cublas:algo0": 0.02},
        start=1.0,
    )
    y = _run("eval-256x512x1024-y", "eval", "y",
             {A: 0.019, f"{A}:M:2": 0.016, B: 0.015, "cublas:heuristic": 0.03,
              "cublas:algo0": 0.027}, start=2.0)  # fmt: skip
    folder = _dataset(tmp_path, x + k)
    _write(folder / "rounds_c2_eval.csv.gz", ROUND_COLUMNS, y)
    summary = summarise_fair(load_dataset(folder))
    (row,) = summary.shapes.to_dict("records")
    assert row["kernels"] == 2
    assert row["oracle_config"] == B
    assert row["oracle_vs_heuristic"] == pytest.approx(0.03 / 0.015)
    assert row["oracle_vs_best_of_n"] == pytest.approx(0.027 / 0.015)
    assert row["default_vs_heuristic"] == pytest.approx(0.03 / 0.015)
    assert row["knob_gain"] == pytest.approx(1.0)
    # Two shared cuBLASLt rows are too few to put y on x's clock: its speed stays 1.
    assert summary.between_calls["y"]["speed"] == pytest.approx(1.0)
    assert summary.between_calls["y"]["oracle_vs_heuristic"] == pytest.approx(0.03 / 0.015)
    assert summary.between_calls["k"]["oracle_vs_heuristic"] == pytest.approx(0.024 / 0.010)


def test_interleaving_problems_are_named(tmp_path: Path) -> None:
    rows = _run("eval-256x512x1024-x", "eval", "x", {A: 0.02, "cublas:heuristic": 0.025})
    late = [dict(r, t_s=float(r["t_s"]) + 5) if r["config"] == "cublas:heuristic" else r
            for r in rows]  # fmt: skip
    data = load_dataset(_dataset(tmp_path, late))
    problems = interleaving_problems(data.rounds)
    assert any("outside the kernels' span" in p for p in problems)
    only_kernels = [r for r in rows if r["config"] == A]
    data = load_dataset(_dataset(tmp_path, only_kernels))
    assert interleaving_problems(data.rounds) == [
        "c1/eval-256x512x1024-x: needs both cuBLASLt and kernel rows"
    ]


def test_reader_names_a_foreign_folder(tmp_path: Path) -> None:
    (tmp_path / "provenance.json").write_text('{"format": "other", "version": 1}')
    with pytest.raises(
        DatasetError, match=r"\$\.format: 'other' must be 'benchspace-cutlass-dataset'"
    ):
        load_dataset(tmp_path)


@pytest.mark.skipif(not COMMITTED.is_dir(), reason="no committed v2 data")
def test_committed_v2_data_times_cublas_in_the_kernels_rounds() -> None:
    data = load_dataset(COMMITTED)
    assert interleaving_problems(data.rounds) == []
    runs = data.rounds.groupby("run")["kernel"].apply(lambda k: {"cublas"} < set(k))
    assert runs.all(), "every run has cuBLASLt and at least one kernel"
    summary = summarise_fair(data, load_shape_classes(SHAPES))
    assert summary.counts["eval_shapes"] + summary.counts["train_shapes"] > 0


def test_runs_of_a_shape_are_put_on_one_clock_by_their_cublas_rows(tmp_path: Path) -> None:
    """A later call ran everything 10 % faster: its rows are scaled back by the cuBLASLt
    configurations both runs timed, never by the re-timed kernels (picked as the fastest)."""
    cublas = {f"cublas:algo{i}": 0.02 + 0.001 * i for i in range(5)}
    x = _run("eval-256x512x1024-x", "eval", "x",
             {A: 0.010, B: 0.03, "cublas:heuristic": 0.025, **cublas})  # fmt: skip
    fast = {c: 0.9 * ms for c, ms in {"cublas:heuristic": 0.025, **cublas}.items()}
    y = _run("eval-256x512x1024-y", "eval", "y", {A: 0.0108, B: 0.0135, **fast}, start=2.0)
    folder = _dataset(tmp_path, x)
    _write(folder / "rounds_c2_eval.csv.gz", ROUND_COLUMNS, y)
    table = align_runs(per_config(load_dataset(folder).rounds))
    scales = table.groupby("pass")["clock_scale"].first()
    assert scales["x"] == 1.0 and scales["y"] == pytest.approx(1 / 0.9)
    ms = table.set_index(["pass", "config"])["ms"]
    assert ms["y", B] == pytest.approx(0.015 * 1.01)  # medians: the middle round, +1 %
    assert ms["y", A] == pytest.approx(0.012 * 1.01)  # slower than x's (selection-biased) 0.010
