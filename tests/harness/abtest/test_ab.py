"""ab: the statistics on synthetic samples, and the interleaved runner on a fake executable."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchspace.harness.abtest.ab import (
    ABOptions,
    Side,
    exe_invocation,
    format_env,
    pair_orders,
    parse_assignments,
    run_ab,
    with_side,
)
from benchspace.harness.abtest.stats import (
    check_samples,
    compare,
    look_confidence,
    look_schedule,
    mann_whitney_p,
    noise_warning,
    outside_margin,
    ratio_intervals,
    verdict_of,
)
from benchspace.harness.cli import main
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.invoke import Invocation, RunOptions
from benchspace.harness.store import Store

FAKE_AB = Path(__file__).resolve().parents[2] / "fakes" / "fake_ab.py"


def _samples(mean: float, n: int, seed: int, noise: float = 0.02) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(mean * (1 + noise * rng.standard_normal(n)))


# ---------------------------------------------------------------- statistics


def test_clear_difference_is_detected_in_the_right_direction() -> None:
    a, b = _samples(100, 20, 1), _samples(110, 20, 2)
    c = compare(a, b, direction="min")
    assert c.verdict == "A faster"  # B takes 10 % longer: A is faster
    assert c.ratio == pytest.approx(1.1, abs=0.02)
    assert 1.0 < c.ci_low < c.ratio < c.ci_high
    assert c.p_value < 1e-4
    assert compare(a, b, direction="max").verdict == "B faster"  # a rate: higher is better
    assert compare(b, a, direction="min").verdict == "B faster"


def test_identical_distributions_are_not_called_different() -> None:
    calls = [
        compare(_samples(100, 30, s), _samples(100, 30, s + 100), direction="min").verdict
        for s in range(20)
    ]
    assert calls.count("no difference detected") >= 19


def test_margin_requires_the_interval_outside_the_band() -> None:
    a, b = _samples(100, 30, 3, noise=0.002), _samples(103, 30, 4, noise=0.002)
    assert compare(a, b, direction="min", margin_pct=1).verdict == "A faster"
    assert compare(a, b, direction="min", margin_pct=5).verdict == "no difference detected"


def test_no_verdict_below_the_minimum_pairs() -> None:
    a, b = [100.0, 101.0, 99.0], [200.0, 201.0, 199.0]
    c = compare(a, b, direction="min", min_pairs=5)
    assert c.verdict == "no difference detected" and c.ratio == pytest.approx(2.0)


def test_decision_needs_the_rank_test_too() -> None:
    # Four of five pairs B slower: the bootstrap interval excludes 1 but 5 vs 5 ranks that
    # are not fully separated cannot reach the per-look level.
    a = [100.0, 100.5, 99.5, 100.2, 103.0]
    b = [102.0, 102.5, 101.5, 102.2, 99.0]
    c = compare(a, b, direction="min", decision_confidence=look_confidence(4))
    assert c.p_value > 1 - c.decision_confidence
    assert c.verdict == "no difference detected"


def test_look_schedule_and_per_look_confidence() -> None:
    assert look_schedule(5, 30) == (5, 10, 20, 30)
    assert look_schedule(5, 40) == (5, 10, 20, 40)
    assert look_schedule(5, 5) == (5,)
    assert look_confidence(4) == pytest.approx(0.9875)
    assert look_confidence(1) == pytest.approx(0.95)


def test_margin_band_and_verdict_mapping() -> None:
    assert outside_margin(0.95, 0.99, 0) == -1
    assert outside_margin(0.95, 0.99, 2) == 0  # 0.99 > 0.98
    assert outside_margin(1.03, 1.05, 2) == 1
    assert outside_margin(0.99, 1.01, 0) == 0
    assert verdict_of(-1, "min") == "B faster"
    assert verdict_of(-1, "max") == "A faster"
    assert verdict_of(1, "min") == "A faster"
    assert verdict_of(0, "max") == "no difference detected"


def test_bootstrap_is_seeded_and_paired() -> None:
    a, b = _samples(100, 12, 5), _samples(100, 12, 6)
    first = ratio_intervals(a, b, (0.95,), seed=7)
    assert ratio_intervals(a, b, (0.95,), seed=7) == first
    assert ratio_intervals(a, b, (0.95,), seed=8) != first
    # A drift shared by both runs of a pair cancels in the paired resampling.
    drift = [1 + 0.2 * i for i in range(12)]
    ((low, high),) = ratio_intervals(
        [100 * d for d in drift], [103 * d for d in drift], (0.95,), seed=0
    )
    assert low > 1.0 and high < 1.06


def test_degenerate_samples() -> None:
    assert mann_whitney_p([5.0, 5.0, 5.0], [5.0, 5.0, 5.0]) == 1.0
    with pytest.raises(BenchspaceError) as err:
        check_samples([1.0, 0.0], [1.0, 2.0])
    assert str(err.value) == (
        "ab: side A measured metric = 0.0; a ratio needs positive finite values; pick a time "
        "or rate metric"
    )


def test_noise_warning_only_when_undecided_and_wide() -> None:
    noisy = compare(_samples(100, 10, 9, noise=0.1), _samples(100, 10, 10, 0.1), direction="min")
    warning = noise_warning(noisy)
    assert warning is not None and warning.startswith("noise too high to resolve a 1 % diff")
    assert "pairs would resolve it" in warning
    quiet = compare(_samples(100, 30, 9, 0.001), _samples(100, 30, 10, 0.001), direction="min")
    assert noise_warning(quiet) is None
    clear = compare(_samples(100, 20, 1), _samples(130, 20, 2), direction="min")
    assert noise_warning(clear) is None


# ---------------------------------------------------------------- environments and order


def test_parse_assignments_set_empty_and_unset() -> None:
    env = parse_assignments(["X=1", "Y=", "Z", "W=a=b", "X=2"], option="--a")
    assert env == {"X": "2", "Y": "", "Z": None, "W": "a=b"}
    assert format_env(env) == "W=a=b X=2 Y='' -Z"
    assert format_env({}) == "(inherited)"
    with pytest.raises(UsageError) as err:
        parse_assignments(["1X=3"], option="--b")
    assert str(err.value) == (
        "--b '1X=3': '1X' is not an environment variable name; write VAR=VALUE to set, VAR= "
        "to set empty, VAR to unset"
    )


def test_pair_orders_are_seeded_and_mixed() -> None:
    orders = pair_orders(3, 200)
    assert orders == pair_orders(3, 200)
    assert orders != pair_orders(4, 200)
    assert set(orders) == {"AB", "BA"}
    assert 70 < orders.count("AB") < 130


# ---------------------------------------------------------------- the runner


@pytest.fixture
def fake_ab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A quick-starting shim for fake_ab.py, with a log and a noise counter in tmp_path."""
    shim = tmp_path / "bin" / "fake_ab"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "{FAKE_AB}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("FAKE_AB_LOG", str(tmp_path / "log.jsonl"))
    monkeypatch.setenv("FAKE_AB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("FAKE_AB_NOISE", "0.01")
    yield shim


def _log(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _sides(exe: Path, env_a: dict[str, str | None], env_b: dict[str, str | None]) -> list[Side]:
    base = exe_invocation(str(exe), ["64"], reader="csv", metric="time_ms", options=RunOptions())
    return [
        Side(label="A", invocation=with_side(base, env_a), overrides=env_a),
        Side(label="B", invocation=with_side(base, env_b), overrides=env_b),
    ]


def test_pairs_are_interleaved_in_the_seeded_order(fake_ab: Path, tmp_path: Path) -> None:
    a, b = _sides(fake_ab, {"TEST_SIDE": "a"}, {"TEST_SIDE": "b", "FAKE_AB_FACTOR": "1.5"})
    result = run_ab(a, b, ABOptions(rounds=12, seed=11), direction="min")
    assert result.comparison.verdict == "A faster"
    assert result.stop == "decided" and result.looks == (5,)
    expected = pair_orders(11, 12)
    assert result.orders == expected[:5]
    sequence = "".join(entry["env"]["TEST_SIDE"] for entry in _log(tmp_path)).upper()
    # One warm-up pair in the first pair's order, then the five pairs.
    assert sequence == expected[0] + "".join(expected[:5])
    assert len(result.samples_a) == len(result.samples_b) == 5


def test_set_empty_and_unset_reach_the_process(
    fake_ab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KNOB", "inherited")
    a, b = _sides(fake_ab, {"TEST_KNOB": ""}, {"TEST_KNOB": None})
    result = run_ab(a, b, ABOptions(rounds=5, warmup_pairs=0), direction="min")
    seen = {json.dumps(e["env"].get("TEST_KNOB")) for e in _log(tmp_path)}
    assert seen == {'""', "null"}
    assert result.comparison.verdict == "no difference detected"
    assert result.a.invocation.env == {"TEST_KNOB": ""}
    assert result.b.invocation.env == {"TEST_KNOB": None}


def test_every_attempt_is_recorded_and_a_failure_is_an_error(
    fake_ab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AB_FAIL_WHEN", "TEST_SIDE=b")
    a, b = _sides(fake_ab, {"TEST_SIDE": "a"}, {"TEST_SIDE": "b"})
    with Store(tmp_path / "ab.sqlite") as store, pytest.raises(BenchspaceError) as err:
        run_ab(a, b, ABOptions(rounds=5, seed=0), direction="min", record=store.add)
    assert str(err.value).startswith(
        "ab: side B (TEST_SIDE=b) failed on warm-up pair 1: exit status 3;"
    )
    assert str(err.value).endswith(
        "stderr: fake_ab: refusing TEST_SIDE=b; fix the command or the override"
    )
    db = sqlite3.connect(tmp_path / "ab.sqlite")
    rows = db.execute("SELECT phase, status, env FROM attempts ORDER BY id").fetchall()
    assert rows[-1] == ("ab-warmup", "failed", '{"TEST_SIDE": "b"}')


def test_time_budget_stops_between_pairs(fake_ab: Path, tmp_path: Path) -> None:
    ticks = iter(range(0, 10_000, 10))
    a, b = _sides(fake_ab, {"TEST_SIDE": "a"}, {"TEST_SIDE": "b"})
    options = ABOptions(rounds=30, max_time_s=75, warmup_pairs=0)
    result = run_ab(a, b, options, direction="min", clock=lambda: float(next(ticks)))
    assert result.stop == "time"
    assert result.comparison.n_pairs < 30 and result.looks[-1] == result.comparison.n_pairs


def test_budget_options_are_checked() -> None:
    inv = Invocation(
        bench="x", case_index=0, phase="ab", params={}, exe="x", exe_path=None, exe_sha256="",
        argv=("x",), env={}, reader="csv", pattern=None, row=None, metric="t", timeout_s=1,
        repeat=0,
    )  # fmt: skip
    side = Side(label="A", invocation=inv)
    with pytest.raises(UsageError) as err:
        run_ab(side, side, ABOptions(rounds=3), direction="min")
    assert str(err.value) == "--rounds 3: a verdict needs at least 5 pairs"
    with pytest.raises(UsageError) as err:
        run_ab(side, side, ABOptions(margin_pct=-1), direction="min")
    assert str(err.value) == "--margin -1: must be a percentage in [0, 100)"


# ---------------------------------------------------------------- the command


def test_cli_exe_mode_json(
    fake_ab: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["ab", "--exe", str(fake_ab), "--arg", "64", "--reader", "csv", "--metric", "time_ms",
         "--a", "TEST_SIDE=a", "--b", "TEST_SIDE=b", "--b", "FAKE_AB_FACTOR=0.8",
         "--format", "json", "--store", str(tmp_path / "s.sqlite"), "--seed", "2"]
    )  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "benchspace-ab" and doc["version"] == 1
    assert doc["verdict"] == "B faster" and doc["pairs"] == 5
    assert doc["ratio"] == pytest.approx(0.8, abs=0.02)
    assert doc["b"]["overrides"] == {"TEST_SIDE": "b", "FAKE_AB_FACTOR": "0.8"}
    assert len(doc["samples"]["a"]) == 5 and doc["orders"] == list(pair_orders(2, 5))
    db = sqlite3.connect(tmp_path / "s.sqlite")
    phases = [p for (p,) in db.execute("SELECT phase FROM attempts")]
    assert phases.count("ab") == 10 and phases.count("ab-warmup") == 2


def test_cli_space_mode_overrides_the_bench_env(
    fake_ab: Path,
    tmp_path: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    build = tmp_path / "build"
    (build / "benchmarks").mkdir(parents=True)
    (build / "benchmarks" / "kern").symlink_to(fake_ab)
    space = write_space(
        [{"bench": "kern", "exe": "kern", "reader": "csv", "metric": "time_ms",
          "arg_spec": ["n"], "env": {"block": "TEST_BLOCK"},
          "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}},
                    {"fixed": {"n": 256}, "tune": {"block": [16, 32]}}]}]
    )  # fmt: skip
    monkeypatch.setenv("FAKE_AB_WATCH", "TEST_BLOCK")
    monkeypatch.setenv("FAKE_AB_COSTS", "16:3.0,48:1.25")
    code = main(
        ["ab", "--space", str(space), "--bench", "kern", "--case", "1", "--build-dir", str(build),
         "--a", "TEST_BLOCK=32", "--b", "TEST_BLOCK=48", "--format", "md"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "| `TEST_BLOCK=32` | `TEST_BLOCK=48` |" in out and "**A faster**" in out
    argv = {tuple(e["argv"]) for e in _log(tmp_path)}
    assert argv == {("256",)}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--exe", "x", "--a", "V=1"], "error: --exe needs --metric (the output field to compare)"),
        (["--a", "V=1"], "error: give --exe E (with --arg ...) or --space S --bench B --case I"),
        (["--exe", "x", "--space", "s.json"], "error: --exe and --space: give one (an "
         "executable, or a space's bench)"),
        (["--exe", "./no/such", "--metric", "t"], "error: ab: executable './no/such' not found "
         "or not executable; build it or fix the path"),
        (["--exe", "no_such_bench", "--metric", "t"], "error: ab: executable 'no_such_bench' "
         "not found in build/benchmarks, build or on PATH; build it or pass --build-dir"),
    ],
)  # fmt: skip
def test_cli_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["ab", *argv])
    assert code in (1, 2)
    assert capsys.readouterr().err.strip() == message


def test_cli_exe_b_compares_two_executables(
    fake_ab: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slower = tmp_path / "bin" / "fake_ab_slow"
    slower.write_text(
        f'#!/bin/sh\nFAKE_AB_FACTOR=1.25 exec "{sys.executable}" -I -S "{FAKE_AB}" "$@"\n'
    )
    slower.chmod(0o755)
    code = main(
        ["ab", "--exe", str(fake_ab), "--exe-b", str(slower), "--reader", "csv",
         "--metric", "time_ms", "--direction", "max"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A: (inherited)  [") and out[1].endswith(f"[{slower}]")
    assert (
        out[2] == "metric time_ms (higher is better), 5 pairs interleaved in random order (seed 0)"
    )
    assert out[5] == "verdict: B faster"
    assert out[4].startswith("B/A 1.2")
    code = main(
        ["ab", "--exe", str(fake_ab), "--exe-b", str(slower), "--reader", "csv",
         "--metric", "time_ms", "--format", "md", "--rounds", "5"]
    )  # fmt: skip
    table = capsys.readouterr().out
    assert "| `(inherited)` `fake_ab` | `(inherited)` `fake_ab_slow` |" in table
    assert "**A faster**" in table
