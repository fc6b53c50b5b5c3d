"""sensitivity on recorded and crafted profiles: noise floor, verdicts, inert, env params, CLI.

``sensitivity_crafted.json`` was built through harness.plan and harness/profiles/ from a model
whose answer is known (see its ``meta._comment``): tile.block keep (16 never wins, 128
crashes everywhere), tile.pad dead with a real 0.5 % effect, tile.unroll flat (5 % at n=1024
only), tile.lanes an env parameter with no effect at all, repeats scattered +-0.5 %; rate.tile
a direction-max bench with one run per configuration and the benchmark's own 1 % stddev.
``sensitivity_batchlas_v0.json`` is in BatchLAS's own layout (no format, args/env/value only).
``sensitivity_demo_recorded.json`` is a real ``tune --repeats 3`` of spaces/demo.json on a
busy 2-core machine.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.analysis.noise import measured_noise, median_sd
from benchspace.harness.analysis.sensitivity import analyse_profile
from benchspace.harness.analysis.sensitivity_report import SensitivityReport
from benchspace.harness.analysis.slices import percentile
from benchspace.harness.cli import main
from benchspace.harness.profiles.model import MeasurementRow
from benchspace.harness.profiles.read import load_profile

ROOT = Path(__file__).resolve().parents[3]
PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"
CRAFTED = PROFILES / "sensitivity_crafted.json"
BATCHLAS = PROFILES / "sensitivity_batchlas_v0.json"
RECORDED = PROFILES / "sensitivity_demo_recorded.json"


def _analyse(path: Path, noise: float | None = None) -> SensitivityReport:
    return analyse_profile(load_profile(path), source=str(path), noise_pct=noise)


@pytest.fixture(scope="module")
def crafted() -> SensitivityReport:
    return _analyse(CRAFTED)


def test_noise_floor_is_measured_from_repeats(crafted: SensitivityReport) -> None:
    noise = crafted.bench("tile").noise
    # sigma: stdev/median = 0.5 %, divided by the chi median factor at n=3 (0.8326); the floor
    # is two standard errors of a difference of two medians of 3: 2 * sqrt(2) * 0.6698 sigma.
    assert noise.source == "repeats"
    assert noise.pct == pytest.approx(2 * math.sqrt(2) * 0.6698 * 0.5 / 0.83255, rel=2e-3)
    assert noise.basis == 108  # every measured configuration (the crashed ones have no value)


def test_noise_floor_falls_back_to_reported_spread(crafted: SensitivityReport) -> None:
    noise = crafted.bench("rate").noise
    assert (noise.source, noise.pct, noise.basis) == ("reported spread", pytest.approx(2.0), 6)


def test_noise_floor_unknown_uses_the_fallback() -> None:
    report = _analyse(BATCHLAS)
    noise = report.bench("gesvd").noise
    assert (noise.source, noise.pct, noise.measured_pct) == ("unknown", 1.0, None)


def test_noise_flag_overrides_but_keeps_the_measured_figure() -> None:
    report = _analyse(CRAFTED, noise=0.1)
    tile = report.bench("tile")
    assert (tile.noise.source, tile.noise.pct) == ("flag", 0.1)
    assert tile.noise.measured_pct == pytest.approx(1.1377, rel=2e-3)
    assert tile.param("pad").verdict == "keep"  # 0.5 % is real against a 0.1 % floor


def test_median_sd_matches_known_values() -> None:
    # Var(median of 3 standard normals) = 0.4487; of 2 it is the mean's, 1/2.
    assert median_sd(2) == pytest.approx(1 / math.sqrt(2))
    assert median_sd(3) == pytest.approx(math.sqrt(0.4487), rel=3e-3)
    assert median_sd(25) == pytest.approx(math.sqrt(math.pi / 2 / 25), rel=0.03)


def _row(fields: dict[str, float]) -> MeasurementRow:
    return MeasurementRow(
        case_index=0,
        fixed={},
        params={},
        median=fields["median"],
        stdev=fields["stdev"],
        n=int(fields["n"]),
    )


def test_more_repeats_give_a_tighter_floor() -> None:
    rows = [{"n": n, "stdev": 1.0, "median": 100.0} for n in (5, 5, 5)]
    five, _, _ = measured_noise([_row(r) for r in rows])
    three, _, _ = measured_noise([_row({**r, "n": 3}) for r in rows])
    assert five is not None and three is not None and five < three


def test_measured_noise_ignores_single_runs() -> None:
    rows = [{"n": 1, "stdev": 0.0, "median": 10.0, "value": 10.0}]
    assert measured_noise([_row(r) for r in rows]) == (None, "unknown", 0)


def test_verdicts_dead_flat_keep(crafted: SensitivityReport) -> None:
    tile = crafted.bench("tile")
    verdicts = {p.param: p.verdict for p in tile.params}
    assert verdicts == {"block": "keep", "pad": "dead", "unroll": "flat", "lanes": "dead"}
    unroll = tile.param("unroll")
    assert unroll.median_pct == pytest.approx(0.0, abs=1e-9)
    assert unroll.max_pct == pytest.approx(5.0)
    assert tile.param("block").median_pct == pytest.approx(30.0)


def test_slices_fix_the_case_and_every_other_parameter(crafted: SensitivityReport) -> None:
    tile = crafted.bench("tile")
    # 3 cases x the other parameters' measured combinations (block 128 always crashed).
    assert {p.param: p.slices for p in tile.params} == {
        "block": 3 * 2 * 2 * 3,
        "pad": 3 * 3 * 2 * 3,
        "unroll": 3 * 3 * 2 * 3,
        "lanes": 3 * 3 * 2 * 2,
    }


def test_spread_is_direction_aware(crafted: SensitivityReport) -> None:
    tile = crafted.bench("rate").param("tile")
    # Rates (max is best): case 0 best 50 vs worst 35, case 1 best 41.2 vs worst 28.
    assert sorted(tile.spreads) == pytest.approx([100 * (50 / 35 - 1), 100 * (41.2 / 28 - 1)])
    assert tile.verdict == "keep"
    assert tile.never_winning == (1,)
    assert {v.value: v.wins for v in tile.values} == {1: (), 2: (0,), 4: (1,)}


def test_never_winning_values_include_failed_ones(crafted: SensitivityReport) -> None:
    block = crafted.bench("tile").param("block")
    assert block.never_winning == (16, 128)
    stats = {v.value: v for v in block.values}
    assert stats[128].failed_only and stats[128].excess_pct is None
    assert stats[16].excess_pct == pytest.approx(30.0)
    assert stats[32].wins == (0, 1) and stats[64].wins == (2,)


def test_inert_needs_no_difference_in_any_case(crafted: SensitivityReport) -> None:
    tile = crafted.bench("tile")
    lanes = tile.param("lanes")
    assert lanes.inert and lanes.inert_test == "kruskal-wallis"
    assert lanes.inert_p == pytest.approx(1.0)
    # pad is dead, but its 0.5 % shift is consistent: the pooled test sees it.
    pad = tile.param("pad")
    assert not pad.inert and pad.inert_p is not None and pad.inert_p < 0.05
    # unroll differs in one case only: the per-case test sees it.
    assert not tile.param("unroll").inert


def test_env_parameters_come_from_measurement_params(crafted: SensitivityReport) -> None:
    lanes = crafted.bench("tile").param("lanes")
    assert lanes.env_var == "DEMO_TUNE_LANES"
    assert [v.value for v in lanes.values] == [None, 2, 4]  # None: variable left unset


def test_batchlas_profile_env_params_are_read_from_env() -> None:
    gebrd = _analyse(BATCHLAS).bench("gesvd").param("gebrd_nb")
    assert gebrd.env_var == "BATCHLAS_TUNE_GEBRD_BLOCK_SIZE"
    assert gebrd.slices == 3 and gebrd.verdict == "keep"
    assert gebrd.never_winning == (8,)
    assert _analyse(BATCHLAS, noise=0.3).bench("gesvd").param("gebrd_nb").never_winning == (8, 12)


def test_without_repeats_inert_means_dead() -> None:
    gebrd = _analyse(BATCHLAS, noise=10.0).bench("gesvd").param("gebrd_nb")
    assert gebrd.verdict == "dead"
    assert (gebrd.inert, gebrd.inert_test, gebrd.inert_p) == (True, "none (no repeats)", None)


def test_recorded_demo_profile() -> None:
    report = _analyse(RECORDED)
    assert [b.bench for b in report.benches] == ["matmul", "lu", "matvec", "sort"]
    for bench in report.benches:
        assert bench.noise.source == "repeats" and bench.noise.pct > 0
    assert report.bench("sort").pre_tuned == ("cutoff",)
    assert [p.param for p in report.bench("sort").params] == ["branchless"]
    lanes = report.bench("matvec").param("lanes")
    assert lanes.env_var == "BENCHSPACE_DEMO_TUNE_DOT_LANES" and lanes.slices == 5
    assert report.bench("matmul").param("block").slices == 4
    assert report.bench("matmul").direction == "max"
    # What that busy machine measured: LU's run-to-run noise swamps its block size.
    assert report.bench("lu").noise.pct == pytest.approx(89.85, abs=0.1)
    assert report.bench("lu").param("block").verdict == "dead"
    assert lanes.verdict == "keep" and lanes.never_winning == (1, 2)
    assert report.bench("matmul").param("block").never_winning == (16,)


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 90) == pytest.approx(3.7)
    assert percentile([5.0], 90) == 5.0


# ---------------------------------------------------------------- the command


def test_cli_text_lists_verdicts_inert_and_never_winning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sensitivity", str(CRAFTED)]) == 0
    out = capsys.readouterr().out
    assert "tile: 1.14 % (from repeats, 108 measurements)" in out
    assert "rate: 2.00 % (from reported spread, 6 measurements)" in out
    assert "dead (max spread within noise): tile.pad, tile.lanes" in out
    assert "tile.lanes (kruskal-wallis, p = 1.00)" in out
    assert "dead; inert — check that the code reads it" in out
    assert "tile.block: 16, 128" in out
    assert "lanes (env DEMO_TUNE_LANES)" in out


def test_cli_json_is_plain_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", str(CRAFTED), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    tile = next(b for b in data["benches"] if b["bench"] == "tile")
    pad = next(p for p in tile["params"] if p["param"] == "pad")
    assert (pad["verdict"], pad["slices"], pad["max_pct"]) == ("dead", 54, 0.5)
    assert tile["noise"]["source"] == "repeats"
    lanes = next(p for p in tile["params"] if p["param"] == "lanes")
    assert lanes["inert"] is True and lanes["env_var"] == "DEMO_TUNE_LANES"


def test_cli_markdown_and_unknown_noise(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", str(BATCHLAS), "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert "| gesvd | gebrd_nb (env BATCHLAS_TUNE_GEBRD_BLOCK_SIZE) | 7.00 |" in out
    assert "unknown: no repeats and no reported spread; using 1 %" in out


def test_cli_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "plots" / "spread.png"
    assert main(["sensitivity", str(CRAFTED), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("noise", ["loud", "-1", "nan"])
def test_cli_rejects_a_bad_noise(noise: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", str(CRAFTED), "--noise", noise]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --noise: ") and err.count("\n") == 1


def test_cli_missing_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", str(tmp_path / "nope.json")]) == 1
    assert "no such profile" in capsys.readouterr().err


def test_runs_as_a_script_like_batchlas() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "harness" / "sensitivity.py"), str(BATCHLAS)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "gesvd  gebrd_nb" in done.stdout


def test_tune_then_sensitivity_end_to_end(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # The fake benchmark reads n, block and FAKE_LANES, and never FAKE_GHOST.
    grid = {"block": [16, 32], "lanes": [2, 4], "ghost": [1, 2]}
    space = write_space(
        [{"bench": "fake", "exe": "fake_benchmark", "metric": "Time (µs) / matrix",
          "arg_spec": ["n", "block"], "env": {"lanes": "FAKE_LANES", "ghost": "FAKE_GHOST"},
          "cases": [{"fixed": {"n": n}, "tune": grid} for n in (64, 256)]}]
    )  # fmt: skip
    out = fake_build / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--repeats", "2", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["sensitivity", str(out), "--format", "json"]) == 0
    (bench,) = json.loads(capsys.readouterr().out)["benches"]
    assert bench["noise"]["source"] == "repeats"  # deterministic fake: a 0 % floor
    params = {p["param"]: p for p in bench["params"]}
    assert params["block"]["verdict"] == params["lanes"]["verdict"] == "keep"
    assert params["lanes"]["env_var"] == "FAKE_LANES"
    assert (params["ghost"]["verdict"], params["ghost"]["inert"]) == ("dead", True)
    assert params["ghost"]["slices"] == 2 * 2 * 2


def test_pre_tune_phase_is_judged_on_its_table_and_trimmed(
    fake_build: Path,
    write_space: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # block is pre-tuned on case 0 (the fake's optimum is 32; 200 is 7.9x slower, 16 and 48
    # 6 % slower); lanes (an env knob) is then swept on every case.
    space = write_space(
        [{"bench": "fake", "exe": "fake_benchmark", "metric": "Time (µs) / matrix",
          "arg_spec": ["n", "block"], "env": {"lanes": "FAKE_LANES"},
          "pre_tune": [{"params": {"block": [16, 32, 48, 200]}, "cases": [0]}],
          "cases": [{"fixed": {"n": n}, "tune": {"lanes": [2, 4]}} for n in (64, 256)]}]
    )  # fmt: skip
    out = fake_build / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--repeats", "2", "--quiet"]) == 0
    (phase,) = json.loads(out.read_text())["results"][0]["pre_tune"]
    assert [row["params"]["block"] for row in phase["table"]] == [16, 32, 48, 200]
    assert [row["score"] for row in phase["table"]] == pytest.approx(
        [1.0625, 1.0, 1.0625, 7.890625]
    )
    report = _analyse(out)
    block = report.bench("fake").param("block")
    assert block.pre_tune == 0 and block.verdict == "keep"
    assert block.never_winning == (16, 48, 200)  # a deterministic fake: a 0 % floor
    assert report.bench("fake").unanalysed == ()
    pruned = tmp_path / "pruned.json"
    capsys.readouterr()
    assert (
        main(["sensitivity", str(out), "--space", str(space), "--write-pruned", str(pruned)]) == 0
    )
    text = capsys.readouterr().out
    assert "block (pre_tune[0])" in text and "not analysed" not in text
    assert "fake.block (pre_tune[0]): trimmed 16, 48, 200" in text
    raw = json.loads(pruned.read_text())
    assert raw["spaces"][0]["pre_tune"] == [{"params": {"block": [32]}, "cases": [0]}]
    assert "invocations per repeat: 8 before, 3 after" in text  # lanes=2 trimmed too
