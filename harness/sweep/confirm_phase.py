"""Confirmation of a pre_tune phase (``tune --confirm K``): its picks re-timed in fresh rounds.

A pre_tune phase settles parameters that the header ships (the demo's sort cutoff) before the
main sweep runs, so the main confirmation never re-times them: the phase's own rounds chose
its winner, and they are the winner's curse's figures. With ``--confirm K``, after a phase's
sweep (or race) its top K combinations by cross-case score and the incumbent's combination
(the header's values of the phase's parameters) are measured again over the phase's cases in
fresh interleaved rounds (each in an order of its own, harness/sweep/round_order.py), under
repeat indices of their own (PHASE_CONFIRM_REPEAT: never the sweep's samples, nor the main
confirmation's); the phase's winner, score, values and table come from those rounds alone,
and each re-timed combination keeps its selection score beside.
Raced (``--race``), the confirmation is a cross-case race over the picks, from the
confirmation's first rounds up to its cap, as the main confirmation is
(harness/sweep/confirm.py); the incumbent's combination stays unless that race beats it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from benchspace.harness.measurement import Measurement, Value
from benchspace.harness.plan import Config, PreTunePlan, Task, make_config
from benchspace.harness.profiles.model import PhaseTableRow
from benchspace.harness.spaces.model import Bench
from benchspace.harness.sweep.confirm import CONFIRM_REPEAT, ConfirmOptions
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.incumbents import incumbent_task
from benchspace.harness.sweep.race import CaseDecision, race_tasks
from benchspace.harness.sweep.round_order import interleaved

PHASE_CONFIRM_REPEAT = 2 * CONFIRM_REPEAT
"""The repeat index of pre_tune phase 0's first confirmation round; phase i starts
PHASE_STRIDE * i further."""
PHASE_STRIDE = 100_000

PhaseOutcome = tuple[list[Measurement], dict[int, CaseDecision] | None]


@dataclass(frozen=True, kw_only=True)
class PhaseConfirm:
    """What confirming a bench's pre_tune phases needs: how many combinations to re-time, the
    bench's incumbents (per case, the header's values), and how to measure the picks (the
    tasks and the phase's index; their attempts, and the race's verdicts when raced)."""

    k: int
    incumbents: Mapping[int, Mapping[str, Value]]
    measure: Callable[[Sequence[Task], int], PhaseOutcome]


def first_repeat(phase_index: int) -> int:
    """The repeat index of a phase's first confirmation round."""
    return PHASE_CONFIRM_REPEAT + PHASE_STRIDE * phase_index


def describe_repeat(repeat: int) -> str:
    """A stored attempt's repeat index in words (a sweep's, a confirmation's, a phase's)."""
    if repeat >= PHASE_CONFIRM_REPEAT:
        phase, offset = divmod(repeat - PHASE_CONFIRM_REPEAT, PHASE_STRIDE)
        return f"pre_tune[{phase}] confirmation round {offset + 1}"
    if repeat >= CONFIRM_REPEAT:
        return f"confirmation round {repeat - CONFIRM_REPEAT + 1}"
    return f"repeat {repeat + 1}"


def phase_picks(
    plan: PreTunePlan,
    scores: Mapping[Config, float],
    k: int,
    incumbents: Mapping[int, Mapping[str, Value]],
) -> list[Config]:
    """The combinations to confirm, in grid order: the top `k` by the phase's score (ties by
    grid order) and the incumbent's combination, when the phase's grid holds it."""
    order = {combo: i for i, combo in enumerate(plan.combos)}
    ranked = sorted(scores, key=lambda combo: (scores[combo], order[combo]))
    picked = set(ranked[:k])
    names = {name for combo in plan.combos for name, _ in combo}
    mine = {n: v for c in plan.cases for n, v in incumbents.get(c, {}).items() if n in names}
    if mine:
        picked |= {c for c in plan.combos if all(mine.get(n) == v for n, v in c)}
    return [combo for combo in plan.combos if combo in picked]


def confirmed_table(
    selection: Sequence[PhaseTableRow],
    confirmation: Sequence[PhaseTableRow],
    picks: Sequence[Config],
) -> tuple[PhaseTableRow, ...]:
    """The phase's table after its confirmation: each re-timed combination with the
    confirmation's figures and its selection score beside; the others as the sweep left them,
    marked not confirmed (both tables list the phase's combinations in grid order)."""
    kept = set(picks)
    rows = []
    for old, new in zip(selection, confirmation, strict=True):
        if make_config(old.params) in kept:
            rows.append(replace(new, selection_score=old.score, confirmed=True))
        else:
            rows.append(replace(old, confirmed=False))
    return tuple(rows)


def measure_phase_picks(
    tasks: Sequence[Task],
    phase_index: int,
    measure: Callable[[Sequence[tuple[Task, int]]], list[Measurement]],
    *,
    rounds: int,
    rule: RaceRule | None,
    direction: str,
    incumbent: Callable[[Task], bool] | None = None,
    announce: Callable[[int], None] | None = None,
) -> PhaseOutcome:
    """Measure a phase's picks: `rounds` fixed rounds (no verdicts), or raced under `rule`
    across the phase's cases; every round under the phase's confirmation repeat indices."""
    base = first_repeat(phase_index)
    if rule is None:
        jobs = interleaved(tasks, rounds, base)
        if announce is not None:
            announce(len(jobs))
        return measure(jobs), None
    if announce is not None:
        announce(len(tasks) * rule.min_repeats)

    def measure_round(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        if announce is not None and jobs and min(r for _, r in jobs) >= rule.min_repeats:
            announce(len(jobs))  # rounds past the first ones: the progress total grows
        return measure([(t, base + r) for t, r in jobs])

    made, decisions = race_tasks(
        tasks, measure_round, direction, rule, cross_case=True, incumbent=incumbent
    )
    return made, decisions


def phase_confirm(
    bench: Bench,
    options: ConfirmOptions | None,
    race: RaceRule | None,
    measure: Callable[[Sequence[tuple[Task, int]]], list[Measurement]],
    announce: Callable[[int], None] | None = None,
) -> PhaseConfirm | None:
    """How a bench's pre_tune phases are confirmed (None: no ``--confirm``, or no phases):
    `race` is the sweep's race rule (raced, the confirmation is a race: ConfirmOptions.rule),
    `measure` measures (task, repeat) pairs through the store."""
    if options is None or not bench.pre_tune:
        return None
    rule = None if race is None else options.rule(race)
    incumbents = options.incumbents.get(bench.name, {})

    def confirm(tasks: Sequence[Task], index: int) -> PhaseOutcome:
        names = sorted(bench.pre_tune[index].params)
        return measure_phase_picks(
            tasks,
            index,
            measure,
            rounds=options.rounds,
            rule=rule,
            direction=bench.direction,
            incumbent=incumbent_task(incumbents, names),
            announce=announce,
        )

    return PhaseConfirm(k=options.k, incumbents=incumbents, measure=confirm)
