"""The shape sets of dataset v2: the v1 constructions plus real layer shapes, new shapes only.

Layer shapes are the GEMMs of transformer blocks, ``M`` tokens times common ``(N, K)``
projections (attention and MLP of 4k/5k/8k-wide models). Evaluation shapes: four draws of
the 12 geometry x size strata (seeds ``seed+0 .. seed+3``), transitions and held-out layer
shapes; training shapes: the v1 mix (interior, boundary, neighbour, transition) and the
other layer shapes. No shape of an earlier set (``avoid``) and none twice. Both lists are
interleaved by construction so that any prefix spreads over the kinds.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.shape_draw import evaluation_shapes, training_shapes
from benchspace.evaluation.cutlass.shapes import Shape, ShapeSets, Triple, classify

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


def build_v2_sets(
    hw: Hardware, previous: Sequence[ShapeSets], train: int, seed: int, eval_layers: int = 12
) -> ShapeSets:
    """Training and evaluation shapes for v2, none in ``previous`` (train or eval)."""
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
