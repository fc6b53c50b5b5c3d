"""What the dispatch tree may test about a problem: M, N, K and features of the tile grid.

The selector's choice jumps where tiles stop dividing the problem or the tile count crosses
a wave of SMs, not only where M, N or K cross a size; boxes over M, N and K alone cannot follow
that. So besides the dimensions the tree may split on the padding of M and N to tile multiples
(``ceil(x / t) * t - x`` for t = 64, 128, 256), on the output-tile count of the common tiles
modulo the SM count (where in its last wave the grid ends), on the tile count itself and its
waves (``ceil(tiles / SMs)``), and on the sizes the selector's bandwidth features follow: the
output area ``M * N / 1024``, ``min(M, N)``, ``max(M, N)`` and ``M * N / (M + N)`` (the inverse
of the operand traffic per output element). Each feature is an integer function of (M, N, K)
with the same value in NumPy and in the generated C++ (for positive dimensions, in int64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchspace.evaluation.deploy.shape_sample import ShapeDomain, log2_edges

PAD_TILES = (64, 128, 256)
WAVE_TILES = ((128, 128), (128, 256), (64, 128), (256, 128), (64, 64))
GRID_TILES = (*WAVE_TILES, (128, 64), (64, 256))
"""Tiles whose output-tile count and wave count the tree may test."""
AREA_UNIT = 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeFeature:
    """A feature's name, its C++ expression over ``m``, ``n``, ``k``, and its split edges."""

    name: str
    cxx: str
    edges: tuple[int, ...]


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return np.asarray(-(-a // b), dtype=np.int64)


def integer_log_edges(low: int, high: int, per_octave: int) -> tuple[int, ...]:
    """Every integer in ``[low, min(high, 2 * per_octave))`` (where log steps are finer than
    one), then ``per_octave`` log-spaced distinct integers per octave below ``high``."""
    low = max(low, 1)
    small = set(range(low, min(high, 2 * per_octave)))
    steps = np.arange(0, int(np.ceil(np.log2(high / low) * per_octave)) + 1)
    raw = np.round(low * np.exp2(steps / per_octave)).astype(np.int64)
    return tuple(sorted(small | {int(v) for v in raw if low <= v < high}))


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
    for tm, tn in GRID_TILES:
        tiles = f"gemm_ceil_div(m, {tm}) * gemm_ceil_div(n, {tn})"
        most = -(-domain.high // tm) * -(-domain.high // tn)
        out.append(
            ShapeFeature(
                name=f"tiles{tm}x{tn}",
                cxx=tiles,
                edges=integer_log_edges(1, most, per_octave),
            )
        )
        out.append(
            ShapeFeature(
                name=f"waves{tm}x{tn}",
                cxx=f"gemm_ceil_div({tiles}, {sms})",
                edges=integer_log_edges(1, -(-most // sms), per_octave),
            )
        )
    low, high = domain.low, domain.high
    out += [
        ShapeFeature(
            name=f"M*N/{AREA_UNIT}",
            cxx=f"m * n / {AREA_UNIT}",
            edges=integer_log_edges(
                max(low * low // AREA_UNIT, 1), high * high // AREA_UNIT, per_octave
            ),
        ),
        ShapeFeature(name="min(M,N)", cxx="(m < n ? m : n)", edges=size),
        ShapeFeature(name="max(M,N)", cxx="(m < n ? n : m)", edges=size),
        ShapeFeature(
            name="M*N/(M+N)",
            cxx="m * n / (m + n)",
            edges=integer_log_edges(max(low // 2, 1), high // 2, per_octave),
        ),
    ]
    return tuple(out)


def feature_matrix(shapes: np.ndarray, sms: int) -> np.ndarray:
    """One row per shape, one column per feature of :func:`shape_features`."""
    s = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
    m, n, k = s[:, 0], s[:, 1], s[:, 2]
    columns = [m, n, k]
    for x in (m, n):
        columns += [_ceil_div(x, t) * t - x for t in PAD_TILES]
    columns += [(_ceil_div(m, tm) * _ceil_div(n, tn)) % sms for tm, tn in WAVE_TILES]
    for tm, tn in GRID_TILES:
        tiles = _ceil_div(m, tm) * _ceil_div(n, tn)
        columns += [tiles, _ceil_div(tiles, sms)]
    columns += [m * n // AREA_UNIT, np.minimum(m, n), np.maximum(m, n), m * n // (m + n)]
    return np.stack(columns, axis=1).astype(np.int64)
