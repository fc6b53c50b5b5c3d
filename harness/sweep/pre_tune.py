"""Pre-tune phases: parameters settled one phase at a time before a bench's main sweep (each
phase confirmed in fresh rounds with ``tune --confirm``: harness/sweep/confirm_phase.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchspace.harness.measurement import Measurement, RepeatSummary
from benchspace.harness.plan import Config, ParamValue, PreTunePlan, Task, plan_pre_tune
from benchspace.harness.profiles.model import PreTunePhaseResult
from benchspace.harness.profiles.results import phase_table
from benchspace.harness.profiles.scoring import aggregate, score_configs, winner
from benchspace.harness.spaces.model import Bench
from benchspace.harness.sweep.confirm_phase import PhaseConfirm, confirmed_table, phase_picks
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.incumbents import settled_phase
from benchspace.harness.sweep.phase_verdict import phase_decisions, phase_verdict
from benchspace.harness.sweep.race import CaseDecision, Racing


def pre_tune_phases(
    bench: Bench,
    measure: Callable[
        [Sequence[Task], Sequence[str]], tuple[list[Measurement], dict[int, CaseDecision] | None]
    ],
    racing: Racing | None,
    label: Callable[[str], None],
    confirm: PhaseConfirm | None = None,
    rule: RaceRule | None = None,
) -> tuple[dict[str, ParamValue], list[PreTunePhaseResult], list[Measurement]]:
    """Run the bench's pre-tune phases in order: each phase's winner (over its cases) is fixed
    for the next phases and the main sweep. Returns the resolved values, one summary per phase
    run, and every measurement; a phase where no combination succeeded in every case ends
    them (its summary has no resolved values). With `confirm`, each phase's picks are re-timed
    and its winner and figures come from those rounds (module docstring). Each winner says how
    it was decided (harness/sweep/phase_verdict.py): by the race, or by one look under `rule`
    (the bench's: confidence and margin) at the rounds that gave its figures."""
    rule = rule or RaceRule()
    resolved: dict[str, ParamValue] = {}
    summaries: list[PreTunePhaseResult] = []
    measured: list[Measurement] = []
    for index, phase in enumerate(bench.pre_tune):
        plan = plan_pre_tune(bench, index, resolved)
        label(f"{bench.name} pre_tune[{index}]")
        tasks = [task for _, task in plan.tasks]
        ms, raced = measure(tasks, sorted(phase.params))  # the phase's incumbent: these
        measured.extend(ms)
        per_case, stats = _figures(plan, ms)
        scores = score_configs(per_case, plan.cases, bench.direction)
        grids = {k: tuple(v) for k, v in phase.params.items()}
        table = phase_table(plan, stats, scores)
        if confirm is not None and scores:
            picks = phase_picks(plan, scores, confirm.k, confirm.incumbents)
            label(f"{bench.name} pre_tune[{index}] confirm")
            cms, confirmed = confirm.measure([t for c, t in plan.tasks if c in picks], index)
            measured.extend(cms)
            figures = _figures(plan, cms)
            again = score_configs(figures[0], plan.cases, bench.direction)
            if again:  # else every re-timed attempt failed: the sweep's figures stand
                (per_case, stats), scores, raced, ms = figures, again, confirmed, cms
                table = confirmed_table(table, phase_table(plan, stats, scores), picks)
        if not scores:
            summaries.append(
                PreTunePhaseResult(
                    phase_index=index,
                    params=grids,
                    cases=tuple(plan.cases),
                    resolved_params=None,
                    values=(),
                    score=None,
                    note="no combination succeeded in every phase case",
                    table=table,
                )
            )
            return resolved, summaries, measured
        best = winner(scores)
        best = settled_phase(plan, raced, racing, bench.name, best)
        resolved.update(dict(best))
        decisions = raced if raced is not None else phase_decisions(plan, ms, bench.direction, rule)
        counts = {c: stats[c, best].n for c in plan.cases if (c, best) in stats}
        summaries.append(
            PreTunePhaseResult(
                phase_index=index,
                params=grids,
                cases=tuple(plan.cases),
                resolved_params=dict(best),
                values=tuple(per_case[c][best] for c in plan.cases),
                score=scores[best],
                table=table,
                decided=phase_verdict(plan, decisions, best, counts),
            )
        )
    return resolved, summaries, measured


def _figures(
    plan: PreTunePlan, ms: Sequence[Measurement]
) -> tuple[dict[int, dict[Config, float]], dict[tuple[int, Config], RepeatSummary]]:
    """Per phase case each combination's median, and each (case, combination)'s summary."""
    aggs = aggregate(ms)
    per_case: dict[int, dict[Config, float]] = {c: {} for c in plan.cases}
    stats: dict[tuple[int, Config], RepeatSummary] = {}
    for combo, task in plan.tasks:
        agg = aggs.get((task.case_index, task.config))
        if agg is not None and agg.summary is not None:
            per_case[task.case_index][combo] = agg.summary.median
            stats[task.case_index, combo] = agg.summary
    return per_case, stats
