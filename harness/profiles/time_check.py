"""A profile's times checked as they are read: zero or negative cannot be a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchspace.harness.errors import ProfileError, json_path
from benchspace.harness.profiles.fields import FieldReader, Where, shown
from benchspace.harness.profiles.model import MeasurementRow


def positive_times(
    reader: FieldReader,
    raw: Mapping[str, object],
    where: Where,
    metric: str,
    tables: Mapping[str, Sequence[MeasurementRow | None]],
    version: int,
) -> None:
    """Refuse a time that is zero or negative: it would win every comparison (as ``tune``
    refuses it from a benchmark's output, harness/execute/metric_check.py)."""
    for table, rows in tables.items():
        for i, row in enumerate(rows):
            if row is None or row.median is None or row.median > 0:
                continue
            entry = reader.array(raw.get(table), (*where, table))[i]
            # (a measurement's data is freed once read: every version but BatchLAS's has a
            # median)
            has_median = "median" in entry if isinstance(entry, Mapping) else version > 0
            key = "median" if has_median else "value"
            raise ProfileError(
                f"{reader.source}: {json_path(*where, table, i, key)}: {shown(row.median)} "
                f"cannot be a time ({metric!r} under direction min); re-run `benchspace "
                "tune --rerun`, or delete the row"
            )
