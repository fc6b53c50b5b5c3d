"""What the dispatch tree may test about a problem: M, N, K and a few quantisation features.

The selector's choice jumps where tiles stop dividing the problem or the tile count crosses
a wave of SMs, not only where M, N or K cross a size; boxes over M, N and K alone cannot follow
that. So besides the dimensions the tree may split on the padding of M and N to tile multiples
(``ceil(x / t) * t - x`` for t = 64, 128, 256) and on the output-tile count of the common tiles
modulo the SM count (where in its last wave the grid ends). Each feature is an integer
function of (M, N, K) with the same value in NumPy and in the generated C++ (for positive
dimensions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation.deploy.shape_sample import ShapeDomain, log2_edges

PAD_TILES = (64, 128, 256)
WAVE_TILES = ((128, 128), (128, 256), (64, 128), (256, 128), (64, 64))


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeFeature:
    """A feature's name, its C++ expression over ``m``, ``n``, ``k``, and its split edges."""

    name: str
    cxx: str
    edges: tuple[int, ...]


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return np.asarray(-(-a // b), dtype=np.int64)


def shape_features(domain: ShapeDomain, sms: int, per_octave: int = 4) -> tuple[ShapeFeature, ...]:
    """The features, in the order :func:`feature_matrix` computes them."""
    size = tuple(int(e) for e in log2_edges(domain, per_octave))
    out = [ShapeFeature(name=d, cxx=d.lower(), edges=size) for d in ("M", "N", "K")]
    for dim in ("M", "N"):
        x = dim.lower()
        for t in PAD_TILES:
            out.append(
                ShapeFeature(
                    name=f"pad{t}({dim})",
                    cxx=f"gemm_ceil_div({x}, {t}) * {t} - {x}",
                    edges=tuple(range(0, t, max(domain.align, 1)))[:-1] or (0,),
                )
            )
    for tm, tn in WAVE_TILES:
        out.append(
            ShapeFeature(
                name=f"tiles{tm}x{tn}%{sms}",
                cxx=f"(gemm_ceil_div(m, {tm}) * gemm_ceil_div(n, {tn})) % {sms}",
                edges=tuple(range(3, sms - 1, 4)),
            )
        )
    return tuple(out)


def feature_matrix(shapes: np.ndarray, sms: int) -> np.ndarray:
    """One row per shape, one column per feature of :func:`shape_features`."""
    s = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
    m, n, k = s[:, 0], s[:, 1], s[:, 2]
    columns = [m, n, k]
    for x in (m, n):
        columns += [_ceil_div(x, t) * t - x for t in PAD_TILES]
    columns += [(_ceil_div(m, tm) * _ceil_div(n, tn)) % sms for tm, tn in WAVE_TILES]
    return np.stack(columns, axis=1).astype(np.int64)
