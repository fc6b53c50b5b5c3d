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
  aggregate): twice the median of ``spread / value``;
* else unknown, and the caller's fallback (``--noise``, default 1 %) is used and said so.

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

Pure: takes the profile as data, returns frozen records; rendering lives in the CLI.
Also runs as a script: ``python harness/sensitivity.py PROFILE`` (BatchLAS's usage).
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and not __package__:
    # Run as a script: import the package from the repository, not harness/ itself, so that
    # harness/profile.py never shadows the standard library's profile module.
    from pathlib import Path as _Path

    sys.path[0] = str(_Path(__file__).resolve().parent.parent)

import functools
import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.plan import ParamValue
from harness.profile import better, ratio

VerdictName = Literal["dead", "flat", "keep", "untested"]

DEFAULT_NOISE_PCT = 1.0
INERT_ALPHA = 0.05
_MISSING = ("missing", None)
"""Value key of a parameter a measurement does not have (its case does not tune it)."""


@dataclass(frozen=True, kw_only=True)
class NoiseFloor:
    """The spread below which a difference is noise, in percent, and where it came from."""

    pct: float
    source: str
    """``repeats``, ``reported spread``, ``flag`` or ``unknown`` (the flag's value is used)."""
    measured_pct: float | None
    """What the profile itself says (None when it says nothing), even when a flag overrides."""
    basis: int
    """How many measurements the measured figure pools."""


@dataclass(frozen=True, kw_only=True)
class ValueStat:
    """How one value of a parameter fared against the cases' bests."""

    value: ParamValue
    wins: tuple[int, ...]
    """Indices of the cases whose best configuration has this value."""
    excess_by_case: Mapping[int, float]
    """Per case it was measured in: how far (percent) its best configuration there is behind
    the case's best (0 where it wins)."""
    failed_only: bool
    """Attempted, but every attempt failed."""
    never_wins: bool

    @property
    def excess_pct(self) -> float | None:
        """The smallest excess over a case's best (None when never measured)."""
        return min(self.excess_by_case.values()) if self.excess_by_case else None

    @property
    def excess_case(self) -> int | None:
        """The case where the value came closest to the best."""
        if not self.excess_by_case:
            return None
        return min(self.excess_by_case, key=lambda c: (self.excess_by_case[c], c))


@dataclass(frozen=True, kw_only=True)
class ParamReport:
    """The sensitivity of one bench parameter."""

    bench: str
    param: str
    env_var: str | None
    """The environment variable when the parameter is passed as one."""
    spreads: tuple[float, ...]
    """Per-slice spreads in percent, in slice order."""
    median_pct: float | None
    p90_pct: float | None
    max_pct: float | None
    verdict: VerdictName
    inert: bool
    inert_test: str
    """``kruskal-wallis`` or ``none (no repeats)``; empty when the parameter is not inert-able."""
    inert_p: float | None
    """Smallest Bonferroni-adjusted p-value of the pooled and per-case tests (None: untested)."""
    values: tuple[ValueStat, ...]
    pre_tune: int | None = None
    """The pre_tune phase that sets this parameter (judged on the phase's own table of
    measurements and cases); None for a main-sweep parameter."""

    @property
    def slices(self) -> int:
        """Number of slices with at least two values."""
        return len(self.spreads)

    @property
    def never_winning(self) -> tuple[ParamValue, ...]:
        """Values that won no case and never came within noise of a case's best."""
        return tuple(v.value for v in self.values if v.never_wins)

    def winner(self, case_index: int) -> ParamValue:
        """This parameter's value in the case's best configuration (first on ties)."""
        for stat in self.values:
            if case_index in stat.wins:
                return stat.value
        raise KeyError(case_index)


@dataclass(frozen=True, kw_only=True)
class BenchReport:
    """Sensitivity of every tuned parameter of one bench."""

    bench: str
    metric: str
    direction: str
    noise: NoiseFloor
    params: tuple[ParamReport, ...]
    pre_tuned: tuple[str, ...]
    """Parameters set by pre_tune phases (analysed when the profile has the phase's table)."""
    best_params: Mapping[str, ParamValue] | None
    """The cross-case best configuration, when the profile has one."""
    measurements: int
    cases: tuple[int, ...]

    @property
    def unanalysed(self) -> tuple[str, ...]:
        """Pre-tuned parameters without a report (older profiles hold only the winner)."""
        analysed = {p.param for p in self.params}
        return tuple(n for n in self.pre_tuned if n not in analysed)

    def param(self, name: str) -> ParamReport:
        """The report of parameter `name`."""
        for report in self.params:
            if report.param == name:
                return report
        raise KeyError(name)


@dataclass(frozen=True, kw_only=True)
class SensitivityReport:
    """The analysis of a whole profile."""

    source: str
    benches: tuple[BenchReport, ...]
    noise_option: str
    """``auto`` or the percentage given."""
    fallback_pct: float = DEFAULT_NOISE_PCT

    def bench(self, name: str) -> BenchReport:
        """The report of bench `name`."""
        for report in self.benches:
            if report.bench == name:
                return report
        raise KeyError(name)


# ---------------------------------------------------------------- rows of a profile entry


@dataclass(frozen=True, kw_only=True)
class _Row:
    case: object
    """The case's identity: its index, or its fixed values for BatchLAS profiles."""
    values: Mapping[str, ParamValue]
    """Tuned parameter values (env ones included)."""
    value: float
    samples: tuple[float, ...] = ()


def value_key(value: object) -> tuple[str, object]:
    """A hashable key that keeps 1, 1.0 together and 1, True apart (as the space does)."""
    if value is None:
        return ("null", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    return ("string", value)


def _env_value(text: object) -> ParamValue:
    if text is None or isinstance(text, bool | int | float):
        return text
    word = str(text)
    try:
        return int(word)
    except ValueError:
        try:
            return float(word)
        except ValueError:
            return word


def _case_keys(result: Mapping[str, Any]) -> set[str]:
    keys: set[str] = set()
    for entry in result.get("per_case_best") or []:
        keys.update((entry.get("fixed") or {}).keys())
    return keys


def _params_of(
    result: Mapping[str, Any], m: Mapping[str, Any], case_keys: set[str]
) -> dict[str, Any]:
    """A measurement's tuned values; BatchLAS measurements only have args and env."""
    if "params" in m:
        return dict(m["params"])
    names = [a for a in result.get("arg_spec") or [] if a not in case_keys]
    args = dict(zip(result.get("arg_spec") or [], m.get("args") or [], strict=False))
    params: dict[str, Any] = {name: _env_value(args[name]) for name in names if name in args}
    env = m.get("env") or {}
    for param, variable in (result.get("env_spec") or {}).items():
        params[param] = _env_value(env.get(variable))
    return params


def _case_of(m: Mapping[str, Any], result: Mapping[str, Any], case_keys: set[str]) -> object:
    if "case_index" in m:
        return int(m["case_index"])
    args = dict(zip(result.get("arg_spec") or [], m.get("args") or [], strict=False))
    return tuple(sorted((k, str(args.get(k))) for k in case_keys))


def _rows(result: Mapping[str, Any]) -> list[_Row]:
    case_keys = _case_keys(result)
    rows = []
    for m in result.get("measurements") or []:
        value = m.get("median", m.get("value"))
        if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
            continue  # failed, or not a positive metric a ratio can be taken of
        samples = tuple(
            float(s) for s in m.get("samples") or [] if isinstance(s, int | float) and s > 0
        )
        rows.append(
            _Row(
                case=_case_of(m, result, case_keys),
                values=_params_of(result, m, case_keys),
                value=float(value),
                samples=samples,
            )
        )
    return rows


# ---------------------------------------------------------------- the noise floor


def _chi_median_factor(n: int) -> float:
    """Median of the sample stdev over sigma for n normal samples."""
    from scipy.stats import chi2

    df = n - 1
    return math.sqrt(float(chi2.ppf(0.5, df)) / df)


@functools.cache
def median_sd(n: int) -> float:
    """Standard deviation of the median of ``n`` standard normal samples (exact for n <= 2,
    else from 400,000 seeded draws: deterministic, within 0.2 %)."""
    if n <= 2:
        return 1.0 / math.sqrt(n)
    import numpy as np

    draws = np.random.default_rng(20261129).standard_normal((400_000, n))
    return float(np.median(draws, axis=1).std())


def measured_noise(measurements: Sequence[Mapping[str, Any]]) -> tuple[float | None, str, int]:
    """(noise floor in percent, its source, measurements pooled) from a bench's measurements."""
    rel: list[float] = []
    repeats: list[int] = []
    for m in measurements:
        n, stdev, median = m.get("n"), m.get("stdev"), m.get("median", m.get("value"))
        if isinstance(n, int) and n >= 2 and isinstance(stdev, int | float) and median:
            rel.append(float(stdev) / abs(float(median)) / _chi_median_factor(n))
            repeats.append(n)
    if rel:
        n = round(statistics.median(repeats))
        se_diff = math.sqrt(2.0) * median_sd(n) * statistics.median(rel)
        return 200.0 * se_diff, "repeats", len(rel)
    reported = [
        float(m["spread"]) / abs(float(m["value"]))
        for m in measurements
        if isinstance(m.get("spread"), int | float)
        and isinstance(m.get("value"), int | float)
        and m["value"]
    ]
    if reported:
        return 200.0 * statistics.median(reported), "reported spread", len(reported)
    return None, "unknown", 0


def noise_floor(
    measurements: Sequence[Mapping[str, Any]], *, noise_pct: float | None, fallback_pct: float
) -> NoiseFloor:
    """The floor used for verdicts: `noise_pct` when given, else measured, else the fallback."""
    measured, source, basis = measured_noise(measurements)
    if noise_pct is not None:
        return NoiseFloor(pct=noise_pct, source="flag", measured_pct=measured, basis=basis)
    if measured is None:
        return NoiseFloor(pct=fallback_pct, source="unknown", measured_pct=None, basis=0)
    return NoiseFloor(pct=measured, source=source, measured_pct=measured, basis=basis)


# ---------------------------------------------------------------- slices and verdicts


def _excess_pct(value: float, best: float, direction: str) -> float:
    return 100.0 * (ratio(value, best, direction) - 1.0)


def _spread(values: Sequence[float], direction: str) -> float:
    """100 * (ratio(worst, best) - 1): how much worse the worst value is than the best."""
    best, worst = (max(values), min(values)) if direction == "max" else (min(values), max(values))
    return _excess_pct(worst, best, direction)


def _slices(
    rows: Sequence[_Row], param: str, others: Sequence[str], direction: str
) -> list[dict[tuple[str, object], _Row]]:
    """Groups of rows that differ only in `param`; per value, the best row."""
    groups: dict[tuple[object, ...], dict[tuple[str, object], _Row]] = defaultdict(dict)
    for row in rows:
        if param not in row.values:
            continue
        key = (
            row.case,
            *(value_key(row.values[o]) if o in row.values else _MISSING for o in others),
        )
        vkey = value_key(row.values[param])
        current = groups[key].get(vkey)
        if current is None or better(row.value, current.value, direction):
            groups[key][vkey] = row
    return [g for g in groups.values() if len(g) >= 2]


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method)."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _kruskal_p(groups: Mapping[tuple[str, object], Sequence[float]]) -> float:
    from scipy.stats import kruskal

    with warnings.catch_warnings():
        # Identical samples everywhere make the statistic 0/0: no difference at all.
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(kruskal(*groups.values()).pvalue)
    return 1.0 if math.isnan(p) else p


def _inert_p(slices: Sequence[Mapping[tuple[str, object], _Row]]) -> float | None:
    """Smallest Bonferroni-adjusted Kruskal-Wallis p-value (module doc); None without repeats."""
    pooled: dict[tuple[str, object], list[float]] = defaultdict(list)
    by_case: dict[object, dict[tuple[str, object], list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for group in slices:
        if any(len(row.samples) < 2 for row in group.values()):
            continue
        logs = [math.log(s) for row in group.values() for s in row.samples]
        center = statistics.fmean(logs)
        case = next(iter(group.values())).case
        for vkey, row in group.items():
            aligned = [math.log(s) - center for s in row.samples]
            by_case[case][vkey].extend(aligned)
            pooled[vkey].extend(aligned)
    tests = [g for g in (pooled, *by_case.values()) if len(g) >= 2]
    if len(by_case) == 1:
        tests = tests[:1]  # one case: the pooled test is that case's test
    if not tests:
        return None
    return min(1.0, min(_kruskal_p(g) for g in tests) * len(tests))


def _verdict(spreads: Sequence[float], floor: float) -> VerdictName:
    if not spreads:
        return "untested"
    if max(spreads) <= floor:
        return "dead"
    if statistics.median(spreads) <= floor:
        return "flat"
    return "keep"


def _attempted(result: Mapping[str, Any], param: str) -> dict[tuple[str, object], ParamValue]:
    """Values of `param` in failed attempts, by value key."""
    found: dict[tuple[str, object], ParamValue] = {}
    for entry in result.get("failures") or []:
        params = entry.get("params") or {}
        if param in params:
            found.setdefault(value_key(params[param]), params[param])
    return found


def _value_stats(
    rows: Sequence[_Row],
    param: str,
    direction: str,
    floor: float,
    winners: Mapping[object, _Row],
    failed: Mapping[tuple[str, object], ParamValue],
    case_index: Mapping[object, int],
) -> tuple[ValueStat, ...]:
    best_in: dict[tuple[str, object], dict[object, float]] = defaultdict(dict)
    spelled: dict[tuple[str, object], ParamValue] = {}
    for row in rows:
        if param not in row.values:
            continue
        vkey = value_key(row.values[param])
        spelled.setdefault(vkey, row.values[param])
        current = best_in[vkey].get(row.case)
        if current is None or better(row.value, current, direction):
            best_in[vkey][row.case] = row.value
    for vkey, value in failed.items():
        spelled.setdefault(vkey, value)
    stats = []
    for vkey in sorted(spelled, key=lambda k: (k[0], str(k[1]) if k[0] == "string" else k[1])):
        wins = tuple(
            sorted(
                case_index[case]
                for case, row in winners.items()
                if param in row.values and value_key(row.values[param]) == vkey
            )
        )
        excess = {
            case_index[case]: _excess_pct(value, winners[case].value, direction)
            for case, value in best_in.get(vkey, {}).items()
        }
        never = not wins and all(e > floor for e in excess.values())
        stats.append(
            ValueStat(
                value=spelled[vkey],
                wins=wins,
                excess_by_case=dict(sorted(excess.items())),
                failed_only=vkey not in best_in,
                never_wins=never,
            )
        )
    return tuple(stats)


def _tuned_names(rows: Iterable[_Row]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.values))
    return list(names)


def _winners(rows: Iterable[_Row], direction: str) -> dict[object, _Row]:
    """Per case, its best row (the first on ties)."""
    winners: dict[object, _Row] = {}
    for row in rows:
        current = winners.get(row.case)
        if current is None or better(row.value, current.value, direction):
            winners[row.case] = row
    return winners


def _param_report(
    bench: str,
    name: str,
    rows: Sequence[_Row],
    *,
    others: Sequence[str],
    direction: str,
    floor: float,
    winners: Mapping[object, _Row],
    failed: Mapping[tuple[str, object], ParamValue],
    case_index: Mapping[object, int],
    env_var: str | None = None,
    pre_tune: int | None = None,
) -> ParamReport:
    slices = _slices(rows, name, others, direction)
    spreads = tuple(_spread([r.value for r in g.values()], direction) for g in slices)
    verdict = _verdict(spreads, floor)
    inert, test, p = False, "", None
    if verdict in ("dead", "flat"):
        p = _inert_p(slices)
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
        values=_value_stats(rows, name, direction, floor, winners, failed, case_index),
        pre_tune=pre_tune,
    )


def _phase_reports(
    bench: str, phase: Mapping[str, Any], *, direction: str, floor: float
) -> list[ParamReport]:
    """Reports of a pre_tune phase's parameters from its table (every combo's median per
    phase case): the same slices, verdicts and never-winning values as a main parameter."""
    table, cases = phase.get("table"), phase.get("cases")
    if not isinstance(table, list) or not isinstance(cases, list):
        return []
    rows: list[_Row] = []
    for entry in table:
        for case, value in zip(cases, entry.get("values") or [], strict=False):
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                rows.append(_Row(case=int(case), values=dict(entry["params"]), value=float(value)))
    winners = _winners(rows, direction)
    names = list(phase.get("params") or {})
    index = phase.get("phase_index")
    return [
        _param_report(
            bench,
            name,
            rows,
            others=[o for o in names if o != name],
            direction=direction,
            floor=floor,
            winners=winners,
            failed={},
            case_index={int(c): int(c) for c in cases},
            pre_tune=index if isinstance(index, int) else 0,
        )
        for name in names
    ]


def analyse_bench(
    result: Mapping[str, Any], *, noise_pct: float | None, fallback_pct: float
) -> BenchReport:
    """The sensitivity of every tuned parameter of one profile entry."""
    direction = str(result.get("direction") or "min")
    rows = _rows(result)
    measurements = [m for m in result.get("measurements") or [] if isinstance(m, Mapping)]
    floor = noise_floor(measurements, noise_pct=noise_pct, fallback_pct=fallback_pct)
    env_spec = dict(result.get("env_spec") or {})
    pre_tuned = tuple(
        dict.fromkeys(
            name for phase in result.get("pre_tune") or [] for name in phase.get("params") or {}
        )
    )
    cases = list(dict.fromkeys(row.case for row in rows))
    case_index = {case: case if isinstance(case, int) else i for i, case in enumerate(cases)}
    winners = _winners(rows, direction)
    names = [n for n in _tuned_names(rows) if n not in pre_tuned]
    bench = str(result.get("bench"))
    params = [
        _param_report(
            bench,
            name,
            rows,
            others=[o for o in names if o != name] + list(pre_tuned),
            direction=direction,
            floor=floor.pct,
            winners=winners,
            failed=_attempted(result, name),
            case_index=case_index,
            env_var=env_spec.get(name),
        )
        for name in names
    ]
    for phase in result.get("pre_tune") or []:
        params.extend(_phase_reports(bench, phase, direction=direction, floor=floor.pct))
    best = result.get("best")
    return BenchReport(
        bench=str(result.get("bench")),
        metric=str(result.get("metric") or ""),
        direction=direction,
        noise=floor,
        params=tuple(params),
        pre_tuned=pre_tuned,
        best_params=dict(best["params"]) if isinstance(best, Mapping) else None,
        measurements=len(rows),
        cases=tuple(sorted(case_index.values())),
    )


def analyse_profile(
    profile: Mapping[str, Any],
    *,
    source: str,
    noise_pct: float | None = None,
    fallback_pct: float = DEFAULT_NOISE_PCT,
) -> SensitivityReport:
    """Analyse every bench of an (upgraded) profile; `noise_pct` overrides the measured floor."""
    benches = tuple(
        analyse_bench(r, noise_pct=noise_pct, fallback_pct=fallback_pct)
        for r in profile.get("results") or []
    )
    return SensitivityReport(
        source=source,
        benches=benches,
        noise_option="auto" if noise_pct is None else f"{noise_pct:g}",
        fallback_pct=fallback_pct,
    )


if __name__ == "__main__":
    from harness.cli import main

    sys.exit(main(["sensitivity", *sys.argv[1:]]))
