"""How a pre_tune phase's winner was decided (pure): the profile's ``decided`` on a phase.

A phase's winner is a header value like any case's winner, so it says how it was decided:
from the phase's race (raced: the cross-case race's verdicts, or its raced confirmation's), or
else from one look at the end over the rounds that gave its figures (the sweep's repeats, or
the confirmation's fixed rounds), as a sweep with a fixed repeat count records its cases'.
Over several phase cases the weakest case's verdict stands (``separated`` < ``tie`` < ``cap``),
as for the cross-case best of a bench; a winner the scores chose but some case's verdict did
not leave standing (a fixed sweep whose cases disagree) is recorded as ``cap``, with no
configuration named unbeaten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Config, ParamValue, PreTunePlan
from benchspace.harness.profiles.model import Verdict
from benchspace.harness.profiles.scoring import aggregate
from benchspace.harness.sweep.decide import DECISIONS, RaceRule
from benchspace.harness.sweep.race import CaseDecision, decide_groups, standing


def phase_decisions(
    plan: PreTunePlan, measurements: Sequence[Measurement], direction: str, rule: RaceRule
) -> dict[int, CaseDecision]:
    """Each phase case's decision from one look at its samples as they stand."""
    aggs = aggregate(measurements)
    groups = []
    for case in plan.cases:
        entries = [
            (task.config, aggs[case, task.config].samples)
            for _, task in plan.tasks
            if task.case_index == case
            and (case, task.config) in aggs
            and aggs[case, task.config].samples
        ]
        if entries:
            groups.append((case, entries))
    return decide_groups(groups, direction, rule)


def phase_verdict(
    plan: PreTunePlan,
    decisions: Mapping[int, CaseDecision],
    best: Config,
    samples: Mapping[int, int],
) -> Verdict | None:
    """The verdict on the phase's winner `best` (a phase combination) from its cases'
    `decisions` (keyed by case, naming the tasks' configurations); `samples`: the winner's
    sample count per phase case. None when no phase case has a decision."""
    known = [decisions[c] for c in plan.cases if c in decisions]
    if not known:
        return None
    combo_of = {task.config: combo for combo, task in plan.tasks}

    def combos(configs: Sequence[Config]) -> tuple[dict[str, ParamValue], ...]:
        return tuple(dict(combo_of[c]) for c in configs if c in combo_of)

    weakest = max(known, key=lambda d: DECISIONS.index(d.decided))
    held = all(best in {combo_of.get(c) for c in standing(d)} for d in known)
    resolution = weakest.resolution if held else None
    return Verdict(
        decided=weakest.decided if held else "cap",
        confidence=weakest.confidence,
        samples=sum(samples.get(c, 0) for c in plan.cases),
        rounds=max(d.rounds for d in known),
        tied=combos(weakest.tied) if held else (),
        unbeaten=combos(weakest.unbeaten) if held else (),
        resolves_pct=None if resolution is None else resolution.resolves_pct,
        read_pct=None if resolution is None else resolution.read_pct,
        rounds_for_margin=None if resolution is None else resolution.rounds_for_margin,
    )
