"""The within-group correlation table as ``benchspace cutlass correlation`` prints it."""

from __future__ import annotations

import numpy as np
import pandas as pd

CORRELATION_HEADER = ("feature", "rho", "mean rho_g", "median rho_g", "rho_g > 0", "groups")


def _signed(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:+.3f}"


def _share(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{100 * x:.0f}%"


def render_correlation(table: pd.DataFrame, title: str, limit: int | None = None) -> list[str]:
    """``title``, then one aligned row per feature of a
    :func:`~evaluation.study.correlation.correlation_table` (strongest mean rho_g first)."""
    shown = table if limit is None else table.head(limit)
    rows = [
        [
            str(r["feature"]),
            _signed(float(r["global_rho"])),
            _signed(float(r["mean_rho_g"])),
            _signed(float(r["median_rho_g"])),
            _share(float(r["share_positive"])),
            str(int(r["groups"])),
        ]
        for r in shown.to_dict(orient="records")
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(CORRELATION_HEADER)]

    def line(cells: list[str] | tuple[str, ...]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs)

    return [title, line(CORRELATION_HEADER), *(line(r) for r in rows)]
