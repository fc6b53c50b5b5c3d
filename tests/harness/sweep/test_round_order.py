"""Each round of a race or a confirmation runs in an order of its own (round_order.py)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from sample_measurement import measured

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import MainPlan, Task, make_config, plan_main
from benchspace.harness.spaces.load import load_space
from benchspace.harness.sweep import confirm as confirm_module
from benchspace.harness.sweep import race as race_module
from benchspace.harness.sweep import round_order as round_order_module
from benchspace.harness.sweep.confirm import confirm_tasks
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.race import race_tasks
from benchspace.harness.sweep.round_order import round_order


def test_each_round_draws_a_permutation_of_its_own_and_reruns_draw_alike() -> None:
    jobs = list("abcd")
    orders = [round_order(jobs, r) for r in range(400)]
    assert all(sorted(o) == jobs for o in orders)
    assert orders == [round_order(jobs, r) for r in range(400)]  # a rerun draws the same
    assert len({tuple(o) for o in orders}) == 24  # every order of four comes up
    for start in range(0, 400, 4):  # each block of four rounds: every job once at every place
        block = orders[start : start + 4]
        assert all({o[place] for o in block} == set(jobs) for place in range(4))
    pairs = [round_order(["a", "b"], r) for r in range(10)]
    assert [p[0] for p in pairs].count("a") == 5  # two jobs: each leads every other round
    assert round_order([], 3) == [] and round_order(["x"], 3) == ["x"]


def _task(k: int) -> Task:
    return Task(bench="b", case_index=0, phase="main", config=make_config({"k": k}))


def _first_slow(means: dict[int, float], penalty: float, seed: int = 0):  # type: ignore[no-untyped-def]
    """A machine where the first process of a round reads `penalty` slower (what a fixed order
    would hand to the same configuration every round), with 0.3 % noise."""
    rng = random.Random(seed)
    firsts: list[int] = []

    def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        out = []
        for place, (task, repeat) in enumerate(jobs):
            k = int(dict(task.config)["k"])
            if place == 0:
                firsts.append(k)
            value = means[k] * (1 + (penalty if place == 0 else 0.0)) * (1 + rng.gauss(0, 0.003))
            out.append(measured(task, repeat, value))
        return out

    return measure, firsts


def _race(penalty: float) -> tuple[str, object, list[int]]:
    measure, firsts = _first_slow({0: 100.0, 1: 100.0}, penalty)
    rule = RaceRule(min_repeats=3, cap=12, margin_pct=0.5)
    _, decisions = race_tasks([_task(0), _task(1)], measure, "min", rule)
    d = decisions[0]
    return d.decided, d.winner, firsts


def test_a_place_that_slows_its_process_is_not_pinned_on_one_configuration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two equal configurations on a machine whose first process of a round reads 3 % slow.
    In the order the jobs are listed, the first configuration takes the penalty in every round
    and the race separates the other at 95 %: a false winner. Drawn per round, both take it."""
    decided, _, firsts = _race(0.03)
    assert set(firsts) == {0, 1}
    assert decided != "separated"
    monkeypatch.setattr(race_module, "round_order", lambda jobs, _r: list(jobs))
    decided, winner, firsts = _race(0.03)
    assert set(firsts) == {0} and decided == "separated" and winner == make_config({"k": 1})


def _plan(tmp_path_factory: pytest.TempPathFactory) -> MainPlan:
    space = tmp_path_factory.mktemp("space") / "space.json"
    bench = {
        "bench": "b",
        "exe": "x",
        "arg_spec": ["n", "k"],
        "metric": "t",
        "direction": "min",
        "cases": [{"fixed": {"n": 1}, "tune": {"k": [1, 2, 3, 4]}}],
    }
    space.write_text(json.dumps({"spaces": [bench]}))
    return plan_main(load_space(space).benches[0], {})


def test_a_confirmation_does_not_run_its_best_pick_first_every_round(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = _plan(tmp_path_factory)
    picks = [(0, make_config({"k": k})) for k in (3, 1, 4)]  # best first, as chosen() lists
    rounds = 30
    jobs = confirm_tasks(plan, picks, rounds)
    assert len(jobs) == 3 * rounds
    by_round = [jobs[3 * r : 3 * r + 3] for r in range(rounds)]
    for r, round_jobs in enumerate(by_round):
        assert {dict(t.config)["k"] for t, _ in round_jobs} == {1, 3, 4}
        assert {repeat for _, repeat in round_jobs} == {confirm_module.CONFIRM_REPEAT + r}
    leads = Counter(dict(rj[0][0].config)["k"] for rj in by_round)
    assert set(leads) == {1, 3, 4} and max(leads.values()) <= 20, leads
    monkeypatch.setattr(round_order_module, "round_order", lambda jobs, _r: list(jobs))
    fixed = confirm_tasks(plan, picks, rounds)
    assert {dict(fixed[3 * r][0].config)["k"] for r in range(rounds)} == {3}


def test_a_phase_confirmation_at_fixed_rounds_varies_its_order_too() -> None:
    from benchspace.harness.sweep.confirm_phase import first_repeat, measure_phase_picks

    tasks = [_task(k) for k in range(3)]
    asked: list[tuple[Task, int]] = []

    def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        asked.extend(jobs)
        return []

    measure_phase_picks(tasks, 0, measure, rounds=12, rule=None, direction="min")
    by_round = [asked[3 * r : 3 * r + 3] for r in range(12)]
    assert all(
        {repeat for _, repeat in rj} == {first_repeat(0) + r} for r, rj in enumerate(by_round)
    )
    assert Counter(int(dict(rj[0][0].config)["k"]) for rj in by_round) == {0: 4, 1: 4, 2: 4}
