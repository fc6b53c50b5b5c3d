"""sensitivity: how much each tuned parameter moves the metric, judged against measured noise.

For each (bench, parameter), env parameters included, the profile's measurements are cut into
*slices*: groups in which the case and every other tuned parameter are fixed and only this
parameter varies. A slice's spread is ``100 * (ratio(worst, best) - 1)`` with the profile's
direction-aware ``ratio``, so for times it is ``100 * (worst - best) / best`` and for rates
``100 * (best - worst) / worst``. The median, p90 and maximum over slices are judged against
the bench's *noise floor*:

* measured from repeats when the profile has them (``tune --repeats R``, R >= 2): twice the
  standard error of a difference between two configurations' medians of R runs, from the
  pooled relative standard deviation of one run (sigma). The pool is the median over
  measurements of ``stdev / median``, each divided by the median of the sample stdev's
  sampling distribution (sigma * sqrt(chi2_{n-1} median / (n - 1))) because the median of
  small-sample stdevs underestimates sigma (by 17 % at n = 3); the median keeps a few
  disturbed configurations from inflating the floor. The floor is then
  ``2 * sqrt(2) * m(R) * sigma``, where m(R) is the standard deviation of the median of R
  standard normal samples (1/sqrt(2) at R = 2, 0.670 at 3, 0.536 at 5): 2 sigma at R = 2,
  1.89 sigma at 3, 1.52 sigma at 5; more repeats, a tighter floor;
* else from the benchmark's own reported spread (``spread``, e.g. Google Benchmark's stddev
  aggregate): twice the median of ``spread / value`` over the rows that report one above 0
  (a spread of 0 is minibench's for a configuration timed once: unknown, not noiseless);
* else unknown, and the caller's fallback (``--noise``, default 1 %) is used and said so,
  with what measuring it needs (``tune --repeats 3`` or more).

Verdicts: ``dead`` (max spread within noise), ``flat`` (median within noise), ``keep``;
``untested`` when no slice holds two values. A value *never wins* when it is no case's best
and never comes within noise of a case's best. A parameter is *inert* (possibly not read by
the code) when its median spread is within noise and, where repeats exist, Kruskal-Wallis
tests find no difference between its values: the samples are logged and centred on their
slice's mean (so slices pool), then tested pooled over all cases (power against a small
consistent effect) and per case (an effect confined to one case), alpha 0.05 with a
Bonferroni correction over those tests. Without repeats, inert means dead.

A pre_tune phase's parameters are judged the same way on the phase's own table (every combo
it measured, median per phase case: ``pre_tune[i].table`` in the profile); profiles written
before the table existed hold only the phase winner, and those parameters are reported as
not analysed.

Pure: takes the profile's records, returns frozen records; harness/analysis/sensitivity_format.py
renders them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from benchspace.harness.analysis.noise import noise_floor
from benchspace.harness.analysis.sensitivity_report import (
    DEFAULT_NOISE_PCT,
    BenchReport,
    ParamReport,
    SensitivityReport,
)
from benchspace.harness.analysis.slices import (
    INERT_ALPHA,
    SliceRow,
    attempted,
    inert_p,
    param_slices,
    percentile,
    slice_rows,
    slice_spread,
    tuned_names,
    value_stats,
    verdict_of,
    winners,
)
from benchspace.harness.plan import ParamValue
from benchspace.harness.profiles.model import BenchResult, PreTunePhaseResult, Profile


def _param_report(
    bench: str,
    name: str,
    rows: Sequence[SliceRow],
    *,
    others: Sequence[str],
    direction: str,
    floor: float,
    winners: Mapping[int, SliceRow],
    failed: Mapping[tuple[str, object], ParamValue],
    case_index: Mapping[int, int],
    env_var: str | None = None,
    pre_tune: int | None = None,
) -> ParamReport:
    slices = param_slices(rows, name, others, direction)
    spreads = tuple(slice_spread([r.value for r in g.values()], direction) for g in slices)
    verdict = verdict_of(spreads, floor)
    inert, test, p = False, "", None
    if verdict in ("dead", "flat"):
        p = inert_p(slices)
        if p is None:
            test, inert = "none (no repeats)", verdict == "dead"
        else:
            test, inert = "kruskal-wallis", p >= INERT_ALPHA
    return ParamReport(
        bench=bench,
        param=name,
        env_var=env_var,
        spreads=spreads,
        median_pct=statistics.median(spreads) if spreads else None,
        p90_pct=percentile(spreads, 90) if spreads else None,
        max_pct=max(spreads) if spreads else None,
        verdict=verdict,
        inert=inert,
        inert_test=test,
        inert_p=p,
        values=value_stats(rows, name, direction, floor, winners, failed, case_index),
        pre_tune=pre_tune,
    )


def _phase_reports(
    bench: str, phase: PreTunePhaseResult, *, direction: str, floor: float
) -> list[ParamReport]:
    """Reports of a pre_tune phase's parameters from its table (every combo's median per
    phase case): the same slices, verdicts and never-winning values as a main parameter."""
    if phase.table is None:
        return []
    cases = phase.cases
    rows: list[SliceRow] = []
    for entry in phase.table:
        if entry.confirmed is False:
            continue  # a confirmed phase: the re-timed combinations, as for a main sweep
        for case, value in zip(cases, entry.values, strict=False):
            if value is not None and value > 0:
                rows.append(SliceRow(case=case, values=dict(entry.params), value=float(value)))
    best = winners(rows, direction)
    names = list(phase.params)
    return [
        _param_report(
            bench,
            name,
            rows,
            others=[o for o in names if o != name],
            direction=direction,
            floor=floor,
            winners=best,
            failed={},
            case_index={c: c for c in cases},
            pre_tune=phase.phase_index,
        )
        for name in names
    ]


def analyse_bench(
    result: BenchResult, *, noise_pct: float | None, fallback_pct: float
) -> BenchReport:
    """The sensitivity of every tuned parameter of one profile entry."""
    direction = result.direction
    rows = slice_rows(result)
    floor = noise_floor(result.measurements, noise_pct=noise_pct, fallback_pct=fallback_pct)
    env_spec = result.env_spec
    pre_tuned = result.pre_tuned
    case_index = {case: case for case in dict.fromkeys(row.case for row in rows)}
    best_rows = winners(rows, direction)
    names = [n for n in tuned_names(rows) if n not in pre_tuned]
    bench = result.bench
    params = [
        _param_report(
            bench,
            name,
            rows,
            others=[o for o in names if o != name] + list(pre_tuned),
            direction=direction,
            floor=floor.pct,
            winners=best_rows,
            failed=attempted(result, name),
            case_index=case_index,
            env_var=env_spec.get(name),
        )
        for name in names
    ]
    for phase in result.pre_tune:
        params.extend(_phase_reports(bench, phase, direction=direction, floor=floor.pct))
    best = result.best
    return BenchReport(
        bench=result.bench,
        metric=result.metric,
        direction=direction,
        noise=floor,
        params=tuple(params),
        pre_tuned=pre_tuned,
        best_params=None if best is None else dict(best.params),
        measurements=len(rows),
        cases=tuple(sorted(case_index.values())),
    )


def analyse_profile(
    profile: Profile,
    *,
    source: str,
    noise_pct: float | None = None,
    fallback_pct: float = DEFAULT_NOISE_PCT,
) -> SensitivityReport:
    """Analyse every bench of an (upgraded) profile; `noise_pct` overrides the measured floor."""
    benches = tuple(
        analyse_bench(r, noise_pct=noise_pct, fallback_pct=fallback_pct)
        for r in profile.results.values()
    )
    return SensitivityReport(
        source=source,
        benches=benches,
        noise_option="auto" if noise_pct is None else f"{noise_pct:g}",
        fallback_pct=fallback_pct,
    )
