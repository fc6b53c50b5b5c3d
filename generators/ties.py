"""A race's tie keeps the incumbent (pure): when every case deciding a bucket ended as a tie
(harness/sweep/decide.py) and the incumbent's value is among the tied configurations there,
the bucket keeps it, however the point estimates of the tied configurations fell."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchspace.harness.profiles.model import BenchResult
from benchspace.harness.spaces.model import Case
from benchspace.harness.values import Value


def tie_keeps(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    incumbent: Value,
    convert: Callable[[object], Value],
) -> bool:
    """Whether the race tied the incumbent with the winner in every case of the bucket."""
    bests = {row.case_index: row for row in result.per_case_best}
    if not cases:
        return False
    for case in cases:
        row = bests.get(case.index)
        if row is None or row.decided is None or row.decided.decided != "tie":
            return False
        tied = {convert(t[param]) for t in row.decided.tied if t.get(param) is not None}
        if incumbent not in tied:
            return False
    return True
