"""A/B statistics: ratio of medians with a paired bootstrap interval, Mann-Whitney U, stopping.

Pure: samples in, a frozen Comparison out. The stopping rule looks only at a fixed schedule
of pair counts (5, 10, 20, ... and the budget) and splits the error rate over those looks
(Bonferroni), so that stopping at the first decided look keeps the false positive rate of an
A/A run at or below the nominal 5 %. A look decides when the bootstrap interval at the
per-look confidence lies outside [1 - margin, 1 + margin] *and* the Mann-Whitney U test is
significant at the same level: a percentile bootstrap of a median over few pairs is
overconfident (alone it gave 5 % false positives at the 5-pair look instead of 1.25 %), and
the rank test is exact there. The reported interval is the plain 95 % one.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchspace.harness.errors import BenchspaceError

Verdict = Literal["B faster", "A faster", "no difference detected"]
VERDICTS: tuple[Verdict, ...] = ("B faster", "A faster", "no difference detected")

CONFIDENCE = 0.95
RESAMPLES = 5000
MIN_PAIRS = 5
RESOLUTION_PCT = 1.0
"""The difference an A/B should resolve when no margin is asked for (noise warnings)."""


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """What n interleaved pairs of A and B say about B/A."""

    n_pairs: int
    median_a: float
    median_b: float
    ratio: float
    """median(B) / median(A)."""
    ci_low: float
    ci_high: float
    """Bootstrap interval of the ratio at `confidence`."""
    confidence: float
    decision_low: float
    decision_high: float
    """Bootstrap interval at `decision_confidence`, the one the verdict reads."""
    decision_confidence: float
    p_value: float
    """Two-sided Mann-Whitney U p-value of A against B."""
    cv_a: float
    cv_b: float
    """Coefficients of variation (stdev / mean) of each side's samples."""
    margin_pct: float
    verdict: Verdict

    @property
    def decided(self) -> bool:
        """True when the verdict is ``B faster`` or ``A faster``."""
        return self.verdict != "no difference detected"

    @property
    def half_width(self) -> float:
        """Half the relative width of the reported interval (0.01 = ±1 %)."""
        return (self.ci_high - self.ci_low) / 2.0


def look_schedule(min_pairs: int, max_pairs: int) -> tuple[int, ...]:
    """Pair counts at which the stopping rule looks: min_pairs doubling, then max_pairs."""
    if min_pairs < 2:
        raise ValueError(f"min_pairs {min_pairs} must be at least 2")
    if max_pairs < min_pairs:
        return (max_pairs,)
    looks: list[int] = []
    n = min_pairs
    while n < max_pairs:
        looks.append(n)
        n *= 2
    looks.append(max_pairs)
    return tuple(looks)


def look_confidence(looks: int, confidence: float = CONFIDENCE) -> float:
    """Per-look confidence that keeps the overall error at 1 - confidence over `looks` looks."""
    return 1.0 - (1.0 - confidence) / max(looks, 1)


def coefficient_of_variation(samples: Sequence[float]) -> float:
    """stdev / mean (0 for fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    import numpy as np  # imported here: the sweep's path needs no numpy (ulimit -v)

    values = np.asarray(samples, dtype=float)
    mean = float(values.mean())
    return float(values.std(ddof=1)) / abs(mean) if mean else math.inf


def ratio_intervals(
    a: Sequence[float],
    b: Sequence[float],
    confidences: Sequence[float],
    *,
    seed: int,
    resamples: int = RESAMPLES,
) -> list[tuple[float, float]]:
    """Percentile bootstrap intervals of median(B)/median(A), one per confidence level.

    Pairs are resampled together (the same indices for A and B) because the two runs of a
    pair share the machine's state at that moment; drift then cancels in the ratio.
    """
    import numpy as np

    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if len(xa) != len(xb) or len(xa) < 1:
        raise ValueError(f"need paired samples, got {len(xa)} A and {len(xb)} B")
    rng = np.random.default_rng([seed, len(xa)])
    idx = rng.integers(0, len(xa), size=(resamples, len(xa)))
    ratios = np.median(xb[idx], axis=1) / np.median(xa[idx], axis=1)
    out = []
    for conf in confidences:
        tail = (1.0 - conf) / 2.0
        low, high = np.quantile(ratios, [tail, 1.0 - tail])
        out.append((float(low), float(high)))
    return out


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Mann-Whitney U p-value; 1.0 when there is too little data or no spread."""
    if len(a) < 2 or len(b) < 2 or len(set(a) | set(b)) < 2:
        return 1.0
    from scipy.stats import mannwhitneyu  # imported here: scipy is slow to import

    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def outside_margin(low: float, high: float, margin_pct: float) -> int:
    """-1 when [low, high] lies below 1 - margin, +1 when above 1 + margin, else 0."""
    m = margin_pct / 100.0
    if high < 1.0 - m:
        return -1
    if low > 1.0 + m:
        return 1
    return 0


def verdict_of(side: int, direction: str) -> Verdict:
    """Turn the side of 1 the ratio B/A lies on into a verdict; ``min`` means lower is faster."""
    if side == 0:
        return "no difference detected"
    b_lower = side < 0
    return "B faster" if b_lower == (direction == "min") else "A faster"


def check_samples(a: Sequence[float], b: Sequence[float], *, what: str = "metric") -> None:
    """Refuse samples that cannot form a ratio (non-positive or non-finite values)."""
    for label, values in (("A", a), ("B", b)):
        bad = [v for v in values if not (math.isfinite(v) and v > 0)]
        if bad:
            raise BenchspaceError(
                f"ab: side {label} measured {what} = {bad[0]!r}; a ratio needs positive finite "
                "values; pick a time or rate metric"
            )


def compare(
    a: Sequence[float],
    b: Sequence[float],
    *,
    direction: str,
    margin_pct: float = 0.0,
    decision_confidence: float = CONFIDENCE,
    min_pairs: int = MIN_PAIRS,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Comparison:
    """Compare paired samples; the verdict stays open below `min_pairs` pairs.

    Decided when the interval at `decision_confidence` lies outside the margin and the
    Mann-Whitney U p-value is below ``1 - decision_confidence``.
    """
    check_samples(a, b)
    (ci_low, ci_high), (d_low, d_high) = ratio_intervals(
        a, b, (CONFIDENCE, decision_confidence), seed=seed, resamples=resamples
    )
    median_a = float(statistics.median(a))
    median_b = float(statistics.median(b))
    p_value = mann_whitney_p(a, b)
    significant = len(a) >= min_pairs and p_value < 1.0 - decision_confidence
    side = outside_margin(d_low, d_high, margin_pct) if significant else 0
    return Comparison(
        n_pairs=len(a),
        median_a=median_a,
        median_b=median_b,
        ratio=median_b / median_a,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=CONFIDENCE,
        decision_low=d_low,
        decision_high=d_high,
        decision_confidence=decision_confidence,
        p_value=p_value,
        cv_a=coefficient_of_variation(a),
        cv_b=coefficient_of_variation(b),
        margin_pct=margin_pct,
        verdict=verdict_of(side, direction),
    )


def pairs_needed(c: Comparison, resolution_pct: float) -> int:
    """Pairs for the 95 % interval to shrink to ±resolution (width scales as 1/sqrt(n))."""
    target = resolution_pct / 100.0
    if c.half_width <= target or target <= 0:
        return c.n_pairs
    return math.ceil(c.n_pairs * (c.half_width / target) ** 2)


def noise_warning(c: Comparison) -> str | None:
    """A warning when an undecided comparison was too noisy to resolve the margin (or 1 %)."""
    if c.decided:
        return None
    resolution = c.margin_pct if c.margin_pct > 0 else RESOLUTION_PCT
    if c.half_width * 100.0 <= resolution:
        return None
    what = f"a {c.margin_pct:g} % margin" if c.margin_pct > 0 else f"a {resolution:g} % difference"
    return (
        f"noise too high to resolve {what}: CV of A {c.cv_a * 100:.1f} %, of B "
        f"{c.cv_b * 100:.1f} %; the 95 % interval is ±{c.half_width * 100:.1f} % after "
        f"{c.n_pairs} pairs; about {pairs_needed(c, resolution)} pairs would resolve it "
        "(raise --rounds or --max-time), or quiet the machine"
    )
