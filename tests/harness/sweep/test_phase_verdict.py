"""A pre_tune phase's winner says how it was decided (``decided`` on the phase): from its race,
or from one look at the rounds that gave its figures; ``review`` and ``compare`` print it, and
name the combination that read better where the race kept another (the header's value)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from phase_space import phase_bench
from sample_measurement import measured

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task, make_config, plan_pre_tune
from benchspace.harness.profiles.decided_format import decided_lines, phase_line
from benchspace.harness.profiles.model import (
    BenchResult,
    PhaseTableRow,
    PreTunePhaseResult,
    Profile,
    ProfileMeta,
    Verdict,
)
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.profiles.write import write_profile
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.incumbents import incumbent_task
from benchspace.harness.sweep.phase_verdict import phase_decisions, phase_verdict
from benchspace.harness.sweep.pre_tune import pre_tune_phases
from benchspace.harness.sweep.race import CaseDecision, Racing, race_tasks


def _measured(
    jobs: Sequence[tuple[Task, int]], means: dict[int, float], noise: float, seed: int
) -> list[Measurement]:
    """Each (task, repeat) once, its value the combination's mean times the case's scale
    times lognormal noise drawn from (seed, case, k, repeat): the same in any order."""
    out = []
    for task, repeat in jobs:
        k = dict(task.config)["k"]
        draw = random.Random(f"{seed}/{task.case_index}/{k}/{repeat}").gauss(0.0, noise)
        value = means[k] * (task.case_index + 1) * math.exp(draw)
        out.append(measured(task, repeat, value))
    return out


def test_a_fixed_sweep_phase_is_decided_by_one_look(write_space: Callable[..., Path]) -> None:
    """Without a race, the phase's rounds get one look at the end: k = 1 beats the rest by
    8 % and more at 0.5 % noise, over 6 rounds in both cases: ``separated``, 12 samples."""
    bench = phase_bench(write_space)
    means = {0: 115.0, 1: 100.0, 2: 108.0, 3: 130.0}

    def measure(
        tasks: Sequence[Task], names: Sequence[str]
    ) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
        return _measured([(t, r) for r in range(6) for t in tasks], means, 0.005, 1), None

    resolved, (phase,), _ = pre_tune_phases(bench, measure, None, lambda _: None)
    assert resolved == {"k": 1}
    assert phase.decided == Verdict(decided="separated", confidence=0.95, samples=12, rounds=6)
    line = phase_line("noisy", phase)
    assert line == "noisy pre_tune[0] k=1: separated (12 samples, 95%)"


def test_a_raced_phase_keeps_the_incumbent_it_could_not_beat(
    write_space: Callable[..., Path],
) -> None:
    """The header holds k = 3, 0.3 % slower than k = 1 at 2 % noise: the phase's cross-case
    race drops k = 0 and k = 2 (8 % and more slower) and ends at the cap with k = 1 and k = 3
    unbeaten. The phase keeps k = 3, its verdict says ``cap`` with one other unbeaten, and the
    review line names k = 1, which read better, as not separated."""
    bench = phase_bench(write_space)
    means = {0: 112.0, 1: 100.0, 2: 108.0, 3: 100.3}
    incumbents = {0: {"k": 3}, 1: {"k": 3}}
    rule = RaceRule(cap=8)
    racing = Racing(rule=rule, incumbents={"noisy": incumbents})

    def measure(
        tasks: Sequence[Task], names: Sequence[str]
    ) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
        return race_tasks(
            tasks,
            lambda jobs: _measured(jobs, means, 0.02, 1),
            "min",
            rule,
            cross_case=True,
            incumbent=incumbent_task(incumbents, names),
        )

    resolved, (phase,), _ = pre_tune_phases(bench, measure, racing, lambda _: None, rule=rule)
    assert resolved == {"k": 3}
    v = phase.decided
    assert v is not None and v.decided == "cap" and v.rounds == 8 and v.samples == 16
    assert sorted(p["k"] for p in v.unbeaten) == [1, 3]
    table = {row.params["k"]: row.score for row in phase.table or ()}
    assert table[1] is not None and phase.score is not None and table[1] < phase.score
    line = phase_line("noisy", phase)
    assert line is not None
    assert line.startswith("noisy pre_tune[0] k=3: cap (16 samples, 95%), 1 others unbeaten")
    gap = (phase.score / table[1] - 1) * 100
    assert line.endswith(f"; kept over k=1, whose medians read {gap:.2f} % better, not separated")


def test_a_winner_some_case_did_not_leave_standing_is_a_cap(
    write_space: Callable[..., Path],
) -> None:
    """Fixed repeats, two phase cases that disagree: case 0 separates k = 1, case 1 separates
    k = 2; the cross-case score picks one of them, which the other case beat: ``cap``, with
    no combination named unbeaten (the scores, not a verdict, chose it)."""
    bench = phase_bench(write_space)
    plan = plan_pre_tune(bench, 0, {})

    def value(task: Task, repeat: int) -> float:
        k = dict(task.config)["k"]
        best = 1 if task.case_index == 0 else 2
        return (100.0 if k == best else 120.0 + k) * (1 + 0.001 * (repeat % 2))

    ms = [measured(t, r, value(t, r)) for r in range(5) for _, t in plan.tasks]
    decisions = phase_decisions(plan, ms, "min", RaceRule(cap=5))
    assert {c: d.decided for c, d in decisions.items()} == {0: "separated", 1: "separated"}
    verdict = phase_verdict(plan, decisions, make_config({"k": 1}), {0: 5, 1: 5})
    assert verdict == Verdict(decided="cap", confidence=0.95, samples=10, rounds=5)
    assert phase_verdict(plan, {}, make_config({"k": 1}), {}) is None


def test_the_phase_verdict_round_trips_and_review_prints_it(tmp_path: Path) -> None:
    """Written into the profile's phase and read back unchanged; ``decided_lines`` (what
    ``review`` and ``compare`` print) carries the phase's line beside the bench's."""
    verdict = Verdict(decided="tie", confidence=0.95, samples=20, rounds=10,
                      tied=({"k": 1}, {"k": 2}))  # fmt: skip
    phase = PreTunePhaseResult(
        phase_index=0, params={"k": (1, 2)}, cases=(0,), resolved_params={"k": 1},
        values=(100.0,), score=1.0, decided=verdict,
        table=(PhaseTableRow(params={"k": 1}, values=(100.0,), n=(10,), score=1.0),
               PhaseTableRow(params={"k": 2}, values=(100.2,), n=(10,), score=1.002)),
    )  # fmt: skip
    result = BenchResult(bench="noisy", pre_tune=(phase,))
    profile = Profile(meta=ProfileMeta(), results={"noisy": result})
    path = tmp_path / "p.json"
    write_profile(path, profile)
    back = load_profile(path).results["noisy"].pre_tune[0]
    assert back.decided == verdict
    assert decided_lines(load_profile(path), label="new ") == [
        "new noisy pre_tune[0] k=1: tie (20 samples, 95%), tied with 1 others"
    ]
