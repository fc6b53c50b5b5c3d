"""The gain of one value over another on a bucket's cases, and its noise.

Gain: the geometric mean over the cases where both were measured of the new value's speed-up
over the old (direction-aware), minus one (positive = better). Noise: twice the standard error
of the mean log speed-up, from each measurement's stdev and repeat count; None when any of them
has no spread (one sample). ``review`` reports both; ``generate`` keeps an incumbent whose
challenger's gain does not exceed the noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from benchspace.generators.value_cells import ValueCell
from benchspace.harness.profiles.scoring import geomean


@dataclass(frozen=True, kw_only=True, slots=True)
class Gain:
    """How much better `new` is than `old` over a bucket's cases, and how sure that is."""

    gain: float | None
    """Geometric-mean speed-up minus one (positive = new is better); None if never compared."""
    noise: float | None
    """Twice the standard error of the mean log speed-up; None when a spread is unknown."""

    @property
    def beyond_noise(self) -> bool:
        """Whether the gain is positive and larger than its noise (a known noise)."""
        return (
            self.gain is not None
            and self.noise is not None
            and self.gain > 0
            and math.log1p(self.gain) > self.noise
        )

    @property
    def within_noise(self) -> bool:
        """Whether the gain, better or worse, is no larger than its (known) noise."""
        return (
            self.gain is not None
            and self.noise is not None
            and abs(math.log1p(self.gain)) <= self.noise
        )


def noise(pairs: Sequence[tuple[ValueCell, ValueCell]]) -> float | None:
    """Twice the standard error of the mean log ratio over the pairs; None if any is unknown."""
    total = 0.0
    for a, b in pairs:
        if a.rel_error is None or b.rel_error is None:
            return None
        total += a.rel_error**2 + b.rel_error**2
    return 2.0 * math.sqrt(total) / len(pairs)


def speedup(old: ValueCell | None, new: ValueCell | None, direction: str) -> float | None:
    """How many times better `new` measured than `old` (>1 = better); None if not comparable."""
    if old is None or new is None or old.metric <= 0 or new.metric <= 0:
        return None
    return new.metric / old.metric if direction == "max" else old.metric / new.metric


def bucket_gain(pairs: Sequence[tuple[ValueCell, ValueCell]], direction: str) -> Gain:
    """The gain of each pair's second cell over its first, with its noise (pure)."""
    speedups = [s for a, b in pairs if (s := speedup(a, b, direction)) is not None]
    gain = geomean(speedups) - 1.0 if speedups else None
    return Gain(gain=gain, noise=noise(pairs) if pairs else None)
