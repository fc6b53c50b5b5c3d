"""Student's t distribution's tails, in plain Python (no scipy on the sweep's path).

A sweep's decisions read one-sided p-values of t statistics (harness/sweep/decide.py). scipy
would give them, but importing it maps its own OpenBLAS, which under a small address-space
limit (``ulimit -v 200000``) loops for ever on a buffer it cannot allocate; ``tune`` must run
there. The tails are the regularized incomplete beta function, evaluated by its continued
fraction (modified Lentz): within 1e-9 of scipy.stats.t (relative) up to 10^5 degrees of
freedom, a sweep's being its rounds, and 1e-6 at 10^8 (tests/harness/abtest/test_student_t.py).
"""

from __future__ import annotations

import math
from functools import lru_cache

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function I_x(a, b) (for x < (a+1)/(a+b+2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):  # fmt: skip
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), a and b > 0, 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        + a * math.log(x) + b * math.log1p(-x)
    )  # fmt: skip
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def sf(t: float, df: float) -> float:
    """P(T > t) for T of Student's t with `df` > 0 degrees of freedom (inf: the normal)."""
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if math.isinf(df):
        return 0.5 * math.erfc(t / math.sqrt(2.0))
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))  # P(T > |t|)
    return tail if t > 0 else 1.0 - tail


def cdf(t: float, df: float) -> float:
    """P(T <= t)."""
    return sf(-t, df)


@lru_cache(maxsize=4096)
def isf(p: float, df: float) -> float:
    """The t with P(T > t) = p, for 0 < p < 1/2 (bisection on :func:`sf`, to 1e-9; a race asks
    for the same few levels and degrees of freedom again and again, so the answers are kept)."""
    if not 0.0 < p < 0.5:
        raise ValueError(f"p {p} must lie in (0, 0.5)")
    lo, hi = 0.0, 1.0
    while sf(hi, df) > p:
        lo, hi = hi, hi * 2.0
    while hi - lo > 1e-9 * hi:
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if sf(mid, df) > p else (lo, mid)
    return hi
