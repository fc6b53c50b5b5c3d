"""A pre_tune phase confirmed in fresh rounds (``tune --confirm K``): its winner, values, score
and table come from the re-timed picks, the selection's score kept beside."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from phase_space import SPACE, phase_bench

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task, make_config, plan_pre_tune
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.store import Store
from benchspace.harness.sweep.confirm_phase import (
    PhaseConfirm,
    describe_repeat,
    first_repeat,
    phase_picks,
)
from benchspace.harness.sweep.pre_tune import pre_tune_phases
from benchspace.harness.sweep.race import CaseDecision

# k = 1 is the true best in both phase cases; k = 2 reads 8 % slower, k = 0 and 3 further
MEANS = {
    f"{c},{k},{j}": 100.0 * (c + 1) * (1 + (0.08 if k == 2 else 0.15 * abs(k - 1))) * (1 + 0.3 * j)
    for c in range(2)
    for k in range(4)
    for j in range(2)
}


def _value(task: Task, table: dict[int, float]) -> float:
    return table[dict(task.config)["k"]] * (task.case_index + 1)


def _ms(jobs: Sequence[tuple[Task, int]], table: dict[int, float]) -> list[Measurement]:
    return [
        Measurement(bench="noisy", case_index=t.case_index, phase=t.phase, params=t.params(),
                    argv=("noisy",), env={}, exe_sha256="", status="ok", repeat=r,
                    value=_value(t, table) * (1 + 0.001 * (r % 3)))
        for t, r in jobs
    ]  # fmt: skip


def test_the_phase_winner_comes_from_the_confirmation(
    write_space: Callable[..., Path],
) -> None:
    """The selection's rounds read k = 0 fastest (luck); the confirmation re-times the top 2
    and the incumbent (k = 3) and reads k = 1 fastest: the phase resolves k = 1, its score and
    values are the confirmation's, the table keeps each re-timed combination's selection
    score, and k = 2, left out, keeps the sweep's figures, marked not confirmed."""
    bench = phase_bench(write_space)
    lucky = {0: 90.0, 1: 95.0, 2: 99.0, 3: 120.0}
    fresh = {0: 104.0, 1: 100.0, 2: 99.0, 3: 118.0}
    timed: list[tuple[int, list[object]]] = []

    def measure(
        tasks: Sequence[Task], names: Sequence[str]
    ) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
        return _ms([(t, r) for r in range(3) for t in tasks], lucky), None

    def confirm(
        tasks: Sequence[Task], index: int
    ) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
        timed.append((index, [dict(t.config)["k"] for t in tasks if t.case_index == 0]))
        return _ms([(t, first_repeat(index) + r) for r in range(4) for t in tasks], fresh), None

    picks = PhaseConfirm(k=2, incumbents={0: {"k": 3}, 1: {"k": 3}}, measure=confirm)
    resolved, (phase,), made = pre_tune_phases(bench, measure, None, lambda _: None, picks)
    assert timed == [(0, [0, 1, 3])]  # the top 2 by the selection, and the incumbent
    assert resolved == {"k": 1}  # of the re-timed, k = 1 reads fastest in the confirmation
    assert phase.values == pytest.approx((100.0, 200.0), rel=0.003) and phase.score == 1.0
    table = {row.params["k"]: row for row in phase.table or ()}
    assert table[0].confirmed is True and table[0].selection_score == 1.0
    assert table[1].selection_score == pytest.approx(95 / 90, rel=0.003)
    assert table[1].n == (4, 4) and table[0].score == pytest.approx(1.04, rel=0.003)
    assert table[3].confirmed is True and table[3].selection_score is not None
    assert table[2].confirmed is False and table[2].n == (3, 3)
    assert table[2].values == pytest.approx((99.0, 198.0), rel=0.003)
    assert len(made) == 4 * 2 * 3 + 3 * 2 * 4  # the sweep's rounds and the confirmation's


def test_picks_are_the_top_k_and_the_incumbent_in_grid_order(
    write_space: Callable[..., Path],
) -> None:
    bench = phase_bench(write_space)
    plan = plan_pre_tune(bench, 0, {})
    scores = {make_config({"k": k}): s for k, s in enumerate([1.2, 1.0, 1.05, 1.3])}
    assert phase_picks(plan, scores, 2, {}) == [make_config({"k": 1}), make_config({"k": 2})]
    mine = phase_picks(plan, scores, 1, {1: {"k": 3, "j": 0}})
    assert mine == [make_config({"k": 1}), make_config({"k": 3})]
    assert phase_picks(plan, scores, 1, {0: {"k": 9}}) == [make_config({"k": 1})]


def test_repeat_indices_in_words() -> None:
    assert describe_repeat(2) == "repeat 3"
    assert describe_repeat(1_000_004) == "confirmation round 5"
    assert describe_repeat(first_repeat(0)) == "pre_tune[0] confirmation round 1"
    assert describe_repeat(first_repeat(1) + 2) == "pre_tune[1] confirmation round 3"


def _run(tmp_path: Path, space: Path, build: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"means": MEANS, "sd": 0.01, "seed": 4}))
    out = tmp_path / "p.json"
    argv = [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(build), "--out", str(out), "--quiet", *flags]  # fmt: skip
    env = {**os.environ, "FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(tmp_path / "s")}
    return subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp_path)


def test_tune_confirms_a_pre_tune_phase_end_to_end(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """``tune --race --confirm 2``: the phase's picks are raced again under their own repeat
    indices (from 2,000,000: neither the sweep's nor the main confirmation's), the profile's
    phase says which combinations were re-timed, and a second run replays everything."""
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    space = write_space([SPACE])
    flags = ("--race", "--repeats", "6", "--confirm", "2", "--confirm-rounds", "3")
    done = _run(tmp_path, space, build, *flags)
    assert done.returncode == 0, done.stderr
    phase = json.loads((tmp_path / "p.json").read_text())["results"][0]["pre_tune"][0]
    assert phase["resolved_params"] == {"k": 1}
    assert phase["decided"]["decided"] in ("separated", "tie", "cap")
    assert phase["decided"]["rounds"] >= 3  # the confirmation's race, from its first rounds
    rows = {row["params"]["k"]: row for row in phase["table"]}
    assert rows[1]["confirmed"] is True and rows[2]["confirmed"] is True
    assert rows[0]["confirmed"] is False and rows[3]["confirmed"] is False
    assert "selection_score" in rows[1] and "selection_score" not in rows[0]
    with Store(tmp_path / "p.store.sqlite") as store:
        repeats = [m.repeat for m in store.attempts()]
    phase_rounds = [r for r in repeats if r >= first_repeat(0)]
    assert phase_rounds and all(r < first_repeat(1) for r in phase_rounds)
    assert any(1_000_000 <= r < first_repeat(0) for r in repeats)  # the main confirmation
    again = _run(tmp_path, space, build, *flags)
    assert again.returncode == 0 and "0 invocations run" in again.stdout
    # the evidence generate and sensitivity judge a pre-tuned value on: the re-timed only
    result = load_profile(tmp_path / "p.json").results["noisy"]
    assert {row.params["k"] for row in result.phase_rows} == {1, 2}


def test_the_plan_bounds_what_a_raced_confirmed_tune_runs(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """``tune --plan`` with --race and --confirm: the least and the most the sweep can take
    (12 configurations, the phase's 4 on 2 cases and 2 per case, at 2 to 6 repeats), and the
    most the confirmation can add (its cap of 9 rounds: per case the top 2; the phase's top 2
    on both cases); the tune itself runs within them."""
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    space = write_space([SPACE])
    flags = ("--race", "--repeats", "6", "--confirm", "2", "--confirm-rounds", "3")
    plan = _run(tmp_path, space, build, *flags, "--plan")
    assert plan.returncode == 0, plan.stderr
    assert "12 configurations  x 2 to 6 =    24 to 72 invocations, confirmation at most 72" in (
        plan.stdout
    )
    assert "total: 24 to 72 invocations" in plan.stdout
    assert "the confirmation at most 72 more" in plan.stdout
    done = _run(tmp_path, space, build, *flags)
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "p.store.sqlite") as store:
        repeats = [m.repeat for m in store.attempts()]
    sweep = [r for r in repeats if r < 1_000_000]
    # The plan counts the phase's runs of the main sweep's configurations twice: each is
    # measured once and reused ("duplicates inside the sweep").
    duplicates = int(re.search(r"(\d+) duplicates inside the sweep", done.stdout)[1])  # type: ignore[index]
    assert len(sweep) + duplicates >= 24 and len(sweep) <= 72
    assert 0 < len(repeats) - len(sweep) <= 72


def test_a_phase_that_fails_everywhere_under_confirm_is_a_failure_not_a_traceback(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """Every phase attempt fails (the fake's means are missing): tune lists the failures and
    exits 1 with the usual line, and the profile's phase says no combination succeeded."""
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    space = write_space([{**SPACE, "arg_spec": ["c", "k", "j", "missing"],
                          "cases": [{"fixed": {"c": c, "missing": 7}, "tune": {"j": [0, 1]}}
                                    for c in range(2)]}])  # fmt: skip
    done = _run(tmp_path, space, build, "--repeats", "2", "--confirm", "2")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "failed invocations" in done.stderr
    phase = json.loads((tmp_path / "p.json").read_text())["results"][0]["pre_tune"][0]
    assert phase["resolved_params"] is None
    assert phase["note"] == "no combination succeeded in every phase case"


def test_a_confirmed_phase_races_the_incumbent_and_beats_it(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """The checked-in header holds k = 2 (8 % slower than k = 1, at 1 % noise): with
    ``--confirm 1`` the phase's confirmation re-times the top 1 and that incumbent, its race
    beats the incumbent, and the phase resolves k = 1."""
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    header = {
        "path": "params.hh",
        "namespace": "demo",
        "env_prefix": "DEMO_TUNE_",
        "bucket_key": "c",
        "buckets": [["ALL", None]],
        "constants": [{"name": "K", "type": "int32_t", "fallback": 2,
                       "sources": [{"bench": "noisy", "param": "k"}]}],
    }  # fmt: skip
    space = write_space([SPACE], header=header)
    assert _run(tmp_path, space, build, "--repeats", "2").returncode == 0
    shipped = space.parent / "params.hh"
    subprocess.run([sys.executable, "-m", "benchspace.harness.cli", "generate", "--profile",
                    str(tmp_path / "p.json"), "--space", str(space), "--out", str(shipped)],
                   check=True, capture_output=True, cwd=tmp_path)  # fmt: skip
    text = shipped.read_text()
    assert "K_ALL = 1;" in text
    shipped.write_text(text.replace("K_ALL = 1;", "K_ALL = 2;"))  # the incumbent: k = 2
    (tmp_path / "p.json").unlink()
    done = _run(tmp_path, space, build, "--race", "--repeats", "6", "--confirm", "1", "--rerun")
    assert done.returncode == 0, done.stderr
    phase = json.loads((tmp_path / "p.json").read_text())["results"][0]["pre_tune"][0]
    confirmed = sorted(row["params"]["k"] for row in phase["table"] if row["confirmed"])
    assert confirmed == [1, 2], done.stderr
    assert phase["resolved_params"] == {"k": 1}
    assert phase["decided"]["decided"] == "separated"  # the incumbent beaten, by the race
