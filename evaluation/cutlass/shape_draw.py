"""Draw GEMM shape sets for training and evaluation: interior, hull, neighbours, transitions.

The anchor grid is ``[32, 16384]^3`` with every dimension a multiple of 32. Training shapes
mix, in the selection study's proportions (297 : 172 : 92 : 32), log-uniform interior draws,
boundary extremes (tall, wide, skinny-K, deep-K, corners), one-dimension-at-a-time neighbours
of earlier shapes, and transition shapes near the bf16 roofline ridge and the LLC-residency
boundary of the chosen GPU. Evaluation shapes are distinct from training shapes and stratified
over geometry (square, tall, wide, skinny-K) and size (small, medium, large), then transitions.
Everything is deterministic for a seed.

Dataset v2's sets (:func:`build_layer_sets`) add real layer shapes, the GEMMs of transformer
blocks (``M`` tokens times common ``(N, K)`` projections: attention and MLP of 4k/5k/8k-wide
models), and keep only new shapes. Evaluation shapes: four draws of the 12 geometry x size
strata (seeds ``seed+0 .. seed+3``), transitions and held-out layer shapes; training shapes:
the mix above and the other layer shapes. No shape of an earlier set (``avoid``) and none
twice. Both lists are interleaved by construction so that any prefix spreads over the kinds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.shapes import (
    GEOMETRIES,
    HIGH,
    INTERIOR,
    LOW,
    MAX_VOLUME,
    MEDIUM,
    PROPORTIONS,
    SIZES,
    SMALL,
    STEP,
    Shape,
    ShapeError,
    ShapeSets,
    Triple,
    classify,
    geometry_tags,
    size_tag,
    snap,
)


def _lu(rng: np.random.Generator, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _ok(t: Triple, taken: set[Triple], max_volume: int) -> bool:
    return t not in taken and t[0] * t[1] * t[2] <= max_volume


def _allocate(total: int, weights: dict[str, int]) -> dict[str, int]:
    """Largest-remainder split of ``total`` in proportion to ``weights``."""
    whole = sum(weights.values())
    raw = {key: total * w / whole for key, w in weights.items()}
    counts = {key: int(v) for key, v in raw.items()}
    by_remainder = sorted(
        weights, key=lambda key: (-(raw[key] - counts[key]), list(weights).index(key))
    )
    for key in by_remainder[: total - sum(counts.values())]:
        counts[key] += 1
    return counts


def _interior(rng: np.random.Generator) -> Triple:
    lo, hi = INTERIOR
    return snap(_lu(rng, lo, hi)), snap(_lu(rng, lo, hi)), snap(_lu(rng, lo, hi))


def _boundary_drawers(max_volume: int) -> list[tuple[str, Callable[[np.random.Generator], Triple]]]:
    beyond = INTERIOR[1] + STEP

    def tall(rng: np.random.Generator) -> Triple:
        return snap(_lu(rng, beyond, HIGH)), snap(_lu(rng, LOW, 1024)), snap(_lu(rng, LOW, HIGH))

    def wide(rng: np.random.Generator) -> Triple:
        m, n, k = tall(rng)
        return n, m, k

    def skinny_k(rng: np.random.Generator) -> Triple:
        return snap(_lu(rng, 512, HIGH)), snap(_lu(rng, 512, HIGH)), snap(_lu(rng, LOW, 96))

    def deep_k(rng: np.random.Generator) -> Triple:
        return snap(_lu(rng, LOW, 2048)), snap(_lu(rng, LOW, 2048)), snap(_lu(rng, beyond, HIGH))

    corners = [
        (m, n, k)
        for m in (LOW, HIGH)
        for n in (LOW, HIGH)
        for k in (LOW, HIGH)
        if m * n * k <= max_volume
    ]

    def corner(rng: np.random.Generator) -> Triple:
        # Exact corners first (in random order), then shapes near a random corner.
        if corners:
            return corners.pop(int(rng.integers(len(corners))))
        near = [
            _lu(rng, LOW, 2 * LOW) if rng.random() < 0.5 else _lu(rng, beyond, HIGH) for _ in "MNK"
        ]
        return snap(near[0]), snap(near[1]), snap(near[2])

    return [
        ("tall", tall),
        ("wide", wide),
        ("skinny_k", skinny_k),
        ("deep_k", deep_k),
        ("corner", corner),
    ]


def _ridge(rng: np.random.Generator, hw: Hardware) -> Triple | None:
    # Solve MNK / (MK + KN + MN) = r for K, with r within 20% of the ridge.
    r = hw.ridge_flops_per_byte * _lu(rng, 0.8, 1.25)
    m, n = snap(_lu(rng, 256, HIGH)), snap(_lu(rng, 256, HIGH))
    denominator = m * n - r * (m + n)
    if denominator <= 0:
        return None
    k = r * m * n / denominator
    return (m, n, snap(k)) if LOW <= k <= HIGH else None


def _llc(rng: np.random.Generator, hw: Hardware) -> Triple | None:
    # Solve 2(MK + KN + MN) = LLC * j for K, with j within 25% of the capacity.
    target = hw.llc_bytes * _lu(rng, 0.8, 1.25) / 2
    m, n = snap(_lu(rng, 256, 8192)), snap(_lu(rng, 256, 8192))
    k = (target - m * n) / (m + n)
    return (m, n, snap(k)) if LOW <= k <= HIGH else None


def _neighbour(rng: np.random.Generator, parent: Triple, axis: int) -> Triple:
    factor = 2.0 if rng.random() < 0.5 else 0.5
    moved = list(parent)
    moved[axis] = snap(parent[axis] * factor)
    if moved[axis] == parent[axis]:
        moved[axis] = snap(parent[axis] / factor)
    return moved[0], moved[1], moved[2]


def _draw(
    draw: Callable[[], Triple | None], taken: set[Triple], max_volume: int, what: str
) -> Triple:
    for _ in range(10_000):
        shape = draw()
        if shape is not None and _ok(shape, taken, max_volume):
            taken.add(shape)
            return shape
    raise ShapeError(
        f"no new {what} shape found in 10000 draws; lower the count or raise the max volume"
    )


def training_shapes(
    count: int,
    hw: Hardware,
    seed: int = 0,
    max_volume: int = MAX_VOLUME,
    avoid: Sequence[Triple] = (),
) -> list[Shape]:
    """``count`` training shapes in the study's proportions, each tagged with its classes."""
    rng = np.random.default_rng([seed, 0])
    counts = _allocate(count, PROPORTIONS)
    taken: set[Triple] = set(avoid)
    out: list[Shape] = []
    for _ in range(counts["interior"]):
        t = _draw(partial(_interior, rng), taken, max_volume, "interior")
        out.append(Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw)))
    drawers = _boundary_drawers(max_volume)
    for i in range(counts["boundary"]):
        kind, drawer = drawers[i % len(drawers)]
        t = _draw(partial(drawer, rng), taken, max_volume, kind)
        out.append(Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw, ("boundary", kind))))
    parents = [(s.M, s.N, s.K) for s in out]
    order = rng.permutation(len(parents)) if parents else np.zeros(0, dtype=np.int64)
    for i in range(counts["neighbour"]):
        if not parents:
            break
        parent = parents[int(order[i % len(order)])]
        t = _draw(partial(_neighbour, rng, parent, i % 3), taken, max_volume, "neighbour")
        out.append(Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw, ("neighbour",))))
    for i in range(counts["transition"]):
        kind, fn = ("ridge", _ridge) if i % 2 == 0 else ("llc", _llc)
        t = _draw(partial(fn, rng, hw), taken, max_volume, kind)
        out.append(Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw, ("transition", kind))))
    return out


def _stratum(rng: np.random.Generator, geometry: str, size: str, max_volume: int) -> Triple:
    bounds = {"small": (2.0**24, SMALL), "medium": (SMALL, MEDIUM), "large": (MEDIUM, max_volume)}
    volume = _lu(rng, *bounds[size])
    ratio, jitter = _lu(rng, 8, 64), _lu(rng, 0.5, 2)
    if geometry == "square":
        base = volume ** (1 / 3)
        return snap(base * _lu(rng, 0.8, 1.25)), snap(base * _lu(rng, 0.8, 1.25)), snap(base)
    if geometry in ("tall", "wide"):
        small = (volume / (ratio * jitter)) ** (1 / 3)
        long, k = snap(small * ratio), snap(small * jitter)
        return (long, snap(small), k) if geometry == "tall" else (snap(small), long, k)
    side = (volume * ratio / jitter) ** (1 / 3)
    return snap(side), snap(side * jitter), snap(side / ratio)


def evaluation_shapes(
    count: int,
    hw: Hardware,
    seed: int = 0,
    max_volume: int = MAX_VOLUME,
    avoid: Sequence[Triple] = (),
) -> list[Shape]:
    """``count`` evaluation shapes, none in ``avoid``: the 12 geometry x size strata in an
    order whose every prefix spreads over both, then ridge and LLC transitions alternately."""
    rng = np.random.default_rng([seed, 1])
    taken: set[Triple] = set(avoid)
    out: list[Shape] = []
    for i in range(count):
        if i < len(GEOMETRIES) * len(SIZES):
            geometry, size = GEOMETRIES[i % 4], SIZES[(i + i // 4) % 3]

            def draw(g: str = geometry, s: str = size) -> Triple | None:
                t = _stratum(rng, g, s, max_volume)
                return t if g in geometry_tags(*t) and size_tag(*t) == s else None

            t = _draw(draw, taken, max_volume, f"{geometry} {size}")
            out.append(Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw, ("stratified",))))
        else:
            kind, fn = ("ridge", _ridge) if i % 2 == 0 else ("llc", _llc)
            t = _draw(partial(fn, rng, hw), taken, max_volume, kind)
            out.append(
                Shape(M=t[0], N=t[1], K=t[2], classes=classify(*t, hw, ("transition", kind)))
            )
    return out


def build_shape_sets(
    hw: Hardware, train: int, evaluate: int, seed: int = 0, max_volume: int = MAX_VOLUME
) -> ShapeSets:
    """Training and evaluation shapes for ``hw``; evaluation shapes avoid training shapes."""
    if train < 0 or evaluate < 0:
        raise ShapeError(f"shape counts must not be negative (train {train}, eval {evaluate})")
    if max_volume < LOW**3:
        raise ShapeError(f"max volume {max_volume} is below 32^3; raise it")
    training = training_shapes(train, hw, seed, max_volume)
    avoid = [(s.M, s.N, s.K) for s in training]
    evaluation = evaluation_shapes(evaluate, hw, seed, max_volume, avoid)
    return ShapeSets(
        gpu=hw.name,
        seed=seed,
        ridge_flops_per_byte=hw.ridge_flops_per_byte,
        llc_bytes=hw.llc_bytes,
        max_volume=max_volume,
        train=tuple(training),
        eval=tuple(evaluation),
    )


LAYER_NK: tuple[tuple[int, int], ...] = (
    (4096, 4096),
    (12288, 4096),
    (11008, 4096),
    (4096, 11008),
    (14336, 4096),
    (4096, 14336),
    (5120, 5120),
    (13824, 5120),
    (5120, 13824),
    (8192, 8192),
    (1024, 4096),
    (6144, 4096),
)
"""(N, K) of attention (QKV, output) and MLP (up, down) projections."""
LAYER_M: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
"""Tokens per GEMM, decode batches to long prefills (multiples of 8: column-major D, TMA)."""
EVAL_MAX_VOLUME = 2**37
"""Largest M*N*K of an evaluation or training shape (2 x 4096^3): sweeps stay in budget."""
TRAIN_MAX_VOLUME = EVAL_MAX_VOLUME


def layer_shapes(hw: Hardware, max_volume: int) -> list[Shape]:
    """Every layer shape up to ``max_volume``, M-major order."""
    return [
        Shape(M=m, N=n, K=k, classes=classify(m, n, k, hw, ("layer",)))
        for m in LAYER_M
        for n, k in LAYER_NK
        if m * n * k <= max_volume
    ]


def _interleave(groups: Sequence[Sequence[Shape]]) -> list[Shape]:
    out: list[Shape] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out


def _unique(shapes: Sequence[Shape], avoid: set[Triple]) -> list[Shape]:
    out = []
    for s in shapes:
        key = (s.M, s.N, s.K)
        if key not in avoid:
            avoid.add(key)
            out.append(s)
    return out


def build_layer_sets(
    hw: Hardware, previous: Sequence[ShapeSets], train: int, seed: int, eval_layers: int = 12
) -> ShapeSets:
    """Training and evaluation shapes with layer shapes (dataset v2's), none in ``previous``."""
    avoid: set[Triple] = {(s.M, s.N, s.K) for p in previous for s in (*p.train, *p.eval)}
    layers = layer_shapes(hw, TRAIN_MAX_VOLUME)
    # Held-out layer shapes: every k-th one within the evaluation volume.
    small = [s for s in layers if s.M * s.N * s.K <= EVAL_MAX_VOLUME]
    step = max(1, len(small) // max(1, eval_layers))
    held = _unique(small[::step][:eval_layers], avoid)
    train_layers = _unique([s for s in layers if s not in held], avoid)
    strata = []
    for i in range(4):
        drawn = evaluation_shapes(12, hw, seed + i, EVAL_MAX_VOLUME, sorted(avoid))
        strata.append(_unique(drawn, avoid))
    transitions = evaluation_shapes(16, hw, seed + 4, EVAL_MAX_VOLUME, sorted(avoid))[12:]
    transitions = _unique(transitions, avoid)
    evaluation = _interleave([*strata, transitions, held])
    mix = training_shapes(train, hw, seed, TRAIN_MAX_VOLUME, sorted(avoid))
    training = _interleave([_unique(mix, avoid), train_layers])
    return ShapeSets(
        gpu=hw.name,
        seed=seed,
        ridge_flops_per_byte=hw.ridge_flops_per_byte,
        llc_bytes=hw.llc_bytes,
        max_volume=TRAIN_MAX_VOLUME,
        train=tuple(training),
        eval=tuple(evaluation),
    )
