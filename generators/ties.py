"""How a race's verdicts settle a bucket (pure), so that noise cannot flip a value the
statistics did not separate (harness/sweep/decide.py).

Per case of the bucket, the configurations the verdict left standing are the tied ones
(``tie``: shown within the margin of the winner either way), the unbeaten ones (``cap``: none
of them beaten when the race or the confirmation ended) or the winner alone (``separated``).
The values of the bucket's parameter standing in every case are the bucket's unbeaten values:

- the incumbent among them stays (it was not beaten, however the point estimates fell);
- else, when every case ended ``tie``, the smallest of them (in the constant's order) is taken:
  a canonical choice among values shown equivalent, the same whichever measured fastest;
- else nothing is settled here (a ``cap`` without the incumbent: the best score wins, as the
  header model scores it; a ``cap``'s unbeaten set may hold values that merely lacked samples).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from benchspace.harness.profiles.model import BenchResult, MeasurementRow
from benchspace.harness.spaces.model import Case
from benchspace.harness.values import Value


def _standing(row: MeasurementRow) -> tuple[Mapping[str, object], ...]:
    v = row.decided
    assert v is not None
    if v.decided == "tie" and v.tied:
        return tuple(v.tied)
    if v.decided == "cap" and v.unbeaten:
        return tuple(v.unbeaten)
    return (row.params,)


def unbeaten_values(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    convert: Callable[[object], Value],
) -> tuple[set[Value], bool] | None:
    """The values of `param` standing in every case of the bucket, and whether every case
    ended ``tie``; None when a case has no verdict."""
    bests = {row.case_index: row for row in result.per_case_best}
    if not cases:
        return None
    values: set[Value] | None = None
    all_tie = True
    for case in cases:
        row = bests.get(case.index)
        if row is None or row.decided is None:
            return None
        all_tie &= row.decided.decided == "tie"
        mine = {convert(p[param]) for p in _standing(row) if p.get(param) is not None}
        values = mine if values is None else values & mine
    return (values or set()), all_tie


def settled(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    incumbent: Value | None,
    convert: Callable[[object], Value],
    order: Callable[[Value], object],
) -> Value | None:
    """The value the verdicts settle the bucket on (module docstring), or None."""
    found = unbeaten_values(result, cases, param, convert)
    if found is None:
        return None
    values, all_tie = found
    if incumbent is not None and incumbent in values:
        return incumbent
    if all_tie and values:
        return min(values, key=order)  # type: ignore[arg-type]
    return None


def tie_keeps(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    incumbent: Value,
    convert: Callable[[object], Value],
) -> bool:
    """Whether the race tied the incumbent with the winner in every case of the bucket."""
    found = unbeaten_values(result, cases, param, convert)
    return found is not None and found[1] and incumbent in found[0]


def unresolved(
    result: BenchResult, cases: Sequence[Case], param: str
) -> list[tuple[int, tuple[object, ...], float, int]]:
    """The bucket's cases whose cap left several values of `param` unbeaten at a resolution
    coarser than the margin (more rounds than it ran would resolve it: the profile's
    ``rounds_for_margin``): (case, the unbeaten values, what the cap resolves in per cent, the
    rounds the margin would take). A retune may stand by another of those values."""
    bests = {row.case_index: row for row in result.per_case_best}
    out: list[tuple[int, tuple[object, ...], float, int]] = []
    for case in cases:
        row = bests.get(case.index)
        v = None if row is None else row.decided
        if v is None or v.decided != "cap" or v.resolves_pct is None:
            continue
        if v.rounds_for_margin is None or v.rounds_for_margin <= v.rounds:
            continue
        values = tuple(dict.fromkeys(p.get(param) for p in v.unbeaten if p.get(param) is not None))
        if len(values) > 1:
            out.append((case.index, values, v.resolves_pct, v.rounds_for_margin))
    return out
