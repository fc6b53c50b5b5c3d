"""A ranked shape as the lines ``benchspace cutlass select`` prints: the pick, then the top list."""

from __future__ import annotations

import pandas as pd

from benchspace.evaluation.deploy.select import CublasAdvice


def render_ranking(
    shape: tuple[int, int, int],
    ranked: pd.DataFrame,
    selector: str,
    model: str,
    top: int,
    cublas: CublasAdvice | None = None,
) -> list[str]:
    """The chosen kernel and its knobs (or ``cublas``), then the ``top`` CUTLASS candidates."""
    m, n, k = shape
    best = ranked.iloc[0]
    lines = [
        f"{m}x{n}x{k}: {best['kernel']} (raster {best['raster']}, swizzle "
        f"{best['swizzle']}) by {selector} of {model}"
    ]
    if cublas is not None:
        at = "x".join(map(str, cublas.at))
        verdict = "dispatch to cublas instead" if cublas.use else "the CUTLASS pick stays"
        lines.append(
            f"  cublas: at {at} (log2 distance {cublas.distance:.2f}) cuBLAS ran "
            f"{cublas.cublas_tflops:.1f} TFLOP/s against the pick's {cublas.pick_tflops:.1f}, "
            f"timed in the same rounds: {verdict}"
        )
    width = len(str(max(top, 1)))
    for i, row in enumerate(ranked.head(max(top, 1)).itertuples(index=False), start=1):
        lines.append(
            f"  {i:>{width}}. {row.score:+.4f}  {row.kernel}  raster {row.raster} swizzle "
            f"{row.swizzle}  (static score {row.static_score:.3f})"
        )
    return lines
