"""Dense, seeded random samples of GEMM shapes over a box, for building and checking headers.

Each of M, N and K is drawn log-uniformly between ``low`` and ``high`` and rounded to a
multiple of ``align`` (the study's shapes are multiples of 32; the kernels need M and K
multiples of 8 for ``tnn``). Different seeds give independent samples: the header is built on
one and checked on another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchspace.harness.errors import UsageError


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeDomain:
    """The box the dispatch covers: every dimension in ``[low, high]``, multiples of ``align``."""

    low: int = 32
    high: int = 16384
    align: int = 32

    def check(self) -> None:
        """Refuse an empty or misaligned box."""
        if not 1 <= self.align <= self.low < self.high or self.low % self.align:
            raise UsageError(
                f"shape domain {self.low}..{self.high} (align {self.align}): need "
                "1 <= align <= low < high with low a multiple of align"
            )


def sample_shapes(domain: ShapeDomain, count: int, seed: int) -> np.ndarray:
    """``count`` shapes as an int64 array of rows (M, N, K)."""
    domain.check()
    if count < 1:
        raise UsageError(f"shape sample of {count}: need at least 1 shape")
    rng = np.random.default_rng(seed)
    logs = rng.uniform(np.log2(domain.low), np.log2(domain.high), size=(count, 3))
    values = np.round(np.exp2(logs) / domain.align) * domain.align
    return np.clip(values, domain.low, domain.high).astype(np.int64)


def log2_edges(domain: ShapeDomain, per_octave: int = 4) -> np.ndarray:
    """Candidate split edges: ``per_octave`` log-spaced values per octave, aligned, distinct,
    strictly inside the box (a shape ``x`` goes left of edge ``e`` when ``x <= e``)."""
    domain.check()
    octaves = np.log2(domain.high / domain.low)
    steps = np.arange(1, int(np.ceil(octaves * per_octave)))
    raw = domain.low * np.exp2(steps / per_octave)
    edges = np.unique(np.round(raw / domain.align).astype(np.int64) * domain.align)
    return edges[(edges >= domain.low) & (edges < domain.high)]


def shape_tuples(shapes: np.ndarray) -> list[tuple[int, int, int]]:
    """Rows (M, N, K) of an integer array as Python tuples."""
    return [(int(m), int(n), int(k)) for m, n, k in np.asarray(shapes).reshape(-1, 3)]
