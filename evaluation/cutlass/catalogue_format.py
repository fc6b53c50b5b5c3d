"""The catalogue's counts as text or as a JSON document (``benchspace cutlass catalogue``)."""

from __future__ import annotations

from typing import Any


def render_counts(level: str, counts: dict[str, dict[str, int]], total: int) -> list[str]:
    """The text report: the total, then one block per field with its value counts."""
    lines = [f"level {level}: {total} kernels"]
    for field, values in counts.items():
        lines.append(f"{field}:")
        width = max(len(v) for v in values) if values else 0
        lines.extend(f"  {value:<{width}}  {count}" for value, count in values.items())
    return lines


def counts_document(level: str, counts: dict[str, dict[str, int]], total: int) -> dict[str, Any]:
    """The ``--json`` document: level, total and the counts by field."""
    return {"level": level, "total": total, "counts": counts}
