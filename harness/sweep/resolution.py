"""What a case's verdict could resolve (pure): for a ``cap``, the smallest gap to the leader
that its last look would have dropped at the noise it measured, and about how many rounds the
race's margin would take at that noise.

A ``cap`` says the survivors were not told apart; this says how far apart they could have been
and still not be told apart, so a reader can tell a near-tie (the survivors read within what
the cap resolves, and that is under the margin) from a machine too noisy for the question
(what the cap resolves is several times the margin, and a retune may well pick another
survivor). The figures follow the drops' t-test (harness/sweep/decide.py, ``_beaten``): the
comparison of a survivor with the leader at the look's level, halved where the signed-rank
test shares it, one over ``rule.family`` for the incumbent. The signed-rank test may drop a
survivor on skewed noise sooner than this says; the figure is the t-test's. The noise is the
one the last look judged by: a race's look fits every configuration live at it (those it then
dropped too) and pools the bench's other open cases into the fit where that widens it, and
the figure is computed on that fit (`over`, `pool`), so that no unbeaten survivor reads a gap
wider than what the cap is said to resolve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from benchspace.harness.abtest import student_t
from benchspace.harness.sweep.decide import Pool, RaceRule, Samples, contrast, fit


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """What the last look of a ``cap`` could resolve."""

    resolves_pct: float
    """A survivor slower than the leader by more than this (per cent, at the noise the look
    measured) would have been dropped: the widest such gap over the unbeaten survivors."""
    rounds_for_margin: int | None
    """About how many rounds would resolve the race's margin at that noise, at the same level
    (the standard error shrinking as one over the square root of the rounds); None with a
    margin of 0, which no number of rounds resolves."""
    read_pct: float = 0.0
    """The widest gap by which an unbeaten survivor read slower than the leader on the same
    scale (the difference of their log means in the fit the test used, per cent; 0 when none
    read slower). Set beside `resolves_pct`, it tells a near-tie (the survivors read well
    within what the cap resolves) from a gap the cap was too coarse to call. A table's medians
    may read otherwise: a few samples a burst of load slowed move a median ratio and a mean of
    paired log ratios differently."""


def resolution(
    samples: Sequence[Samples],
    alive: Sequence[int],
    leader: int | None,
    direction: str,
    rule: RaceRule,
    *,
    looks: int,
    protected: int | None = None,
    over: Sequence[int] = (),
    pool: Pool | None = None,
) -> Resolution | None:
    """The resolution of a case's last look, over the survivors `alive` and their `leader`
    (None when there is nothing to compare or no noise estimate). `looks`: how many looks the
    error was split over (``rule.looks`` for a race, 1 for a fixed sweep's one look); `over`:
    the configurations the last look fitted (default: the survivors), `pool`: the other
    cases' noise it pooled in."""
    if leader is None or not samples[leader]:
        return None
    others = [i for i in alive if i != leader and samples[i]]
    if not others:
        return None
    fitted_ = {i for i in over if samples[i]} | {leader, *others}
    fitted = fit({i: samples[i] for i in sorted(fitted_)}, direction)
    if fitted is None:
        return None
    if pool is not None:
        fitted = pool.into(fitted)
    level = (1.0 - rule.confidence) / max(looks, 1) / len(others)
    margin = math.log1p(rule.margin_pct / 100.0)
    rounds = max(fitted.n.values())
    widest, read, needed = 0.0, 0.0, rounds if margin > 0 else None
    for i in others:
        diff, se, df = contrast(fitted, i, leader)
        read = max(read, diff)
        at = level / rule.family if i == protected else level
        n = len(fitted.logs[i]) if fitted.blocked else 0
        if n and 0.5**n < at / 2:
            at /= 2  # the signed-rank test takes half the level (decide.py, _beaten)
        widest = max(widest, student_t.isf(at, df) * se)
        if needed is not None:
            needed = max(needed, _rounds_for(margin, se, df, at, rounds))
    return Resolution(
        resolves_pct=100.0 * math.expm1(widest),
        rounds_for_margin=needed,
        read_pct=100.0 * math.expm1(read),
    )


def _rounds_for(margin: float, se: float, df: float, level: float, rounds: int) -> int:
    """The rounds at which critical t x standard error comes down to the margin: the error
    shrinking as sqrt(rounds / more), the degrees of freedom growing in proportion to the
    rounds (a few fixed-point steps; past 200 degrees of freedom the normal's quantile, within
    2 % of t's there)."""
    more = float(rounds)
    for _ in range(4):
        grown = df * max(more - 1.0, 1.0) / max(rounds - 1, 1)
        critical = _NORMAL.inv_cdf(1.0 - level) if grown > 200 else student_t.isf(level, grown)
        more = max(float(rounds), rounds * (critical * se / margin) ** 2)
    return math.ceil(more)


_NORMAL = NormalDist()
