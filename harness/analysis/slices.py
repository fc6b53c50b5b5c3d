"""Slices of a bench's rows (only one parameter varies in each), their spreads, the verdicts
on them, the inert test, and how each value of a parameter fared (pure)."""

from __future__ import annotations

import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchspace.harness.analysis.sensitivity_report import ValueStat, VerdictName
from benchspace.harness.plan import ParamValue
from benchspace.harness.profiles.model import BenchResult
from benchspace.harness.profiles.scoring import better, ratio
from benchspace.harness.values import same_key

INERT_ALPHA = 0.05
_MISSING = ("missing", None)
"""Value key of a parameter a measurement does not have (its case does not tune it)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SliceRow:
    """One measured configuration as the analysis sees it."""

    case: int
    values: Mapping[str, ParamValue]
    """Tuned parameter values (env ones included)."""
    value: float
    samples: tuple[float, ...] = ()


def slice_rows(result: BenchResult) -> list[SliceRow]:
    """The bench's measured rows whose value is a positive metric a ratio can be taken of.

    A row's parameters and samples are its record's own (read-only) objects, not copies: a
    profile of 10^6 rows is analysed in the memory its records take."""
    return [
        SliceRow(
            case=m.case_index,
            values=m.params,
            value=float(m.median),
            samples=_positive(m.samples),
        )
        for m in result.measurements
        if m.median is not None and m.median > 0
    ]


def _positive(samples: tuple[float, ...]) -> tuple[float, ...]:
    if all(isinstance(s, float) and s > 0 for s in samples):
        return samples
    return tuple(float(s) for s in samples if s > 0)


def excess_pct(value: float, best: float, direction: str) -> float:
    """How far (percent) `value` is behind `best`."""
    return 100.0 * (ratio(value, best, direction) - 1.0)


def slice_spread(values: Sequence[float], direction: str) -> float:
    """100 * (ratio(worst, best) - 1): how much worse the worst value is than the best."""
    best, worst = (max(values), min(values)) if direction == "max" else (min(values), max(values))
    return excess_pct(worst, best, direction)


def param_slices(
    rows: Sequence[SliceRow], param: str, others: Sequence[str], direction: str
) -> list[dict[tuple[str, object], SliceRow]]:
    """Groups of rows that differ only in `param`; per value, the best row."""
    groups: dict[tuple[object, ...], dict[tuple[str, object], SliceRow]] = defaultdict(dict)
    for row in rows:
        if param not in row.values:
            continue
        key = (
            row.case,
            *(same_key(row.values[o]) if o in row.values else _MISSING for o in others),
        )
        vkey = same_key(row.values[param])
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


def kruskal_p(groups: Mapping[tuple[str, object], Sequence[float]]) -> float:
    """The Kruskal-Wallis p-value of the groups (1.0 when they are all identical)."""
    from scipy.stats import kruskal

    with warnings.catch_warnings():
        # Identical samples everywhere make the statistic 0/0: no difference at all.
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(kruskal(*groups.values()).pvalue)
    return 1.0 if math.isnan(p) else p


def inert_p(slices: Sequence[Mapping[tuple[str, object], SliceRow]]) -> float | None:
    """Smallest Bonferroni-adjusted Kruskal-Wallis p-value (module doc); None without repeats."""
    pooled: dict[tuple[str, object], list[float]] = defaultdict(list)
    by_case: dict[int, dict[tuple[str, object], list[float]]] = defaultdict(
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
    return min(1.0, min(kruskal_p(g) for g in tests) * len(tests))


def verdict_of(spreads: Sequence[float], floor: float) -> VerdictName:
    """dead, flat, keep or untested, from the slices' spreads and the noise floor."""
    if not spreads:
        return "untested"
    if max(spreads) <= floor:
        return "dead"
    if statistics.median(spreads) <= floor:
        return "flat"
    return "keep"


def attempted(result: BenchResult, param: str) -> dict[tuple[str, object], ParamValue]:
    """Values of `param` in failed attempts, by value key."""
    found: dict[tuple[str, object], ParamValue] = {}
    for failure in result.failures:
        if param in failure.params:
            found.setdefault(same_key(failure.params[param]), failure.params[param])
    return found


def value_stats(
    rows: Sequence[SliceRow],
    param: str,
    direction: str,
    floor: float,
    winners: Mapping[int, SliceRow],
    failed: Mapping[tuple[str, object], ParamValue],
    case_index: Mapping[int, int],
) -> tuple[ValueStat, ...]:
    """How each value of `param` fared against the cases' bests (wins, excess, never wins)."""
    best_in: dict[tuple[str, object], dict[int, float]] = defaultdict(dict)
    spelled: dict[tuple[str, object], ParamValue] = {}
    for row in rows:
        if param not in row.values:
            continue
        vkey: tuple[str, object] = same_key(row.values[param])
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
                if param in row.values and same_key(row.values[param]) == vkey
            )
        )
        excess = {
            case_index[case]: excess_pct(value, winners[case].value, direction)
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


def tuned_names(rows: Iterable[SliceRow]) -> list[str]:
    """Names of the tuned parameters, in the rows' order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.values))
    return list(names)


def winners(rows: Iterable[SliceRow], direction: str) -> dict[int, SliceRow]:
    """Per case, its best row (the first on ties)."""
    winners: dict[int, SliceRow] = {}
    for row in rows:
        current = winners.get(row.case)
        if current is None or better(row.value, current.value, direction):
            winners[row.case] = row
    return winners
