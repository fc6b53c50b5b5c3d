"""A bench's profile entry from its sweep's measurements (pure): rows, bests, leaderboard."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Config, MainPlan
from benchspace.harness.profiles.batchlas import positional_args
from benchspace.harness.profiles.model import (
    BenchResult,
    Coverage,
    Failure,
    MeasurementRow,
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
    bests = case_bests(ordered, bench.direction)
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
        failures=tuple(failure_of(m) for m in measurements if not m.ok),
        per_case_best=tuple(measurement_row(bench, bests[c]) for c in sorted(bests)),
        measurements=tuple(measurement_row(bench, a) for a in ordered),
        coverage=Coverage(complete=False, combos=0, combos_covering_all_cases=0, note="not swept"),
    )
    if plan is None:
        return result
    cases = [case.index for case in bench.cases]
    covering = plan.covering(len(cases))
    per_case: dict[int, dict[Config, float]] = defaultdict(dict)
    for combo in covering:
        for case in bench.cases:
            agg = aggs.get((case.index, plan.case_config(combo, case)))
            if agg is not None and agg.summary is not None:
                per_case[case.index][combo] = agg.summary.median
    scores = score_configs(per_case, cases, bench.direction)
    top = tuple(
        TopEntry(
            params={**dict(combo), **dict(plan.resolved)},
            score=score,
            cases=tuple(
                _top_case(measurement_row(bench, aggs[(c.index, plan.case_config(combo, c))]))
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


def build_profile(meta: ProfileMeta, results: Sequence[BenchResult]) -> Profile:
    """The whole profile document of a sweep."""
    return Profile(meta=meta, results={r.bench: r for r in results})
