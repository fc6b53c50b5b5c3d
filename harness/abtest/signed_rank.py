"""Wilcoxon's signed-rank test, in plain Python (no scipy on the sweep's path: student_t.py).

A race drops a configuration on either of two tests (harness/sweep/decide.py): the t-test of
its paired log differences with the leader, which has power after few rounds, and this one,
whose error rate holds whatever the distribution of the differences, so long as it is
symmetric about its centre. A few samples a burst of load slowed inflate the t-test's
variance until it can drop nothing; here they only take the largest ranks.

The p-value is exact: the distribution of the sum of positive ranks under random signs,
counted over the ranks as they are (mid-ranks for tied magnitudes, doubled to integers), for up
to ``EXACT_MAX`` nonzero differences; beyond, the normal approximation with the tie correction
and a continuity correction. Zero differences carry no sign and are left out (Wilcoxon's
convention). Checked against scipy.stats.wilcoxon (tests/harness/abtest/test_signed_rank.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

EXACT_MAX = 40


def _doubled_ranks(magnitudes: Sequence[float]) -> list[int]:
    """Twice the mid-ranks (1-based) of the magnitudes: integers even when some are tied."""
    order = sorted(range(len(magnitudes)), key=lambda i: magnitudes[i])
    ranks = [0] * len(magnitudes)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and magnitudes[order[end + 1]] == magnitudes[order[start]]:
            end += 1
        doubled = start + end + 2  # 2 x the mean of the 1-based ranks start+1 .. end+1
        for k in range(start, end + 1):
            ranks[order[k]] = doubled
        start = end + 1
    return ranks


@lru_cache(maxsize=256)
def _upper_tails(ranks: tuple[int, ...]) -> tuple[float, ...]:
    """tails[s] = P(sum of the ranks given a + sign >= s), each sign + or - with chance 1/2."""
    total = sum(ranks)
    mass = [0.0] * (total + 1)
    mass[0] = 1.0
    reach = 0
    for r in ranks:
        for s in range(reach, -1, -1):
            if mass[s]:
                mass[s + r] += mass[s] * 0.5
                mass[s] *= 0.5
        reach += r
    tails = [0.0] * (total + 2)
    for s in range(total, -1, -1):
        tails[s] = tails[s + 1] + mass[s]
    return tuple(tails)


def greater_p(differences: Sequence[float]) -> float:
    """One-sided p-value that the differences' centre is above 0 (H0: they are symmetric about
    0); 1.0 without a nonzero difference."""
    nonzero = [d for d in differences if d != 0 and not math.isnan(d)]
    n = len(nonzero)
    if n == 0:
        return 1.0
    ranks = _doubled_ranks([abs(d) for d in nonzero])
    plus = sum(r for r, d in zip(ranks, nonzero, strict=True) if d > 0)
    if n <= EXACT_MAX:
        return min(1.0, _upper_tails(tuple(sorted(ranks)))[plus])
    mean = sum(ranks) / 2.0
    var = sum(r * r for r in ranks) / 4.0  # of the doubled sum: each rank r is in it w.p. 1/2
    z = (plus - mean - 1.0) / math.sqrt(var)  # continuity: the doubled sum moves in steps >= 2
    return 0.5 * math.erfc(z / math.sqrt(2.0))
