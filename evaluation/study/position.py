"""The position sentinel: one configuration timed twice in a driver run, at the first and the
last list position (``cutlass_bench --sentinel 1``); last/first near 1 says the list position
does not bias a timing.

Pure: from driver rows (a frame with ``sentinel`` and ``sentinel_ratio`` columns) to the
figures and the lines ``benchspace cutlass summary`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

TOLERANCE = 0.02
"""A run whose sentinel reads outside 1 ± this is flagged."""


@dataclass(frozen=True, kw_only=True)
class PositionCheck:
    """Sentinel last/first over driver runs (one ratio per driver process)."""

    runs: int
    geomean: float
    p5: float
    p95: float
    max: float
    outside: int
    """Runs outside 1 ± :data:`TOLERANCE`."""


def sentinel_ratios(rows: pd.DataFrame) -> pd.Series:
    """One last/first ratio per driver process: the ``first`` copies' ``sentinel_ratio``."""
    if "sentinel" not in rows or "sentinel_ratio" not in rows:
        return pd.Series(dtype=float)
    first = rows[rows["sentinel"].astype(str) == "first"]
    return pd.to_numeric(first["sentinel_ratio"], errors="coerce").dropna()


def position_check(rows: pd.DataFrame) -> PositionCheck | None:
    """The check over every run in ``rows``; None when no row is a sentinel's."""
    ratios = sentinel_ratios(rows)
    if ratios.empty:
        return None
    values = ratios.to_numpy(dtype=float)
    return PositionCheck(
        runs=len(values),
        geomean=float(np.exp(np.log(values).mean())),
        p5=float(np.quantile(values, 0.05)),
        p95=float(np.quantile(values, 0.95)),
        max=float(values.max()),
        outside=int((np.abs(values - 1) > TOLERANCE).sum()),
    )


def render_position(check: PositionCheck | None) -> list[str]:
    """``position check: sentinel last/first geomean X (p5 …, p95 …, max Y) over N runs``."""
    if check is None:
        return []
    line = (
        f"position check: sentinel last/first geomean {check.geomean:.4f} (p5 {check.p5:.4f}, "
        f"p95 {check.p95:.4f}, max {check.max:.4f}) over {check.runs} runs"
    )
    if check.outside:
        line += f"; warning: {check.outside} run(s) outside 1 ± {TOLERANCE:.0%}"
    return [line]


def warnings_for(ratios: dict[str, float]) -> list[str]:
    """One warning per run (named by its key) whose sentinel reads outside 1 ± 2 %."""
    return [
        f"warning: {name}: position sentinel last/first {value:.4f}, outside 1 ± "
        f"{TOLERANCE:.0%}; its timings depend on list position, re-run it"
        for name, value in sorted(ratios.items())
        if abs(value - 1) > TOLERANCE
    ]


def run_ratios(rows: pd.DataFrame, key: str = "run") -> dict[str, float]:
    """Per driver run (the ``key`` column): its sentinel's last/first (runs without one are
    left out)."""
    if key not in rows or "sentinel" not in rows or "sentinel_ratio" not in rows:
        return {}
    first = rows[rows["sentinel"].astype(str) == "first"]
    values = pd.to_numeric(first["sentinel_ratio"], errors="coerce")
    out = values.groupby(first[key].astype(str)).first().dropna()
    return {str(k): float(v) for k, v in out.items()}


def warning_line(ratios: dict[str, float], shown: int = 4) -> str | None:
    """One line naming the runs whose sentinel reads outside 1 ± 2 % (None: none does)."""
    bad = sorted(
        ((name, value) for name, value in ratios.items() if abs(value - 1) > TOLERANCE),
        key=lambda item: -abs(item[1] - 1),
    )
    if not bad:
        return None
    named = ", ".join(f"{name} {value:.4f}" for name, value in bad[:shown])
    more = f" and {len(bad) - shown} more" if len(bad) > shown else ""
    return (
        f"warning: position sentinel last/first outside 1 ± {TOLERANCE:.0%} in {len(bad)} of "
        f"{len(ratios)} runs ({named}{more}): their timings depend on list position; re-run them"
    )
