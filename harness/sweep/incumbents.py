"""The header's incumbents in a race: which task is one, how many a tune judges (the family
its drops are corrected over), and how a pre_tune phase's verdicts keep one."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from benchspace.harness.measurement import Value
from benchspace.harness.plan import Config, PreTunePlan, Task
from benchspace.harness.spaces.model import Space
from benchspace.harness.sweep.race import CaseDecision, Racing, standing


def incumbent_task(
    values: Mapping[int, Mapping[str, Value]], names: Iterable[str] | None = None
) -> Callable[[Task], bool] | None:
    """Which task is its case's incumbent: its parameters (those in `names`, when given: a
    pre_tune phase's) equal the case's incumbent values; None when no case has one."""
    if not any(values.values()):
        return None
    only = None if names is None else set(names)

    def mine(task: Task) -> bool:
        wanted = values.get(task.case_index) or {}
        params = task.params()
        keys = [k for k in wanted if k in params and (only is None or k in only)]
        return bool(keys) and all(params[k] == wanted[k] for k in keys)

    return mine


def incumbent_family(
    space: Space, incumbents: Mapping[str, Mapping[int, Mapping[str, Value]]]
) -> int:
    """How many incumbents the tune's races judge (``RaceRule.family``): every bench case with
    one, and every pre_tune phase whose cases have one for its parameters; at least 1."""
    count = 0
    for bench in space.benches:
        mine = incumbents.get(bench.name, {})
        count += sum(1 for values in mine.values() if values)
        count += sum(
            1
            for phase in bench.pre_tune
            if any(k in phase.params for c in phase.cases for k in mine.get(c, {}))
        )
    return max(count, 1)


def settled_combo(
    decisions: Mapping[int, CaseDecision],
    combos: Sequence[Config],
    incumbent: Mapping[str, Value],
) -> Config | None:
    """A pre_tune phase's winner as its race settled it: the incumbent's combination when
    no phase case beat it; else, when every phase case ended ``tie``, the first combination in
    grid order tied in all of them; else None (the best-scored wins). `combos` are the phase's
    combinations in grid order."""
    if not decisions:
        return None
    standing_all = set(combos)
    for d in decisions.values():
        standing_all &= set(standing(d))
    mine = [c for c in combos if incumbent and all(incumbent.get(k) == v for k, v in c)]
    if mine and mine[0] in standing_all:
        return mine[0]
    if all(d.decided == "tie" for d in decisions.values()):
        return next((c for c in combos if c in standing_all), None)
    return None


def settled_phase(
    plan: PreTunePlan,
    decisions: Mapping[int, CaseDecision] | None,
    racing: Racing | None,
    bench: str,
    best: Config,
) -> Config:
    """The phase's winner as its race settled it (the incumbent not beaten, or the first in
    grid order among the tied: :func:`settled_combo`), else `best`, the best-scored (also
    when the phase was not raced)."""
    if decisions is None or racing is None:
        return best
    incumbents = racing.incumbents.get(bench, {})
    by_task = {task.config: combo for combo, task in plan.tasks}
    mapped = {
        c: replace(
            d,
            winner=None if d.winner is None else by_task.get(d.winner),
            tied=tuple(by_task[t] for t in d.tied if t in by_task),
            unbeaten=tuple(by_task[t] for t in d.unbeaten if t in by_task),
        )
        for c, d in decisions.items()
    }
    names = {k for combo in plan.combos for k, _ in combo}
    incumbent = {k: v for c in plan.cases for k, v in incumbents.get(c, {}).items() if k in names}
    return settled_combo(mapped, list(plan.combos), incumbent) or best
