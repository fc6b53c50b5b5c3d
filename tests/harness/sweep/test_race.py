"""Racing: the statistics of a look, the race driver, and tune --race / --stop / --confirm."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from sample_measurement import measured

from benchspace.harness.errors import UsageError
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task, make_config
from benchspace.harness.sweep.decide import RaceRule, fit, look, median_of, welch_slower_p
from benchspace.harness.sweep.race import parse_stop, race_tasks
from benchspace.harness.sweep.stop_rule import rse

ROOT = Path(__file__).resolve().parents[3]


def _task(case: int, k: int) -> Task:
    return Task(bench="b", case_index=case, phase="main", config=make_config({"k": k}))


def _measurer(means: dict[tuple[int, int], float], sd: float, seed: int = 0):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    calls: list[tuple[Task, int]] = []

    def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        out = []
        calls.extend(jobs)
        # The noise is drawn in the configurations' own order, whatever order the round ran
        # them in (round_order.py): this machine's noise has no place effect.
        for task, repeat in sorted(jobs, key=lambda j: (j[0].case_index, dict(j[0].config)["k"])):
            value = means[task.case_index, dict(task.config)["k"]] * (1 + rng.gauss(0, sd))
            out.append(measured(task, repeat, value))
        return out

    return measure, calls


def test_welch_one_sided() -> None:
    slow, fast = [110.0, 111.0, 109.5], [100.0, 100.5, 99.8]
    assert welch_slower_p(slow, fast, "min") < 1e-3
    assert welch_slower_p(fast, slow, "min") > 0.99
    assert welch_slower_p(fast, slow, "max") < 1e-3  # a rate: higher is better


def test_look_separates_drops_and_ties() -> None:
    rule = RaceRule(min_repeats=3, cap=10, margin_pct=1.0)
    samples = [[100.0, 100.4, 99.7], [130.0, 131.0, 129.0], [150.0, 149.0, 151.5]]
    state = look(samples, range(3), "min", rule, 3)
    assert state.decided == "separated" and state.alive == (0,) and state.leader == 0
    # Within 0.3 % of each other in every round, whose load moved both by 3 %: the rounds are
    # blocks, so the equivalence within 1 % is shown (two one-sided tests).
    tie = [[100.0, 103.0, 97.0, 101.0], [100.3, 102.8, 97.2, 101.1]]
    assert look(tie, range(2), "min", rule, 3).decided == "tie"
    # The same medians without the shared rounds: nothing is shown, no tie is claimed.
    noisy = [[100.0, 103.0, 97.0], [100.3, 97.5, 103.2]]
    assert look(noisy, range(2), "min", rule, 3).decided is None
    open_ = [[100.0, 104.0, 96.0], [102.0, 98.0, 106.0]]  # 2 % apart, too noisy to tell
    assert look(open_, range(2), "min", rule, 3).decided is None
    assert look(open_, range(2), "min", rule, 10).decided == "cap"
    assert look(samples, range(3), "min", rule, 2).decided is None  # under min_repeats


def test_aa_race_loses_a_best_within_the_error_rate() -> None:
    """Ten equal configurations raced 400 times: each is a best; configuration 0 must survive
    in at least 95 % of the races (the error the race controls)."""
    rule = RaceRule(min_repeats=3, cap=10, margin_pct=0.0)
    rng = random.Random(1)
    lost = 0
    for _ in range(400):
        samples: list[list[float]] = [[] for _ in range(10)]
        alive: tuple[int, ...] = tuple(range(10))
        for rounds in range(1, 11):
            for i in alive:
                samples[i].append(100 * (1 + rng.gauss(0, 0.02)))
            state = look(samples, alive, "min", rule, rounds)
            alive = state.alive
            if 0 not in alive:
                lost += 1
                break
            if state.decided:
                break
    assert lost / 400 <= 1 - rule.confidence


def test_rounds_are_blocks() -> None:
    """A round's load moves every configuration measured in it; the blocked fit takes it out
    (a 3 % loss under 10 % load swings is separated at the first look), the unblocked one
    cannot tell."""
    rng = random.Random(3)
    load = [1 + rng.gauss(0, 0.1) for _ in range(3)]
    fast = {r: 100 * load[r] * (1 + rng.gauss(0, 0.003)) for r in range(3)}
    slow = {r: 103 * load[r] * (1 + rng.gauss(0, 0.003)) for r in range(3)}
    rule = RaceRule(min_repeats=3, cap=10)
    assert look([fast, slow], range(2), "min", rule, 3).decided == "separated"
    assert look([fast, slow], range(2), "min", rule, 3, blocked=False).decided is None
    blocked = fit({0: fast, 1: slow}, "min")
    assert blocked is not None and blocked.blocked and blocked.df == 2
    # A failed round leaves the rounds both have; lists of unequal length are not blocked.
    del slow[1]
    one = fit({0: fast, 1: slow}, "min")
    assert one is not None and one.n == {0: 2, 1: 2} and one.df == 1
    unequal = fit({0: [1.0, 1.1, 1.2], 1: [1.0, 1.1]}, "min")
    assert unequal is not None and not unequal.blocked and unequal.df == 3


@pytest.mark.parametrize(
    ("load_sd", "noisy", "bound"),
    [(0.0, 1.0, 0.05), (0.1, 1.0, 0.05), (0.0, 3.0, 0.10)],
    ids=["plain", "round-load", "best-noisier"],
)
def test_aa_race_with_load_and_unequal_noise(load_sd: float, noisy: float, bound: float) -> None:
    """Ten equal configurations, 300 races: with a shared load per round (10 %), configuration
    0 survives in >= 95 %. Pooling assumes the configurations of a case share their noise;
    with configuration 0 three times noisier than the rest that is false, and the loss grows
    (19 of these 300 races, docs/formats.md): this bounds how far."""
    rule = RaceRule(min_repeats=2, cap=10, margin_pct=0.0)
    rng = random.Random(5)
    lost = 0
    for _ in range(300):
        samples: list[dict[int, float]] = [{} for _ in range(10)]
        alive: tuple[int, ...] = tuple(range(10))
        for rounds in range(1, 11):
            load = 1 + rng.gauss(0, load_sd)
            for i in alive:
                sd = 0.02 * (noisy if i == 0 else 1.0)
                samples[i][rounds] = 100 * load * math.exp(rng.gauss(0, sd))
            state = look(samples, alive, "min", rule, rounds)
            alive = state.alive
            if 0 not in alive:
                lost += 1
                break
            if state.decided:
                break
    assert lost / 300 <= bound


def test_cross_case_race_drops_a_configuration_from_every_case() -> None:
    """A pre_tune phase's winner covers both its cases: k = 2 is far best on case 0 but 25 %
    slower on case 1, so it is out of both at the first look (per-case racing would keep
    measuring it on case 0, where it leads)."""
    means = {(0, 0): 100.0, (0, 1): 100.3, (0, 2): 80.0, (1, 0): 100.0, (1, 1): 100.4}
    means[1, 2] = 125.0
    tasks = [
        Task(bench="b", case_index=c, phase="pre_tune[0]", config=make_config({"k": k}))
        for c in range(2)
        for k in range(3)
    ]
    rule = RaceRule(min_repeats=3, cap=10)
    counts = {}
    for cross in (True, False):
        measure, calls = _measurer(means, 0.01, seed=2)
        _, decisions = race_tasks(tasks, measure, "min", rule, cross_case=cross)
        counts[cross] = {
            (c, k): sum(1 for t, _ in calls if (t.case_index, dict(t.config)["k"]) == (c, k))
            for c in range(2)
            for k in range(3)
        }
        if cross:
            assert {d.winner for d in decisions.values()} <= {
                make_config({"k": 0}),
                make_config({"k": 1}),
            }
    assert counts[True][0, 2] == counts[True][1, 2] == 3
    assert counts[False][1, 2] == 3 and counts[False][0, 2] == 3  # per case, it wins case 0
    # the default: a pre_tune phase's tasks race across cases
    measure, calls = _measurer(means, 0.01, seed=2)
    race_tasks(tasks, measure, "min", rule)
    assert sum(1 for t, _ in calls if t.case_index == 0 and dict(t.config)["k"] == 2) == 3


def test_cross_case_race_keeps_the_best_scored() -> None:
    """Each configuration is beaten on one case (k = 0 on case 1, k = 1 on case 0): dropping
    both would leave none; the best-scored one (k = 0: 5 % off on case 1 against k = 1's 30 %
    off on case 0) stays and wins."""
    means = {(0, 0): 100.0, (0, 1): 130.0, (1, 0): 105.0, (1, 1): 100.0}
    tasks = [
        Task(bench="b", case_index=c, phase="pre_tune[0]", config=make_config({"k": k}))
        for c in range(2)
        for k in range(2)
    ]
    measure, _ = _measurer(means, 0.003, seed=4)
    _, decisions = race_tasks(tasks, measure, "min", RaceRule(min_repeats=3, cap=10))
    assert {d.winner for d in decisions.values()} == {make_config({"k": 0})}
    assert {d.decided for d in decisions.values()} == {"separated"}


def test_race_spends_repeats_on_the_close_ones() -> None:
    means = {(c, k): 100.0 * (1 + 0.3 * k) for c in range(2) for k in range(6)}
    means[0, 1] = 100.5  # a near-tie in case 0
    measure, calls = _measurer(means, 0.01)
    tasks = [_task(c, k) for c in range(2) for k in range(6)]
    made, decisions = race_tasks(tasks, measure, "min", RaceRule(min_repeats=3, cap=10))
    assert len(made) == len(calls) < 0.5 * 10 * len(tasks)
    assert decisions[1].decided == "separated" and decisions[1].winner == make_config({"k": 0})
    assert decisions[0].winner in (make_config({"k": 0}), make_config({"k": 1}))
    repeats = [r for t, r in calls]
    assert sorted(set(repeats)) == list(range(max(repeats) + 1))  # rounds 0, 1, 2, ...
    per_config = {(t.case_index, t.config): 0 for t, _ in calls}
    for t, _ in calls:
        per_config[t.case_index, t.config] += 1
    assert per_config[1, make_config({"k": 5})] == 3  # beaten at the first look


def test_stop_rse_repeats_until_the_target() -> None:
    means = {(0, k): 100.0 for k in range(3)}
    measure, _ = _measurer(means, 0.02)
    rule = RaceRule(min_repeats=3, cap=40, stop_rse=0.005)
    made, _ = race_tasks([_task(0, k) for k in range(3)], measure, "min", rule, drop=False)
    by_config: dict[int, list[float]] = {}
    for m in made:
        assert m.value is not None
        by_config.setdefault(int(m.params["k"]), []).append(m.value)  # type: ignore[arg-type]
    for values in by_config.values():
        assert rse(values) < 0.005 or len(values) == 40
        # it stopped at the first repeat under the target (min_repeats first)
        assert len(values) == rule.min_repeats or rse(values[:-1]) >= 0.005


def test_parse_stop() -> None:
    assert parse_stop("rse:0.5%") == pytest.approx(0.005)
    assert parse_stop("rse:0.01") == pytest.approx(0.01)
    for bad in ("0.5%", "rse:", "rse:150%", "time:3"):
        with pytest.raises(UsageError, match="--stop"):
            parse_stop(bad)


def test_profile_round_trip_keeps_decided(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from benchspace.harness.profiles.read import load_profile
    from benchspace.harness.profiles.write import profile_data

    doc = {
        "format": "benchspace-profile", "version": 2, "meta": {},
        "results": [{
            "bench": "b", "metric": "t", "direction": "min", "arg_spec": ["k"],
            "per_case_best": [{
                "case_index": 0, "fixed": {}, "params": {"k": 1}, "args": [1], "value": 2.0,
                "median": 2.0, "samples": [2.0, 2.1], "n": 2, "stdev": 0.07,
                "decided": {"decided": "tie", "confidence": 0.95, "samples": 2, "rounds": 2,
                            "tied": [{"k": 1}, {"k": 2}]},
                "selection": {"median": 1.9, "n": 3, "stdev": 0.1}, "confirmed": True,
            }],
            "measurements": [
                {"case_index": 0, "fixed": {}, "params": {"k": 1}, "args": [1], "value": 2.0,
                 "median": 2.0, "confirmed": True},
                {"case_index": 0, "fixed": {}, "params": {"k": 3}, "args": [3], "value": 1.5,
                 "median": 1.5, "confirmed": False},
            ],
        }],
    }  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    profile = load_profile(path)
    result = profile.results["b"]
    best = result.per_case_best[0]
    assert best.decided is not None and best.decided.decided == "tie"
    assert best.decided.tied == ({"k": 1}, {"k": 2})
    assert best.selection is not None and best.selection.median == 1.9
    assert [r.params["k"] for r in result.rows] == [1]  # the unconfirmed row is no evidence
    again = profile_data(profile)["results"][0]
    assert again["per_case_best"][0]["decided"]["decided"] == "tie"
    assert [m["confirmed"] for m in again["measurements"]] == [True, False]
    doc["results"][0]["per_case_best"][0]["decided"]["decided"] = "won"  # type: ignore[index]
    path.write_text(json.dumps(doc))
    from benchspace.harness.errors import ProfileError

    with pytest.raises(ProfileError, match="decided"):
        load_profile(path)


def test_noise_pooled_over_the_bench_cases() -> None:
    """Two configurations 20 % apart in each of four cases, 2 % noise: alone, a case's first
    look has one degree of freedom (t at 1.25 % over 25) and needs a second look; pooled over
    the bench's open cases it has four, and every case is separated at round 2."""
    means = {(c, k): 100.0 * (c + 1) * (1.2 if k else 1.0) for c in range(4) for k in range(2)}
    measure, calls = _measurer(means, 0.02, seed=6)
    tasks = [_task(c, k) for c in range(4) for k in range(2)]
    _, decisions = race_tasks(tasks, measure, "min", RaceRule(min_repeats=2, cap=10))
    assert {(d.decided, d.rounds, d.winner) for d in decisions.values()} == {
        ("separated", 2, make_config({"k": 0}))
    }
    assert len(calls) == 16


@pytest.mark.parametrize(("sds", "bound"), [((0.02,) * 4, 0.05), ((0.06, 0.02, 0.02, 0.02), 0.08)],
                         ids=["equal", "one-case-noisier"])  # fmt: skip
def test_aa_race_pooled_over_cases(sds: tuple[float, ...], bound: float) -> None:
    """Four cases of ten equal configurations raced 150 times: configuration 0 is dropped in
    at most 5 % of the races in each case. Pooling assumes the bench's cases share their
    relative noise; with one case three times noisier than the three it is pooled with, the
    case's own variance (used when larger than the pool's) holds its loss near the 5 % (600
    races: 4.3 %, docs/formats.md; plain pooling lost it in 16.5 %): this bounds how far."""
    rng = random.Random(8)
    rule = RaceRule(min_repeats=2, cap=10, margin_pct=0.0)
    tasks = [_task(c, k) for c in range(len(sds)) for k in range(10)]
    lost = [0] * len(sds)
    for _ in range(150):

        def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
            return [
                Measurement(bench="b", case_index=t.case_index, phase="main", params=t.params(),
                            argv=("x",), env={}, exe_sha256="", status="ok", repeat=r,
                            value=100 * math.exp(rng.gauss(0, sds[t.case_index])))
                for t, r in jobs
            ]  # fmt: skip

        made, _ = race_tasks(tasks, measure, "min", rule)
        counts: dict[tuple[int, object], int] = {}
        for m in made:
            key = (m.case_index, m.params["k"])
            counts[key] = counts.get(key, 0) + 1
        for c in range(len(sds)):
            if counts[c, 0] < max(counts[c, k] for k in range(10)):
                lost[c] += 1
    assert max(lost) / 150 <= bound


def test_cap_records_the_unbeaten(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A case ended at the cap records the configurations left standing, and the profile
    keeps them (what generate settles a bucket on)."""
    from benchspace.harness.profiles.read import load_profile
    from benchspace.harness.profiles.write import profile_data

    means = {(0, 0): 100.0, (0, 1): 100.2, (0, 2): 150.0}
    measure, _ = _measurer(means, 0.02, seed=9)
    _, decisions = race_tasks([_task(0, k) for k in range(3)], measure, "min",
                              RaceRule(min_repeats=2, cap=4))  # fmt: skip
    d = decisions[0]
    assert d.decided == "cap" and set(d.unbeaten) == {make_config({"k": 0}), make_config({"k": 1})}
    doc = {"format": "benchspace-profile", "version": 2, "meta": {}, "results": [{
        "bench": "b", "metric": "t", "direction": "min", "arg_spec": ["k"],
        "per_case_best": [{"case_index": 0, "fixed": {}, "params": {"k": 0}, "args": [0],
                           "value": 1.0, "median": 1.0, "n": 4, "decided": {
                               "decided": "cap", "confidence": 0.95, "samples": 4, "rounds": 4,
                               "unbeaten": [{"k": 0}, {"k": 1}]}}],
        "measurements": [{"case_index": 0, "fixed": {}, "params": {"k": 0}, "args": [0],
                          "value": 1.0, "median": 1.0}]}]}  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    best = load_profile(path).results["b"].per_case_best[0]
    assert best.decided is not None and best.decided.unbeaten == ({"k": 0}, {"k": 1})
    again = profile_data(load_profile(path))["results"][0]["per_case_best"][0]["decided"]
    assert again["unbeaten"] == [{"k": 0}, {"k": 1}]


def test_no_unbeaten_without_a_noise_estimate() -> None:
    """One sample per configuration: nothing can be judged, so a cap names no configuration
    unbeaten (generate then lets the best score win, as without a spread)."""
    from benchspace.harness.profiles.model import MeasurementRow
    from benchspace.harness.sweep.race import decide_rows

    rows = [MeasurementRow(case_index=0, fixed={}, params={"k": k}, median=1.0 + k, n=1,
                           samples=(1.0 + k,)) for k in range(3)]  # fmt: skip
    d = decide_rows(rows, "min", RaceRule(cap=1))[0]
    assert d.decided == "cap" and d.unbeaten == ()
    two = [replace(r, samples=(r.median, r.median * 1.001), n=2) for r in rows]  # type: ignore[operator]
    assert decide_rows(two, "min", RaceRule(cap=2))[0].decided == "separated"


def test_a_race_the_cap_cannot_decide_stops_for_futility() -> None:
    """Two configurations 0.5 % apart at 3 % noise: ten rounds could neither separate them nor
    show them within 1 %, so the case ends ``cap`` at a look before the cap (here the third,
    round 8, where they read within 1 % of each other), both unbeaten."""
    means = {(0, 0): 100.0, (0, 1): 100.5}
    measure, calls = _measurer(means, 0.03, seed=3)
    _, decisions = race_tasks([_task(0, 0), _task(0, 1)], measure, "min", RaceRule(cap=10))
    d = decisions[0]
    assert (d.decided, d.rounds, len(d.unbeaten)) == ("cap", 8, 2)
    assert len(calls) == 16


def test_a_gap_read_beyond_the_margin_is_not_stopped_for_futility() -> None:
    """Two configurations 4 % apart by their four rounds' means, at 4-6 % noise: the cap could
    not decide them either, but a leader chosen on four samples among configurations read
    farther apart than the margin may be the slower (a demo case, lu n = 384, kept a block
    4.1 % slower so), so the race goes on; 0.4 % apart at the same noise, it stops."""
    rule = RaceRule(cap=10)
    fast, slow = [100.0, 108.0, 96.0, 104.0], [104.0, 104.0, 108.0, 101.0]
    assert look([fast, slow], range(2), "min", rule, 4).decided is None
    near = [x * 1.004 for x in fast]
    state = look([fast, near[1:] + near[:1]], range(2), "min", rule, 4)
    assert state.decided == "cap" and len(state.alive) == 2


def test_a_gap_the_medians_read_beyond_the_margin_is_not_stopped_for_futility() -> None:
    """Recorded data (evaluation/data/demo_retunes/amd_2core_cap90/retune0.json.gz): matvec at
    n = 512, lanes 8 and the incumbent 16 confirmed to a cap of 90. At round 40 their log means
    read 0.86 % apart, within the 1 % margin, but their medians 1.93 %, and the medians pick
    the leader: that retune stopped the case for futility and kept 16, where the four other
    retunes separated 8 (16 read 4-8 % slower). The case now races on."""
    import gzip

    path = ROOT / "evaluation/data/demo_retunes/amd_2core_cap90/retune0.json.gz"
    doc = json.loads(gzip.decompress(path.read_bytes()))
    result = next(r for r in doc["results"] if r["bench"] == "matvec")
    samples = {
        m["params"]["lanes"]: m["samples"][:40]
        for m in result["measurements"]
        if m["case_index"] == 3 and m.get("confirmed") and len(m["samples"]) == 40
    }
    assert sorted(samples) == [8, 16]
    rule = RaceRule(min_repeats=10, cap=90, family=14)
    fitted = fit({0: samples[8], 1: samples[16]}, "min")
    assert fitted is not None and abs(fitted.means[1] - fitted.means[0]) < math.log1p(0.01)
    state = look([samples[8], samples[16]], range(2), "min", rule, 40, protected=1)
    assert state.decided is None and state.alive == (0, 1)
    # the same samples with 16's median moved to 0.2 % over 8's: both gaps within the margin,
    # and the case stops for futility as it did
    scale = 1.002 * median_of(samples[8]) / median_of(samples[16])
    near = [x * scale for x in samples[16]]
    stopped = look([samples[8], near], range(2), "min", rule, 40, protected=1)
    assert stopped.decided == "cap" and stopped.alive == (0, 1)


def test_bursts_of_load_do_not_blind_the_drops() -> None:
    """Recorded data (evaluation/data/demo_retunes/futility_mad/retune0.json.gz): matmul at
    n = 256, three blocks confirmed over 30 rounds, some samples 15-30 % slow. Block 64 reads
    4 % under 256; the t-test alone (p 0.03, over the look's 0.0083) left it unbeaten, and a
    later retune picked it.
    The signed-rank test of the paired rounds drops it, and the case is separated."""
    import gzip

    from benchspace.harness.sweep.decide import slower_p

    path = ROOT / "evaluation/data/demo_retunes/futility_mad/retune0.json.gz"
    doc = json.loads(gzip.decompress(path.read_bytes()))
    result = next(r for r in doc["results"] if r["bench"] == "matmul")
    samples = {
        m["params"]["block"]: m["samples"]
        for m in result["measurements"]
        if m["case_index"] == 2 and m.get("confirmed") and len(m["samples"]) == 30
    }
    blocks = sorted(samples)
    assert blocks == [64, 128, 256]
    rule = RaceRule(min_repeats=10, cap=30)
    fitted = fit({b: samples[b] for b in blocks}, "max")
    assert fitted is not None and slower_p(fitted, 64, 256) > rule.look_alpha / 2
    state = look([samples[b] for b in blocks], range(3), "max", rule, 30)
    assert state.decided == "separated" and [blocks[i] for i in state.alive] == [256]


def test_aa_race_with_bursts_of_load_loses_a_best_within_the_error_rate() -> None:
    """Four equal configurations raced to 30 rounds, 1 % noise and one sample in ten slowed by
    15-45 % (a burst of load on that configuration alone): configuration 0 survives in >= 95 %
    of 300 races with both drop tests."""
    rule = RaceRule(min_repeats=10, cap=30, margin_pct=0.0)
    rng = random.Random(11)
    lost = 0
    for _ in range(300):
        samples: list[list[float]] = [[] for _ in range(4)]
        alive: tuple[int, ...] = tuple(range(4))
        for rounds in range(1, 31):
            for i in alive:
                burst = 1 + rng.uniform(0.15, 0.45) if rng.random() < 0.1 else 1.0
                samples[i].append(100 * burst * math.exp(rng.gauss(0, 0.01)))
            state = look(samples, alive, "min", rule, rounds)
            alive = state.alive
            if 0 not in alive:
                lost += 1
                break
            if state.decided:
                break
    assert lost / 300 <= 1 - rule.confidence
