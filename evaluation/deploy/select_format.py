"""A ranked shape as the lines ``benchspace cutlass select`` prints: the pick, then the top list."""

from __future__ import annotations

import pandas as pd


def render_ranking(
    shape: tuple[int, int, int], ranked: pd.DataFrame, selector: str, model: str, top: int
) -> list[str]:
    """The chosen kernel and its knobs, then the ``top`` candidates with their scores."""
    m, n, k = shape
    best = ranked.iloc[0]
    lines = [
        f"{m}x{n}x{k}: {best['kernel']} (raster {best['raster']}, swizzle "
        f"{best['swizzle']}) by {selector} of {model}"
    ]
    width = len(str(max(top, 1)))
    for i, row in enumerate(ranked.head(max(top, 1)).itertuples(index=False), start=1):
        lines.append(
            f"  {i:>{width}}. {row.score:+.4f}  {row.kernel}  raster {row.raster} swizzle "
            f"{row.swizzle}  (static score {row.static_score:.3f})"
        )
    return lines
