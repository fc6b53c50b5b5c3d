"""The cuBLASLt study's figures: on made-up rows with known ratios, and on the H200 data."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.study.pinned_study import (
    confirmed_ratios,
    pinned_replays,
    pinned_study,
    render_pinned,
)

PIN = "cublaslt:id=66;tile=24;splitk=1;reduction=0;swizzle=0;custom=7;stages=35;inner=0;cluster=5"
ATTRS = PIN.split(":", 1)[1]


def _row(run: str, config: str, ms: float, algo: str = "") -> dict[str, object]:
    return {"run": run, "mode": "g0r10", "status": "ok", "config": config, "M": 64, "N": 64,
            "K": 64, "ms_median": ms, "cublas_algo": algo}  # fmt: skip


def test_a_pick_is_judged_in_the_confirmation_run_beside_the_heuristic() -> None:
    rows = pd.DataFrame(
        [
            _row("a", "cublas:heuristic", 1.0),
            _row("a", PIN, 0.5),  # the selection run's figure: never used
            _row("d", "cublas:heuristic", 1.0),
            _row("d", PIN, 0.8),
            _row("d", "kernel", 1.25),
        ]
    )
    ratios = confirmed_ratios(rows, {"64x64x64": {"best8": PIN, "cutlass": "kernel"}})
    assert ratios.loc[0, "best8"] == pytest.approx(1.25)
    assert ratios.loc[0, "cutlass"] == pytest.approx(0.8)


def test_a_pinned_replay_is_compared_with_its_rank_in_the_same_process() -> None:
    rows = pd.DataFrame(
        [
            _row("a", "cublas:algo0", 1.0, ATTRS + ";ws=0;waves=1.0"),
            _row("a", PIN, 1.01),
            _row(
                "b",
                "cublas:algo0",
                2.0,
                "id=1;tile=1;splitk=1;reduction=0;swizzle=0;custom=0;"
                "stages=1;inner=0;cluster=0;ws=0",
            ),
            _row("b", PIN, 2.0),
        ]
    )
    replays = pinned_replays(rows, {"64x64x64": {"shortlist": [], "extra": [PIN]}})
    assert list(replays["ratio"]) == pytest.approx([1.01, 1.0])
    assert list(replays["same"]) == [True, False]


def test_the_recorded_h200_study_prints_its_confirmed_figures() -> None:
    folder = DATA_DIR / "h200" / "cublaslt"
    if not (folder / "picks.json").exists():
        pytest.skip("the H200 data is not installed")
    from benchspace.evaluation.study.timing_runs import load_timing

    study = pinned_study(
        load_timing(folder),
        json.loads((folder / "picks.json").read_text()),
        json.loads((folder / "finalists.json").read_text()),
        pd.read_csv(folder / "space_counts.csv"),
    )
    assert study.replays == study.replays_same_key == 1024
    assert 0.99 < study.replay_geomean < 1.01
    by_key = {f.key: f for f in study.picks}
    assert by_key["both"].shapes == 64
    assert by_key["search"].geomean >= by_key["both"].geomean * 0.99
    text = render_pinned(study)
    assert "K=8 CUTLASS + cuBLASLt's top 8 (picked in run a): 1.0509" in text


def test_the_wide_study_reports_its_picks_over_the_best_of_8_and_never_the_screen() -> None:
    other = PIN.replace("custom=7", "custom=6")
    rows = pd.DataFrame(
        [
            _row("s", other, 0.1),  # the screen chose it: its figure is not a pick's
            _row("s", PIN, 0.2),
            _row("a", "cublas:algo0", 1.0, ATTRS + ";ws=0"),
            _row("a", PIN, 1.0),
            _row("d", "cublas:heuristic", 1.0),
            _row("d", PIN, 0.9),
            _row("d", other, 0.8),
        ]
    )
    picks = {"64x64x64": {"best8": PIN, "both": PIN, "wide": other, "wide_cublaslt": other}}
    finalists = {"64x64x64": {"shortlist": [], "top8": [PIN], "extra": [PIN, other]}}
    study = pinned_study(rows, picks, finalists, None)
    by_key = {f.key: f for f in study.picks}
    assert by_key["wide"].geomean == pytest.approx(1.25)
    assert dict(study.over_best8)["wide"] == pytest.approx(0.9 / 0.8)
    assert study.replays == 1 and study.replays_same_key == 1
    assert study.screened_mean == 2
    text = render_pinned(study)
    assert "with the screen 1.1250" in text
    assert "space near the heuristic" not in text


def test_the_recorded_wide_h200_study_prints_its_confirmed_figures() -> None:
    folder = DATA_DIR / "h200" / "cublaslt_wide"
    if not (folder / "picks.json").exists():
        pytest.skip("the H200 data is not installed")
    from benchspace.evaluation.study.timing_runs import load_timing

    rows = load_timing(folder)
    study = pinned_study(
        rows,
        json.loads((folder / "picks.json").read_text()),
        json.loads((folder / "finalists.json").read_text()),
        None,
    )
    assert study.replay_runs == "a" and study.replays == study.replays_same_key == 512
    by_key = {f.key: f for f in study.picks}
    assert {f.shapes for f in study.picks} == {64}
    assert by_key["wide"].geomean >= by_key["both"].geomean
    assert study.screened_mean is not None and study.screened_mean > 900
    text = render_pinned(study)
    assert "K=8 CUTLASS + top 8 + the screen's best (picked in run a): 1.0638" in text


def test_the_recorded_ranked_h200_study_screens_the_rankers_256_and_confirms_its_picks() -> None:
    folder = DATA_DIR / "h200" / "cublaslt_ranked"
    if not (folder / "picks.json").exists():
        pytest.skip("the H200 data is not installed")
    import gzip

    from benchspace.evaluation.study.timing_runs import load_timing

    rows = load_timing(folder)
    study = pinned_study(
        rows,
        json.loads((folder / "picks.json").read_text()),
        json.loads((folder / "finalists.json").read_text()),
        None,
    )
    with gzip.open(folder / "finalists_s.json.gz", "rt") as handle:
        screened = json.loads(handle.read())
    assert {len(entry["extra"]) for entry in screened.values()} == {256}
    assert study.screened_mean == 256
    by_key = {f.key: f for f in study.picks}
    assert {f.shapes for f in study.picks} == {64}
    text = render_pinned(study)
    assert "K=8 CUTLASS + top 8 + the screen's best (picked in run a): 1.0638" in text
    assert "K=8 + top 8 1.0072, with the screen 1.0187" in text
    assert by_key["wide"].geomean >= by_key["both"].geomean
