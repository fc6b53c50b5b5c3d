"""Wilcoxon's signed-rank test in plain Python agrees with scipy's, ties and zeros included."""

from __future__ import annotations

import random

import pytest
from scipy import stats

from benchspace.harness.abtest import signed_rank


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 21, 30, 40])
@pytest.mark.parametrize("shift", [-0.5, 0.0, 0.4, 1.5])
def test_exact_p_values_agree_with_scipy(n: int, shift: float) -> None:
    rng = random.Random(n * 100 + int(shift * 10))
    d = [rng.gauss(shift, 1.0) for _ in range(n)]
    want = stats.wilcoxon(d, alternative="greater", method="exact").pvalue
    assert signed_rank.greater_p(d) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("n", [41, 60, 150])
def test_the_normal_approximation_beyond_the_exact_range_is_scipys(n: int) -> None:
    rng = random.Random(n)
    d = [rng.gauss(0.25, 1.0) for _ in range(n)]
    want = stats.wilcoxon(d, alternative="greater", method="approx", correction=True).pvalue
    assert signed_rank.greater_p(d) == pytest.approx(want, rel=1e-9)


def test_ties_take_the_exact_permutation_distribution_of_their_mid_ranks() -> None:
    d = [1.0, 1.0, 2.0, -1.0, 3.0, 3.0, -2.0, 0.5, 0.5, 4.0]
    # 2^10 sign patterns: scipy's permutation method enumerates them all
    want = stats.wilcoxon(d, alternative="greater", method=stats.PermutationMethod()).pvalue
    assert signed_rank.greater_p(d) == pytest.approx(want, rel=1e-12)


def test_zero_differences_are_left_out_and_none_left_reads_one() -> None:
    assert signed_rank.greater_p([0.0, 0.0]) == 1.0
    assert signed_rank.greater_p([0.0, 1.0, 2.0, 3.0]) == signed_rank.greater_p([1.0, 2.0, 3.0])
    assert signed_rank.greater_p([1.0, 2.0, 3.0]) == 1 / 8  # every sign +: 1 of 2^3


def test_a_few_huge_outliers_take_ranks_not_the_verdict() -> None:
    # 26 rounds 4 % worse; in 4 a burst of load slowed one side or the other by 30-45 %
    d = [0.04 + 0.002 * (k % 5) for k in range(26)] + [-0.4, 0.35, -0.45, 0.3]
    mean = sum(d) / len(d)
    sd = (sum((x - mean) ** 2 for x in d) / (len(d) - 1)) ** 0.5
    t_p = stats.t.sf(mean / (sd / len(d) ** 0.5), len(d) - 1)
    assert t_p > 0.01  # the outliers blind the t-test
    assert signed_rank.greater_p(d) < 1e-3
