"""Confirmation runs (``tune --confirm K``): the sweep's picks re-timed in fresh rounds.

The best of many noisy estimates is biased towards luck (the winner's curse), so the figures
that chose a winner are not the figures to report it with. After a bench's sweep, per case the
top K configurations by the sweep's medians, the cross-case leaderboard's top K in every case,
the incumbent's configuration (when the space's header names one) and the library's default
(the header's fallbacks, when the grid holds them) are measured again in
`rounds` fresh rounds, interleaved; the profile's ``per_case_best``, ``top`` and ``best``
(and so the header's evidence) are then computed from those rounds alone, and every confirmed
row keeps the sweep's figures under ``selection``. Rows the confirmation did not re-time are
kept with ``confirmed: false``. Confirmation attempts are stored under repeat indices of their
own (from CONFIRM_REPEAT), so they never reuse the sweep's samples, and a resumed sweep resumes
its confirmation too.

Raced (``tune --race --confirm K``), the confirmation is a race of its own over the picks:
every pick gets the `rounds` first, then only the cases not yet decided go on, their beaten
picks dropped, to `cap` rounds at most (looks at rounds, twice that, ..., the cap; the error
split over them as in the sweep's race: harness/sweep/decide.py). A case whose picks the first
rounds separate costs no more than a fixed confirmation; one whose rounds were disturbed (a
burst of load hits a few samples and widens the noise) gets the rounds to decide it, so that
a retune on the same machine reaches the same verdict. The verdicts come from the race.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from benchspace.harness.measurement import Measurement, Value
from benchspace.harness.plan import Config, MainPlan, Task, make_config
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, Selection
from benchspace.harness.profiles.scoring import better
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.incumbents import incumbent_task
from benchspace.harness.sweep.race import CaseDecision, race_tasks
from benchspace.harness.sweep.round_order import interleaved

CONFIRM_REPEAT = 1_000_000
"""The repeat index of a confirmation's first round."""


@dataclass(frozen=True, kw_only=True)
class ConfirmOptions:
    """What ``--confirm`` asks for."""

    k: int
    rounds: int
    incumbents: Mapping[str, Mapping[int, Mapping[str, Value]]] = field(default_factory=dict)
    """Per bench, per case: the incumbent's parameter values (from the space's header)."""
    baselines: Mapping[str, Mapping[str, Value]] = field(default_factory=dict)
    """Per bench: the library's default (the header's fallbacks), re-timed in every case so
    that a winner's speed-up over it comes from the confirmation too."""
    cap: int | None = None
    """Raced (with ``--race``): the most rounds a case's picks may get (module docstring);
    None: every pick gets `rounds`, and the verdicts are one look at them."""

    def rule(self, race: RaceRule) -> RaceRule | None:
        """The confirmation's race: the sweep's margin and confidence, `rounds` first, up to
        `cap`; None when it is not raced."""
        if self.cap is None:
            return None
        return RaceRule(
            min_repeats=self.rounds,
            cap=max(self.cap, self.rounds),
            margin_pct=race.margin_pct,
            confidence=race.confidence,
            family=race.family,
        )


def _matches(row: MeasurementRow, values: Mapping[str, Value]) -> bool:
    return bool(values) and all(row.params.get(k) == v for k, v in values.items())


def chosen(
    result: BenchResult,
    plan: MainPlan,
    options: ConfirmOptions,
    incumbents: Mapping[int, Mapping[str, Value]],
    baseline: Mapping[str, Value] | None = None,
) -> list[tuple[int, Config]]:
    """The (case, configuration) pairs to confirm, in a stable order."""
    baseline = baseline or {}
    picked: dict[tuple[int, Config], None] = {}
    by_case: dict[int, list[MeasurementRow]] = {}
    for row in result.rows:
        by_case.setdefault(row.case_index, []).append(row)
    sign = -1.0 if result.direction == "max" else 1.0
    for c, rows in sorted(by_case.items()):
        ordered = sorted(rows, key=lambda r: (sign * (r.median or 0.0), repr(r.params)))
        for row in ordered[: options.k]:
            picked[c, make_config(row.params)] = None
        for values in (incumbents.get(c, {}), baseline):
            mine = [r for r in ordered if _matches(r, values)]
            if mine:  # the incumbent's (the default's) best configuration in this case
                picked[c, make_config(mine[0].params)] = None
    for top in result.top[: options.k]:
        for tc in top.cases:
            for row in by_case.get(tc.case_index, ()):
                if all(top.params.get(k) == v for k, v in row.params.items()):
                    picked[tc.case_index, make_config(row.params)] = None
    return list(picked)


def _picked_tasks(plan: MainPlan, pairs: Sequence[tuple[int, Config]]) -> list[Task]:
    """The plan's tasks of the (case, configuration) picks, in the picks' order."""
    tasks = {(t.case_index, t.config): t for t in plan.tasks}
    return [tasks[p] for p in pairs if p in tasks]


def confirm_tasks(
    plan: MainPlan, pairs: Sequence[tuple[int, Config]], rounds: int
) -> list[tuple[Task, int]]:
    """The confirmation's (task, repeat) pairs, round-major (interleaved), each round in an
    order of its own (harness/sweep/round_order.py: the best pick does not always go first)."""
    wanted = _picked_tasks(plan, pairs)
    return interleaved(wanted, rounds, CONFIRM_REPEAT)


def merge(
    selection: BenchResult, confirmation: BenchResult, confirmed_cases: set[int]
) -> BenchResult:
    """The selection's result with the confirmation's figures: confirmed rows (their
    selection figures beside), the confirmation's bests and leaderboard, everything else
    kept; rows of a confirmed case the confirmation did not re-time get confirmed False."""
    sel_rows = {(r.case_index, make_config(r.params)): r for r in selection.rows}

    def with_selection(row: MeasurementRow) -> MeasurementRow:
        old = sel_rows.get((row.case_index, make_config(row.params)))
        figures = None
        if old is not None and old.median is not None:
            figures = Selection(median=old.median, n=old.n or 0, stdev=old.stdev)
        return replace(row, selection=figures, confirmed=True)

    conf_rows = [with_selection(r) for r in confirmation.rows]
    done = {(r.case_index, make_config(r.params)) for r in conf_rows}
    rest = [
        replace(r, confirmed=False) if r.case_index in confirmed_cases else r
        for key, r in sel_rows.items()
        if key not in done
    ]
    sel_scores = {make_config(t.params): t.score for t in selection.top}
    top = tuple(
        replace(t, selection_score=sel_scores.get(make_config(t.params))) for t in confirmation.top
    )
    bests = tuple(with_selection(r) for r in confirmation.per_case_best)
    best_cases = {r.case_index for r in bests}
    bests += tuple(r for r in selection.per_case_best if r.case_index not in best_cases)
    return replace(
        selection,
        measurements=tuple(sorted((*conf_rows, *rest), key=lambda r: r.case_index)),
        per_case_best=tuple(sorted(bests, key=lambda r: r.case_index)),
        top=top or selection.top,
        best=top[0] if top else selection.best,
        failures=selection.failures + confirmation.failures,
    )


def confirm_bench(
    selection: BenchResult,
    plan: MainPlan,
    options: ConfirmOptions,
    measure: Callable[[Sequence[tuple[Task, int]]], list[Measurement]],
    rebuild: Callable[[list[Measurement]], BenchResult],
    announce: Callable[[int], None] | None = None,
    race: RaceRule | None = None,
) -> tuple[BenchResult, list[Measurement], dict[int, CaseDecision] | None]:
    """Confirm one bench: measure the picks, rebuild a result from those rounds alone (with
    `rebuild`, the sweep's own result builder), and merge it into the selection's.
    ``announce`` hears how many invocations the confirmation adds (the progress total).
    With `race` (the sweep's rule) and ``options.cap``, the picks are raced; the verdicts
    are returned then (None: one look at the fixed rounds decides, as for a sweep)."""
    pairs = chosen(
        selection,
        plan,
        options,
        options.incumbents.get(selection.bench, {}),
        options.baselines.get(selection.bench, {}),
    )
    rule = None if race is None else options.rule(race)
    decisions = None
    if rule is None:
        tasks = confirm_tasks(plan, pairs, options.rounds)
        if announce is not None:
            announce(len(tasks))
        ms = measure(tasks)
    else:
        mine = incumbent_task(options.incumbents.get(selection.bench, {}))
        ms, decisions = _raced(plan, pairs, rule, selection.direction, measure, announce, mine)
    as_main = [replace(m, phase="main") for m in ms]
    confirmation = rebuild(as_main)
    merged = merge(selection, confirmation, {c for c, _ in pairs})
    return merged, ms, decisions


def _raced(
    plan: MainPlan,
    pairs: Sequence[tuple[int, Config]],
    rule: RaceRule,
    direction: str,
    measure: Callable[[Sequence[tuple[Task, int]]], list[Measurement]],
    announce: Callable[[int], None] | None,
    incumbent: Callable[[Task], bool] | None = None,
) -> tuple[list[Measurement], dict[int, CaseDecision]]:
    """The picks raced under `rule`, their rounds under the confirmation's repeat indices."""
    wanted = _picked_tasks(plan, pairs)
    if announce is not None:
        announce(len(wanted) * rule.min_repeats)

    def measure_round(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        if announce is not None and jobs and min(r for _, r in jobs) >= rule.min_repeats:
            announce(len(jobs))  # rounds past the first ones: the progress total grows
        return measure([(t, CONFIRM_REPEAT + r) for t, r in jobs])

    return race_tasks(wanted, measure_round, direction, rule, cross_case=False, incumbent=incumbent)


def bias(rows: Sequence[MeasurementRow], truth: Callable[[MeasurementRow], float]) -> float:
    """Mean relative error of rows' medians against true means (a benchmark's yardstick)."""
    errors = [(r.median - truth(r)) / truth(r) for r in rows if r.median is not None]
    return sum(errors) / len(errors) if errors else 0.0


def best_of(rows: Sequence[MeasurementRow], direction: str) -> MeasurementRow | None:
    """The best row by median."""
    best: MeasurementRow | None = None
    for row in rows:
        if row.median is None:
            continue
        if best is None or (best.median is not None and better(row.median, best.median, direction)):
            best = row
    return best
