"""Racing: repeats go only to configurations not yet beaten (``tune --race``), or only to
configurations whose centre is not yet known well enough (``--stop rse:X``).

Rounds are interleaved across every configuration of every case still racing, each round in
an order drawn afresh (harness/sweep/round_order.py), and each round goes through the sweep's
store like any measurement: every sample is kept, and a resumed race replays the stored
rounds (the same samples give the same drops), so it continues where it stopped and a decided
case is not raced again. The statistics are harness/sweep/decide.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from benchspace.harness.errors import UsageError
from benchspace.harness.measurement import Measurement, Value
from benchspace.harness.plan import Config, Task, make_config
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, TopEntry, Verdict
from benchspace.harness.profiles.row_table import RowTable
from benchspace.harness.profiles.scoring import score_configs, winner
from benchspace.harness.sweep.decide import (
    CaseState,
    Decided,
    Pool,
    RaceRule,
    Samples,
    final_state,
    fit,
    look,
    median_of,
)
from benchspace.harness.sweep.resolution import Resolution, resolution
from benchspace.harness.sweep.round_order import round_order
from benchspace.harness.sweep.stop_rule import wants_more

MeasureRound = Callable[[Sequence[tuple[Task, int]]], list[Measurement]]
"""Measure (task, repeat index) pairs; returns their attempts."""


@dataclass(frozen=True, kw_only=True)
class Racing:
    """``tune --race`` / ``--stop``: the rule, and whether beaten configurations drop out."""

    rule: RaceRule
    drop: bool = True
    incumbents: Mapping[str, Mapping[int, Mapping[str, Value]]] = field(default_factory=dict)
    """Per bench, per case: the incumbent's parameter values (from the space's header); a
    pre_tune phase keeps the incumbent's combination when its race did not beat it."""


@dataclass(frozen=True, kw_only=True)
class CaseDecision:
    """How one case's race ended."""

    decided: Decided
    confidence: float
    samples: int
    rounds: int
    winner: Config | None
    tied: tuple[Config, ...] = ()
    unbeaten: tuple[Config, ...] = ()
    """With ``cap``: the configurations still racing when it ended (none beaten them)."""
    resolution: Resolution | None = None
    """With ``unbeaten``: what the last look could have resolved at the noise it measured."""


def parse_stop(text: str) -> float:
    """``rse:0.5%`` (or ``rse:0.005``) -> 0.005; a usage error for anything else."""
    kind, _, target = text.partition(":")
    try:
        if kind.strip() != "rse":
            raise ValueError(kind)
        value = target.strip()
        number = float(value.removesuffix("%")) / (100.0 if value.endswith("%") else 1.0)
    except ValueError:
        raise UsageError(
            f"--stop: {text!r} is not a stopping rule; write rse:0.5% (the relative standard "
            "error of each configuration's centre to reach)"
        ) from None
    if not 0.0 < number < 1.0:
        raise UsageError(f"--stop: {text!r}: the target must lie between 0 and 100 %")
    return number


def race_tasks(
    tasks: Sequence[Task],
    measure: MeasureRound,
    direction: str,
    rule: RaceRule,
    *,
    drop: bool = True,
    cross_case: bool | None = None,
    incumbent: Callable[[Task], bool] | None = None,
) -> tuple[list[Measurement], dict[int, CaseDecision]]:
    """Race the tasks case by case; every attempt made, and each case's decision.

    `incumbent` says which task is a case's incumbent (the header's value): it is dropped
    only at the level over ``rule.family`` (harness/sweep/decide.py, :func:`look`).

    Without `drop` (``--stop`` alone) nothing is dropped: each configuration is repeated until
    its relative standard error is under the rule's target, or the cap.

    With `cross_case` (the default for pre_tune phases, whose winner is one configuration
    scored across the phase's cases), a configuration beaten on any case it must cover is out
    of every case; the best-scored survivor is never dropped that way (so one always
    remains), and the race ends when one configuration is left, when every case ties, or at
    the cap."""
    if cross_case is None:
        cross_case = bool(tasks) and all(t.phase != "main" for t in tasks)
    by_case: dict[int, list[Task]] = {}
    for task in tasks:
        by_case.setdefault(task.case_index, []).append(task)
    index = {(t.case_index, t.config): i for c in by_case.values() for i, t in enumerate(c)}
    samples: dict[int, list[dict[int, float]]] = {c: [{} for _ in ts] for c, ts in by_case.items()}
    attempts = {c: [0] * len(ts) for c, ts in by_case.items()}
    alive = {c: tuple(range(len(ts))) for c, ts in by_case.items()}
    states: dict[int, CaseState] = {}
    basis: dict[int, tuple[tuple[int, ...], Pool | None]] = {}
    """Per case decided by its own look: what that look fitted, and the pool it took in."""
    made: list[Measurement] = []
    mine = {
        c: next((i for i, t in enumerate(ts) if incumbent(t)), None) if incumbent else None
        for c, ts in by_case.items()
    }

    def more(c: int) -> bool:
        return any(
            wants_more(list(samples[c][i].values()), rule) and attempts[c][i] < rule.cap
            for i in alive[c]
        )

    for rounds in range(1, rule.cap + 1):
        jobs = round_order(
            [
                (by_case[c][i], attempts[c][i])
                for c in by_case
                if c not in states
                for i in alive[c]
                if wants_more(list(samples[c][i].values()), rule) and attempts[c][i] < rule.cap
            ],
            rounds - 1,
        )
        if not jobs:
            break
        for c, i in ((t.case_index, index[t.case_index, t.config]) for t, _ in jobs):
            attempts[c][i] += 1
        for m in measure(jobs):
            made.append(m)
            at = index.get((m.case_index, make_config(m.params)))
            if at is not None and m.ok and m.value is not None:
                samples[m.case_index][at][m.repeat] = m.value
        if drop and cross_case:
            _cross_look(by_case, samples, alive, states, direction, rule, rounds, mine, basis)
        pools = _pools(samples, alive, [c for c in by_case if c not in states], direction)
        for c in by_case:
            if c in states:
                continue
            if drop and not cross_case:
                state = look(
                    samples[c], alive[c], direction, rule, rounds, pool=pools.get(c),
                    protected=mine[c],
                )  # fmt: skip
                if state.decided is not None:
                    states[c] = state
                    basis[c] = (alive[c], pools.get(c))
                alive[c] = state.alive
            if c not in states and not more(c):
                kept = [s if i in alive[c] else {} for i, s in enumerate(samples[c])]
                states[c] = final_state(kept, direction, rule, mine[c])
    decisions = {}
    for c, ts in by_case.items():
        state = states.get(c) or final_state(samples[c], direction, rule, mine[c])
        looks = rule.looks if drop else 1
        decisions[c] = _decision(
            state, ts, samples[c], rule, direction, looks, mine[c], *basis.get(c, ((), None))
        )
    return made, decisions


def _pools(
    samples: Mapping[int, Sequence[Mapping[int, float]]],
    alive: Mapping[int, Sequence[int]],
    cases: Sequence[int],
    direction: str,
) -> dict[int, Pool]:
    """Per open case, the residual noise of the bench's other open cases (their live
    configurations' fits), to pool into its own."""
    fits = {}
    for c in cases:
        f = fit({i: samples[c][i] for i in alive[c] if samples[c][i]}, direction)
        if f is not None:
            fits[c] = f
    total = Pool.of(list(fits.values()))
    return {c: (total.without(fits[c]) if c in fits else total) for c in cases}


def _cross_look(
    by_case: Mapping[int, Sequence[Task]],
    samples: Mapping[int, Sequence[Mapping[int, float]]],
    alive: dict[int, tuple[int, ...]],
    states: dict[int, CaseState],
    direction: str,
    rule: RaceRule,
    rounds: int,
    mine: Mapping[int, int | None],
    basis: dict[int, tuple[tuple[int, ...], Pool | None]],
) -> None:
    """One look of a cross-case race: a configuration dropped in one case leaves them all."""
    open_cases = [c for c in by_case if c not in states]
    if not open_cases:
        return
    live = {c: alive[c] for c in open_cases}
    configs = {c: [t.config for t in by_case[c]] for c in open_cases}
    looks = {
        c: look(samples[c], alive[c], direction, rule, rounds, protected=mine[c])
        for c in open_cases
    }
    beaten = {configs[c][i] for c in open_cases for i in alive[c] if i not in looks[c].alive}
    keep = _best_scored(configs, samples, alive, direction)
    beaten.discard(keep)
    for c in open_cases:
        alive[c] = tuple(i for i in alive[c] if configs[c][i] not in beaten and samples[c][i])
    verdicts = [looks[c].decided for c in open_cases]
    decided: Decided | None = None
    if all(len(alive[c]) <= 1 for c in open_cases):
        decided = "separated" if all(alive[c] for c in open_cases) else "cap"
    elif all(v == "tie" for v in verdicts):
        decided = "tie"
    elif rounds >= rule.cap:
        decided = "cap"
    if decided is None:
        return
    for c in open_cases:
        kept = [s if i in alive[c] else {} for i, s in enumerate(samples[c])]
        leader = final_state(kept, direction, rule, mine[c]).leader
        states[c] = CaseState(alive=alive[c], leader=leader, decided=decided, rounds=rounds)
        basis[c] = (live[c], None)


def _best_scored(
    configs: Mapping[int, Sequence[Config]],
    samples: Mapping[int, Sequence[Mapping[int, float]]],
    alive: Mapping[int, Sequence[int]],
    direction: str,
) -> Config | None:
    """The configuration alive in every case with the best cross-case score (the geometric
    mean of its median's ratio to the case's best median, as the profile scores it)."""
    per_case = {
        c: {configs[c][i]: median_of(samples[c][i]) for i in alive[c] if samples[c][i]}
        for c in configs
    }
    scores = score_configs(per_case, list(configs), direction)
    return winner(scores) if scores else None


def _decision(
    state: CaseState,
    tasks: Sequence[Task],
    samples: Sequence[Samples],
    rule: RaceRule,
    direction: str,
    looks: int,
    protected: int | None = None,
    over: Sequence[int] = (),
    pool: Pool | None = None,
) -> CaseDecision:
    """The case's decision; `looks` the error was split over (``rule.looks`` for a race, 1 for
    one look at the end), and what the deciding look fitted (`over`, `pool`), for the
    resolution of a ``cap``."""
    leader = state.leader
    unbeaten = state.decided == "cap" and state.judged and len(state.alive) > 1
    resolved = None
    if unbeaten:
        resolved = resolution(samples, state.alive, leader, direction, rule, looks=looks,
                              protected=protected, over=over, pool=pool)  # fmt: skip
    return CaseDecision(
        decided=state.decided or "cap",
        confidence=rule.confidence,
        samples=0 if leader is None else len(samples[leader]),
        rounds=state.rounds,
        winner=None if leader is None else tasks[leader].config,
        tied=tuple(tasks[i].config for i in state.alive) if state.decided == "tie" else (),
        unbeaten=tuple(tasks[i].config for i in state.alive) if unbeaten else (),
        resolution=resolved,
    )


def standing(decision: CaseDecision) -> tuple[Config, ...]:
    """The configurations a case's verdict left standing: the tied, the unbeaten at the cap,
    or the winner alone."""
    if decision.tied:
        return decision.tied
    if decision.unbeaten:
        return decision.unbeaten
    return () if decision.winner is None else (decision.winner,)


def decide_rows(
    rows: Sequence[MeasurementRow], direction: str, rule: RaceRule
) -> dict[int, CaseDecision]:
    """Each case's decision from a profile's rows as they stand (one look at the end): what a
    sweep with a fixed repeat count, or a confirmation, records."""
    groups: Iterable[tuple[int, list[tuple[Config, list[float]]]]]
    if isinstance(rows, RowTable):
        groups = rows.case_samples()  # a sweep's table, one case at a time
    else:
        by_case: dict[int, list[tuple[Config, list[float]]]] = {}
        for row in rows:
            if row.samples:
                entry = (make_config(row.params), list(row.samples))
                by_case.setdefault(row.case_index, []).append(entry)
        groups = by_case.items()
    return decide_groups(groups, direction, rule)


def decide_groups(
    groups: Iterable[tuple[int, Sequence[tuple[Config, Sequence[float]]]]],
    direction: str,
    rule: RaceRule,
) -> dict[int, CaseDecision]:
    """Each case's decision from its configurations' samples (one look at the end)."""
    out = {}
    for c, entries in groups:
        tasks = [Task(bench="", case_index=c, phase="main", config=config) for config, _ in entries]
        values = [samples for _, samples in entries]
        out[c] = _decision(final_state(values, direction, rule), tasks, values, rule, direction, 1)
    return out


_RANK = {"separated": 0, "tie": 1, "cap": 2}


def with_decisions(result: BenchResult, decisions: Mapping[int, CaseDecision]) -> BenchResult:
    """The result with ``decided`` on each case's best, and on the cross-case best (its
    weakest case's decision, the samples summed over cases)."""
    bests = []
    for row in result.per_case_best:
        d = decisions.get(row.case_index)
        if d is None:
            bests.append(row)
            continue
        verdict = Verdict(
            decided=d.decided,
            confidence=d.confidence,
            samples=row.n or 0,
            rounds=d.rounds,
            tied=tuple(dict(t) for t in d.tied),
            unbeaten=tuple(dict(t) for t in d.unbeaten),
            resolves_pct=None if d.resolution is None else d.resolution.resolves_pct,
            read_pct=None if d.resolution is None else d.resolution.read_pct,
            rounds_for_margin=None if d.resolution is None else d.resolution.rounds_for_margin,
        )
        bests.append(replace(row, decided=verdict))
    best: TopEntry | None = result.best
    if best is not None and bests:
        known = [r.decided for r in bests if r.decided is not None]
        if known:
            weakest = max(known, key=lambda v: _RANK.get(v.decided, 2))
            rows = result.rows
            if isinstance(rows, RowTable):
                samples = rows.samples_of(best.params)
            else:
                samples = sum(r.n or 0 for r in rows if _same(r, best))
            best = replace(
                best,
                decided=Verdict(
                    decided=weakest.decided,
                    confidence=weakest.confidence,
                    samples=samples,
                    rounds=max(v.rounds for v in known),
                ),
            )
    top = tuple(best if best is not None and i == 0 else t for i, t in enumerate(result.top))
    return replace(result, per_case_best=tuple(bests), best=best, top=top)


def _same(row: MeasurementRow, top: TopEntry) -> bool:
    """Whether a row is the leaderboard entry's configuration (its params in the entry's)."""
    return all(top.params.get(k) == v for k, v in row.params.items())
