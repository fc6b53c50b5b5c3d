"""What a ``cap`` could resolve (harness/sweep/resolution.py): the gap its last look would have
dropped, and the rounds the margin would take at the noise it measured."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence

import pytest
from sample_measurement import measured

from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task, make_config
from benchspace.harness.sweep.decide import Pool, RaceRule, final_state, fit, look
from benchspace.harness.sweep.race import decide_rows, race_tasks
from benchspace.harness.sweep.resolution import resolution
from tests.harness.sweep.test_race import _measurer


def _pair(rounds: int, sd: float, seed: int) -> tuple[list[float], list[float]]:
    """A leader and a challenger of equal log means (the challenger's noise centred on the
    leader's round by round, so the pair's mean log difference is exactly 0)."""
    rng = random.Random(seed)
    leader = [100.0 * math.exp(rng.gauss(0, sd)) for _ in range(rounds)]
    noise = [rng.gauss(0, sd) for _ in range(rounds)]
    centre = sum(noise) / rounds
    return leader, [x * math.exp(e - centre) for x, e in zip(leader, noise, strict=True)]


@pytest.mark.parametrize("rounds", [4, 5])
def test_a_gap_over_what_the_cap_resolves_is_dropped_and_one_under_is_not(rounds: int) -> None:
    """One look (a fixed sweep's): a challenger slower than the leader by 0.1 % more than the
    resolution is beaten, by 0.1 % less it is not (four and five rounds: the t-test alone; the
    signed-rank test cannot reject there)."""
    rule = RaceRule()
    leader, even = _pair(rounds, 0.05, seed=rounds)
    state = final_state([leader, even], "min", rule)
    assert state.decided == "cap" and state.alive == (0, 1)
    res = resolution([leader, even], state.alive, state.leader, "min", rule, looks=1)
    assert res is not None and 2.0 < res.resolves_pct < 30.0
    for nudge, beaten in ((1.001, True), (0.999, False)):
        slower = [x * (1 + res.resolves_pct / 100) * nudge for x in even]
        verdict = final_state([leader, slower], "min", rule)
        assert (verdict.decided == "separated") is beaten


def test_the_rounds_for_the_margin_resolve_the_margin() -> None:
    """At 4 % noise in the paired differences, 10 rounds resolve only a few per cent; at the
    rounds the figure names, a fresh sample of the same noise resolves about the margin."""
    rule = RaceRule(margin_pct=1.0)
    leader, other = _pair(10, 0.04, seed=1)
    res = resolution([leader, other], (0, 1), 0, "min", rule, looks=1)
    assert res is not None and res.resolves_pct > 2.0
    more = res.rounds_for_margin
    assert 40 < more < 400
    leader, other = _pair(more, 0.04, seed=2)
    again = resolution([leader, other], (0, 1), 0, "min", rule, looks=1)
    assert again is not None and 0.75 < again.resolves_pct < 1.3


def test_it_reads_the_gap_on_the_tests_scale() -> None:
    """``read_pct`` is the widest gap an unbeaten survivor read behind the leader on the fit
    the test used (the mean of the rounds' paired log ratios), not a ratio of medians: a
    challenger 3 % slower in every round but two that a burst slowed by 40 % reads about 3 %
    plus the bursts' share of the mean log, while its median ratio reads 3 %; one that read
    faster than the leader counts as 0."""
    leader, even = _pair(12, 0.04, seed=7)
    slower = [x * 1.03 * (1.4 if i in (3, 8) else 1.0) for i, x in enumerate(even)]
    rule = RaceRule(cap=12)
    res = resolution([leader, slower], (0, 1), 0, "min", rule, looks=1)
    assert res is not None
    expected = 100 * math.expm1(math.log(1.03) + 2 * math.log(1.4) / 12)
    assert res.read_pct == pytest.approx(expected, rel=1e-9)
    assert res.read_pct < res.resolves_pct
    faster = [x * 0.97 for x in even]
    ahead = resolution([leader, faster], (0, 1), 0, "min", rule, looks=1)
    assert ahead is not None and ahead.read_pct == 0.0


def test_the_incumbent_and_the_looks_widen_it() -> None:
    """The incumbent is dropped at the level over the family, and a race's error is split over
    its looks: either resolves less than one look at the whole level."""
    leader, other = _pair(20, 0.03, seed=5)
    rule = RaceRule(cap=20, family=14)
    one = resolution([leader, other], (0, 1), 0, "min", rule, looks=1)
    raced = resolution([leader, other], (0, 1), 0, "min", rule, looks=rule.looks)
    held = resolution([leader, other], (0, 1), 0, "min", rule, looks=1, protected=1)
    assert one is not None and raced is not None and held is not None
    assert one.resolves_pct < raced.resolves_pct and one.resolves_pct < held.resolves_pct
    assert resolution([leader, other], (0,), 0, "min", rule, looks=1) is None  # alone
    assert resolution([leader, []], (0, 1), 0, "min", rule, looks=1) is None  # no samples


def test_a_race_and_a_fixed_sweep_record_it_on_a_cap_only() -> None:
    """The race's cap and a fixed sweep's cap carry the resolution; a separation does not."""
    means = {(0, 0): 100.0, (0, 1): 100.2, (1, 0): 100.0, (1, 1): 160.0}
    measure, _ = _measurer(means, 0.03, seed=4)
    tasks = [Task(bench="b", case_index=c, phase="main", config=make_config({"k": k}))
             for c in (0, 1) for k in (0, 1)]  # fmt: skip
    _, decisions = race_tasks(tasks, measure, "min", RaceRule(cap=6))
    assert decisions[0].decided == "cap" and decisions[0].resolution is not None
    assert decisions[1].decided == "separated" and decisions[1].resolution is None
    from benchspace.harness.profiles.model import MeasurementRow

    leader, other = _pair(6, 0.03, seed=3)
    rows = [MeasurementRow(case_index=0, fixed={}, params={"k": k}, median=sorted(s)[3], n=6,
                           samples=tuple(s)) for k, s in enumerate((leader, other))]  # fmt: skip
    fixed = decide_rows(rows, "min", RaceRule(cap=6))[0]
    assert fixed.decided == "cap" and fixed.resolution is not None


def _doc(decided: dict[str, object]) -> dict[str, object]:
    return {"format": "benchspace-profile", "version": 2, "meta": {}, "results": [{
        "bench": "b", "metric": "t", "direction": "min", "arg_spec": ["k"],
        "per_case_best": [{"case_index": 0, "fixed": {}, "params": {"k": 0}, "args": [0],
                           "value": 1.0, "median": 1.0, "n": 4, "decided": decided}],
        "measurements": [{"case_index": 0, "fixed": {}, "params": {"k": 0}, "args": [0],
                          "value": 1.0, "median": 1.0}]}]}  # fmt: skip


def test_the_profile_keeps_it_and_refuses_a_bad_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from benchspace.harness.profiles.read import load_profile
    from benchspace.harness.profiles.write import profile_data

    decided = {"decided": "cap", "confidence": 0.95, "samples": 4, "rounds": 4,
               "unbeaten": [{"k": 0}, {"k": 1}], "resolves_pct": 7.25,
               "rounds_for_margin": 1900, "read_pct": 3.5}  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_doc(decided)))
    verdict = load_profile(path).results["b"].per_case_best[0].decided
    assert verdict is not None
    assert (verdict.resolves_pct, verdict.rounds_for_margin, verdict.read_pct) == (7.25, 1900, 3.5)
    again = profile_data(load_profile(path))["results"][0]["per_case_best"][0]["decided"]
    figures = ("resolves_pct", "rounds_for_margin", "read_pct")
    assert tuple(again[k] for k in figures) == (7.25, 1900, 3.5)
    older = {k: v for k, v in decided.items() if k != "read_pct"}  # written before the field
    path.write_text(json.dumps(_doc(older)))
    verdict = load_profile(path).results["b"].per_case_best[0].decided
    assert verdict is not None and verdict.read_pct is None
    for key, bad, what in (("resolves_pct", -1.0, "0 % or more"), ("read_pct", -0.5, "0 % or more"),
                           ("rounds_for_margin", 2.5, "integer")):  # fmt: skip
        path.write_text(json.dumps(_doc({**decided, key: bad})))
        with pytest.raises(ProfileError, match=rf"decided\.{key}.*{what}"):
            load_profile(path)


def test_with_a_pool_it_is_what_the_look_resolves() -> None:
    """One look with a noisier case's noise pooled in (it widens the case's own): a challenger
    slower than the leader by 0.1 % more than the resolution computed on that pool is beaten,
    by 0.1 % less it is not (five rounds: the t-test alone); on the case's own noise the figure
    is narrower."""
    rule = RaceRule(min_repeats=5, cap=5)
    leader, even = _pair(5, 0.02, seed=3)
    noise = fit(dict(enumerate(_pair(5, 0.04, seed=4))), "min")
    assert noise is not None
    pool = Pool.of([noise])
    own = resolution([leader, even], (0, 1), 0, "min", rule, looks=1)
    res = resolution([leader, even], (0, 1), 0, "min", rule, looks=1, pool=pool)
    assert res is not None and own is not None
    assert res.resolves_pct > own.resolves_pct + 0.5
    for nudge, beaten in ((1.001, True), (0.999, False)):
        slower = [x * (1 + res.resolves_pct / 100) * nudge for x in even]
        state = look([leader, slower], (0, 1), "min", rule, 5, pool=pool)
        assert (state.alive == (0,)) is beaten


def test_no_unbeaten_survivor_of_a_race_reads_wider_than_its_cap_resolves() -> None:
    """Forty seeded races of two cases (1 % and 2 % noise, a 2 % gap in each): every ``cap``
    states what its last look resolved on the fit that look judged by (pooled noise
    included), so no unbeaten survivor reads a gap wider than that; on a case's own noise
    alone, some of those figures would read narrower than a gap the look left standing."""
    means = {(c, k): 100.0 * (1.02 if k else 1.0) for c in (0, 1) for k in (0, 1)}
    noise = {0: 0.01, 1: 0.02}
    rule = RaceRule(cap=6)
    caps = narrower = 0
    for seed in range(40):
        rng = random.Random(seed)

        def measure(
            jobs: Sequence[tuple[Task, int]], rng: random.Random = rng
        ) -> list[Measurement]:
            return [
                measured(task, repeat, means[task.case_index, dict(task.config)["k"]]
                         * (1 + rng.gauss(0, noise[task.case_index])))
                for task, repeat in jobs
            ]  # fmt: skip

        tasks = [Task(bench="b", case_index=c, phase="main", config=make_config({"k": k}))
                 for c in (0, 1) for k in (0, 1)]  # fmt: skip
        made, decisions = race_tasks(tasks, measure, "min", rule)
        for c, d in decisions.items():
            if d.resolution is None:
                continue
            caps += 1
            assert d.resolution.read_pct <= d.resolution.resolves_pct
            alone = [{m.repeat: m.value for m in made if m.case_index == c
                      and m.params["k"] == k and m.value is not None} for k in (0, 1)]  # fmt: skip
            own = resolution(alone, (0, 1), 0, "min", rule, looks=rule.looks)
            narrower += own is not None and own.resolves_pct < d.resolution.read_pct
    assert caps >= 10 and narrower >= 1
