"""A bench's profile entry from its sweep's measurements (pure): rows, bests, leaderboard."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from benchspace.harness.measurement import Measurement, RepeatSummary
from benchspace.harness.plan import Config, MainPlan, PreTunePlan
from benchspace.harness.profiles.batchlas import positional_args
from benchspace.harness.profiles.model import (
    BenchResult,
    Coverage,
    Failure,
    MeasurementRow,
    PhaseTableRow,
    PreTunePhaseResult,
    Profile,
    ProfileMeta,
    TopCase,
    TopEntry,
)
from benchspace.harness.profiles.scoring import (
    Aggregate,
    aggregate,
    case_bests,
    in_order,
    score_configs,
    top_scores,
)
from benchspace.harness.spaces.model import Bench


def measurement_row(bench: Bench, agg: Aggregate) -> MeasurementRow:
    """The profile row of one (case, configuration) and its repeats."""
    summary = agg.summary
    fixed = bench.cases[agg.case_index].fixed
    arg_spec = [item.text for item in bench.arg_spec]
    return MeasurementRow(
        case_index=agg.case_index,
        fixed=fixed,  # one mapping per case, shared by its rows
        params=dict(agg.config),
        args=positional_args(arg_spec, agg.argv, {**fixed, **dict(agg.config)}),
        argv=agg.argv,
        env=agg.env,
        samples=agg.samples,
        spread=agg.spread,
        median=None if summary is None else summary.median,
        mean=None if summary is None else summary.mean,
        stdev=None if summary is None else summary.stdev,
        n=None if summary is None else summary.n,
    )


def failure_of(m: Measurement) -> Failure:
    """The profile record of a failed attempt (the tail of its stderr)."""
    return Failure(
        case_index=m.case_index,
        phase=m.phase,
        params=dict(m.params),
        status=m.status,
        argv=tuple(m.argv),
        env=dict(m.env),
        error=m.error,
        stderr_tail=m.stderr_tail[-500:],
        repeat=m.repeat,
    )


def _top_case(row: MeasurementRow) -> TopCase:
    return TopCase(
        case_index=row.case_index, fixed=row.fixed, args=row.args, env=row.env, value=row.median
    )


def bench_result(
    bench: Bench,
    *,
    plan: MainPlan | None,
    measurements: Sequence[Measurement],
    pre_tune: Sequence[PreTunePhaseResult],
    topk: int,
    exe_sha256: str = "",
) -> BenchResult:
    """The profile entry of one bench (BatchLAS's keys plus spread, coverage and failures)."""
    aggs = aggregate([m for m in measurements if m.phase == "main"])
    ordered = in_order(aggs)
    return assemble(
        bench,
        plan=plan,
        rows=tuple(measurement_row(bench, a) for a in ordered),
        bests=case_bests(ordered, bench.direction),
        lookup=aggs,
        failures=[failure_of(m) for m in measurements if not m.ok],
        pre_tune=pre_tune,
        topk=topk,
        exe_sha256=exe_sha256,
    )


def assemble(
    bench: Bench,
    *,
    plan: MainPlan | None,
    rows: Sequence[MeasurementRow],
    bests: Mapping[int, Aggregate],
    lookup: Mapping[tuple[int, Config], Aggregate],
    failures: Sequence[Failure],
    pre_tune: Sequence[PreTunePhaseResult],
    topk: int,
    exe_sha256: str = "",
) -> BenchResult:
    """The profile entry of one bench from its rows (in the profile's order), each case's
    best aggregate, and the aggregates of (at least) every configuration a combo legal for
    every case runs."""
    result = BenchResult(
        bench=bench.name,
        exe=bench.exe,
        exe_sha256=exe_sha256,
        metric=bench.metric,
        direction=bench.direction,
        arg_spec=tuple(item.text for item in bench.arg_spec),
        env_spec=dict(bench.env),
        report_only=bench.report_only,
        pre_tune=tuple(pre_tune),
        failures=tuple(failures),
        per_case_best=tuple(measurement_row(bench, bests[c]) for c in sorted(bests)),
        measurements=rows,
        coverage=Coverage(complete=False, combos=0, combos_covering_all_cases=0, note="not swept"),
    )
    if plan is None:
        return result
    cases = [case.index for case in bench.cases]
    covering = plan.covering(len(cases))
    per_case: dict[int, dict[Config, float]] = defaultdict(dict)
    for combo in covering:
        for case in bench.cases:
            agg = lookup.get((case.index, plan.case_config(combo, case)))
            if agg is not None and agg.summary is not None:
                per_case[case.index][combo] = agg.summary.median
    scores = score_configs(per_case, cases, bench.direction)
    top = tuple(
        TopEntry(
            params={**dict(combo), **dict(plan.resolved)},
            score=score,
            cases=tuple(
                _top_case(measurement_row(bench, lookup[(c.index, plan.case_config(combo, c))]))
                for c in bench.cases
            ),
        )
        for combo, score in top_scores(scores, topk)[:topk]
    )
    note = ""
    if not covering:
        note = (
            "no combination of the union grid is legal for every case; cross-case best is "
            "undefined, read per_case_best"
        )
    elif not scores:
        note = "no combination legal for every case was measured successfully in every case"
    coverage = Coverage(
        complete=bool(scores),
        combos=len(plan.combos),
        combos_covering_all_cases=len(covering),
        combos_scored=len(scores),
        note=note,
    )
    return replace(result, top=top, best=top[0] if top else None, coverage=coverage)


def phase_table(
    plan: PreTunePlan,
    stats: Mapping[tuple[int, Config], RepeatSummary],
    scores: Mapping[Config, float],
) -> tuple[PhaseTableRow, ...]:
    """Every combo a pre-tune phase measured: per phase case its median, stdev and number of
    repeats (None where it failed), and its score (None unless it succeeded in every phase
    case), so that ``sensitivity`` and ``review`` can judge the phase like a main sweep."""
    table = []
    for combo in plan.combos:
        cells = [stats.get((c, combo)) for c in plan.cases]
        table.append(
            PhaseTableRow(
                params=dict(combo),
                values=tuple(None if s is None else s.median for s in cells),
                stdevs=tuple(None if s is None else s.stdev for s in cells),
                n=tuple(None if s is None else s.n for s in cells),
                score=scores.get(combo),
            )
        )
    return tuple(table)


def build_profile(meta: ProfileMeta, results: Sequence[BenchResult]) -> Profile:
    """The whole profile document of a sweep."""
    return Profile(meta=meta, results={r.bench: r for r in results})
