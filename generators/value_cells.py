"""Per value of a parameter, its best measurement in a case: what header choice and review
compare (pure; the rows come from the profile's records, harness/profiles/model.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchspace.harness.measurement import Value
from benchspace.harness.profiles.model import MeasurementRow
from benchspace.harness.profiles.scoring import better


@dataclass(frozen=True, kw_only=True, slots=True)
class ValueCell:
    """The best measurement of one parameter value in one case."""

    value: Value
    metric: float
    rel_error: float | None


def case_best(rows: Sequence[MeasurementRow], direction: str) -> float:
    """The best metric among a case's rows (there must be at least one, each with a value)."""
    values = [r.median for r in rows if r.median is not None]
    return max(values) if direction == "max" else min(values)


def value_cells(
    rows: Sequence[MeasurementRow],
    param: str,
    direction: str,
    convert: Callable[[object], Value],
) -> dict[Value, ValueCell]:
    """Per value of `param` (as `convert` normalises it), its best row; unset values skipped."""
    cells: dict[Value, ValueCell] = {}
    for row in rows:
        raw = row.param(param)
        if raw is None or row.median is None:
            continue
        value = convert(raw)
        current = cells.get(value)
        if current is None or better(row.median, current.metric, direction):
            cells[value] = ValueCell(value=value, metric=row.median, rel_error=row.rel_error)
    return cells
