"""GEMM problem shapes: the anchor grid, the classes a shape belongs to, and the shape-set record.

The anchor grid is ``[32, 16384]^3`` with every dimension a multiple of 32. A shape's classes
name its hull (interior or boundary), how it was constructed, its geometry (square, tall,
wide, skinny-K, deep-K), its size (small, medium, large), its roofline regime and whether its
operands fit the last-level cache of the chosen GPU. Drawing shapes is :mod:`shape_draw`'s,
reading and writing the file :mod:`shape_file`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.harness.errors import BenchspaceError

STEP, LOW, HIGH = 32, 32, 16384
INTERIOR = (128, 8192)
"""Interior draws keep every dimension in this range; shapes outside it are boundary shapes."""
MAX_VOLUME = 16384 * 16384 * 4096
"""Largest M*N*K kept, so that one measurement stays short."""
PROPORTIONS = {"interior": 297, "boundary": 172, "neighbour": 92, "transition": 32}
"""Training mix of the selection study (593 base shapes)."""
SMALL, MEDIUM = 1024**3, 4096**3
"""Size classes by M*N*K: small up to 1024^3, medium up to 4096^3, large above."""
GEOMETRIES = ("square", "tall", "wide", "skinny_k")
SIZES = ("small", "medium", "large")

Triple = tuple[int, int, int]


class ShapeError(BenchspaceError):
    """A shape-set file cannot be read or shape sets cannot be built as asked."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Shape:
    """One GEMM problem shape and the classes it belongs to."""

    M: int
    N: int
    K: int
    classes: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeSets:
    """Training and evaluation shapes for one GPU."""

    gpu: str
    seed: int
    ridge_flops_per_byte: float
    llc_bytes: int
    max_volume: int
    train: tuple[Shape, ...]
    eval: tuple[Shape, ...]


def snap(x: float) -> int:
    """``x`` rounded to a multiple of 32 inside ``[32, 16384]``."""
    return int(min(max(round(x / STEP) * STEP, LOW), HIGH))


def intensity(m: int, n: int, k: int) -> float:
    """bf16 arithmetic intensity ``2MNK / (2MK + 2KN + 2MN)`` (A, B read, D written, no C)."""
    return m * n * k / (m * k + k * n + m * n)


def working_set(m: int, n: int, k: int) -> int:
    """Bytes of bf16 A, B and D."""
    return 2 * (m * k + k * n + m * n)


def geometry_tags(m: int, n: int, k: int) -> list[str]:
    """``tall`` (M >= 4N), ``wide`` (N >= 4M), ``skinny_k`` (4K <= min(M, N)), ``deep_k``
    (K >= 4 max(M, N)); ``square`` when none applies."""
    tags = [
        tag
        for tag, hit in (
            ("tall", m >= 4 * n),
            ("wide", n >= 4 * m),
            ("skinny_k", 4 * k <= min(m, n)),
            ("deep_k", k >= 4 * max(m, n)),
        )
        if hit
    ]
    return tags or ["square"]


def size_tag(m: int, n: int, k: int) -> str:
    """``small``, ``medium`` or ``large`` by M*N*K."""
    volume = m * n * k
    return "small" if volume <= SMALL else "medium" if volume <= MEDIUM else "large"


def classify(m: int, n: int, k: int, hw: Hardware, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """Hull class, construction classes, geometry, size, roofline and LLC regime of a shape."""
    hull = "interior" if all(INTERIOR[0] <= d <= INTERIOR[1] for d in (m, n, k)) else "boundary"
    regime = "compute_bound" if intensity(m, n, k) >= hw.ridge_flops_per_byte else "memory_bound"
    llc = "llc_resident" if working_set(m, n, k) <= hw.llc_bytes else "llc_exceeding"
    tags = [hull, *extra, *geometry_tags(m, n, k), size_tag(m, n, k), regime, llc]
    return tuple(dict.fromkeys(tags))
