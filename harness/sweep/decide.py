"""How a race decides a case (pure): which configurations are beaten, and when it ends.

The statistics are those of a randomized complete block design on the logarithms of the
samples: every configuration of a case is measured once per round, rounds are interleaved, so
each round is a block, and what a round shares (the load of the machine while it ran) cancels
from every comparison; the residual variance is pooled over the case's configurations
(:func:`fit`). At each look every survivor is compared with the case's leader (the best
median) by a one-sided t-test on that fit, and dropped when slower at the per-look level.
The error held at ``1 - confidence`` per case is losing the configuration with the best true
centre anywhere in the race (an A/A race of ten equal configurations drops one of them, not a
designated one, more often: tests/harness/sweep/test_race.py). The race looks at rounds
min_repeats, twice that, ... and the cap (``ab``'s schedule); the error is split evenly over
those looks (Bonferroni over looks, as ``ab``'s stopping rule does) and within a look over the
comparisons with the leader (Bonferroni: the leader is the best of noisy medians, chosen by
the same samples, and the true best is dropped only when its comparison with whichever
configuration led rejects; a union bound over the possible leaders gives the factor).
Once the rounds allow, a comparison drops on either of two tests at half its level each: the
t-test, and Wilcoxon's signed-rank test on the paired log differences, whose error holds for
any symmetric noise and which a few samples a burst of load slowed do not blind (they inflate
the t-test's variance, but take only the largest ranks); before, the t-test has it all.
The race of a case ends when one configuration is left (``separated``), when every survivor
is shown equivalent to the leader within the margin (``tie``: two one-sided tests per
survivor at the look's level, so a tie claims, at the stated confidence, that none of the
tied is more than the margin from the leader either way), or at the cap (``cap``); from the
second look on, also as ``cap`` when every survivor reads within the margin of the leader (by
mean and by median) and the cap could decide none of their comparisons with it, were their
differences to stay as they read (:func:`_futile`: a stop for futility, which drops nothing,
so the drops' error is unchanged; the survivors are recorded as unbeaten; its noise is the
smaller of the t-test's and a median-absolute-deviation one, so that a few samples a burst of
load slowed do not end a case early).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from benchspace.harness.abtest import signed_rank, student_t
from benchspace.harness.abtest.stats import look_schedule

Decided = Literal["separated", "tie", "cap"]
DECISIONS: tuple[Decided, ...] = ("separated", "tie", "cap")

CONFIDENCE = 0.95
DEFAULT_MIN_REPEATS = 2
DEFAULT_MARGIN_PCT = 1.0


@dataclass(frozen=True, kw_only=True)
class RaceRule:
    """The race's settings."""

    min_repeats: int = DEFAULT_MIN_REPEATS
    cap: int = 10
    margin_pct: float = DEFAULT_MARGIN_PCT
    confidence: float = CONFIDENCE
    stop_rse: float | None = None
    """With ``--stop rse:X``: a configuration whose relative standard error is under X gets
    no more repeats (its centre is known well enough)."""
    family: int = 1
    """How many incumbents (header values) the tune's races judge: one is dropped at the level
    over this, so a retune loses a best incumbent with at most 1 - confidence per header."""

    @property
    def schedule(self) -> tuple[int, ...]:
        """The rounds at which the race looks: min_repeats, doubling, then the cap (``ab``'s
        schedule, harness/abtest/stats.py); rounds in between only measure."""
        return look_schedule(max(self.min_repeats, 2), self.cap)

    @property
    def looks(self) -> int:
        """How many looks a race can take."""
        return len(self.schedule)

    @property
    def look_alpha(self) -> float:
        """The error each look may spend."""
        return (1.0 - self.confidence) / self.looks


@dataclass(frozen=True, kw_only=True)
class CaseState:
    """Where the race of one case stands after a look."""

    alive: tuple[int, ...]
    """Indices (into the case's configurations) still racing."""
    leader: int | None
    decided: Decided | None
    """None while the race goes on."""
    rounds: int
    judged: bool = True
    """Whether the look could judge (a noise estimate): without one nothing is dropped, and
    the survivors of a ``cap`` are not "unbeaten" but untested."""


Samples = Sequence[float] | Mapping[int, float]
"""One configuration's values: a mapping round -> value, or a list (position = round)."""


@dataclass(frozen=True, kw_only=True)
class Fit:
    """The case's log samples fitted (lower is better): per configuration its mean, and one
    residual variance for all of them with its degrees of freedom."""

    means: Mapping[int, float]
    n: Mapping[int, int]
    var: float
    df: int
    blocked: bool
    """Whether rounds were blocks (a round's shared effect taken out)."""
    logs: Mapping[int, tuple[float, ...]]
    """Each configuration's log values as fitted (blocked: the common rounds, in order)."""


@dataclass(frozen=True, kw_only=True)
class Pool:
    """Residual sums of squares and degrees of freedom of other cases, pooled into a case's
    fit (the bench's cases share their relative noise: one executable, one machine)."""

    ss: float
    df: int

    @staticmethod
    def of(fits: Sequence[Fit]) -> Pool:
        return Pool(ss=sum(f.var * f.df for f in fits), df=sum(f.df for f in fits))

    def without(self, fit_: Fit) -> Pool:
        return Pool(ss=self.ss - fit_.var * fit_.df, df=self.df - fit_.df)

    def into(self, fit_: Fit) -> Fit:
        if self.df <= 0:
            return fit_
        df = fit_.df + self.df
        return replace(fit_, var=max(fit_.var, (fit_.var * fit_.df + self.ss) / df), df=df)


def _as_rounds(samples: Samples) -> Mapping[int, float]:
    return samples if isinstance(samples, Mapping) else dict(enumerate(samples))


def fit(samples: Mapping[int, Samples], direction: str, *, blocked: bool = True) -> Fit | None:
    """Fit the configurations' log values (None when no variance can be estimated).

    Blocked (the default), the rounds every configuration has a value in are the blocks of a
    randomized complete block design: log x[i, r] = mu[i] + beta[r] + e, so a round's shared
    effect (the machine's load while the round ran: rounds are interleaved) cancels from every
    comparison, and the residual variance is pooled over every configuration, with
    (k - 1)(rounds - 1) degrees of freedom. Without two complete rounds (or `blocked` false:
    samples whose rounds are not known), a one-way fit pools the within-configuration
    variances (sum of n_i - 1 degrees of freedom). Pooling assumes the configurations of one
    case share their relative noise (one size, one machine)."""
    sign = -1.0 if direction == "max" else 1.0
    lists = [s for s in samples.values() if not isinstance(s, Mapping)]
    if len({len(s) for s in lists}) > 1:
        blocked = False  # lists of unequal length: their positions are not rounds
    logs = {
        i: {r: sign * math.log(v) for r, v in _as_rounds(s).items() if v > 0}
        for i, s in samples.items()
    }
    logs = {i: s for i, s in logs.items() if s}
    if len(logs) < 2:
        return None
    common = sorted(set.intersection(*(set(s) for s in logs.values()))) if blocked else []
    k, b = len(logs), len(common)
    if b >= 2 and (k - 1) * (b - 1) >= 1:
        rows = {i: [s[r] for r in common] for i, s in logs.items()}
        means = {i: sum(v) / b for i, v in rows.items()}
        block = [sum(rows[i][j] for i in rows) / k for j in range(b)]
        grand = sum(means.values()) / k
        ss = sum((rows[i][j] - means[i] - block[j] + grand) ** 2 for i in rows for j in range(b))
        df = (k - 1) * (b - 1)
        return Fit(
            means=means,
            n={i: b for i in rows},
            var=ss / df,
            df=df,
            blocked=True,
            logs={i: tuple(v) for i, v in rows.items()},
        )
    means = {i: sum(s.values()) / len(s) for i, s in logs.items()}
    df = sum(len(s) - 1 for s in logs.values())
    if df < 1:
        return None
    ss = sum((v - means[i]) ** 2 for i, s in logs.items() for v in s.values())
    n = {i: len(s) for i, s in logs.items()}
    return Fit(
        means=means,
        n=n,
        var=ss / df,
        df=df,
        blocked=False,
        logs={i: tuple(s.values()) for i, s in logs.items()},
    )


def contrast(fit_: Fit, a: int, b: int) -> tuple[float, float, float]:
    """The difference of two configurations' log means, its standard error and degrees of
    freedom. The error is the larger of the pooled one and the pair's own (paired differences
    when blocked, Welch otherwise), so a pair noisier than the rest of its case is not judged
    by the case's quieter noise; the degrees of freedom are the pooled fit's."""
    diff = fit_.means[a] - fit_.means[b]
    pooled = fit_.var * (1 / fit_.n[a] + 1 / fit_.n[b])
    own = _pair_variance(fit_, a, b)
    return diff, math.sqrt(max(pooled, own or 0.0)), float(fit_.df)


def _pair_variance(fit_: Fit, a: int, b: int) -> float | None:
    xa, xb = fit_.logs[a], fit_.logs[b]
    if fit_.blocked:
        d = [p - q for p, q in zip(xa, xb, strict=True)]
        return _var(d) / len(d) if len(d) >= 2 else None
    if len(xa) < 2 or len(xb) < 2:
        return None
    return _var(xa) / len(xa) + _var(xb) / len(xb)


def _var(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _t(fit_: Fit, challenger: int, leader: int, shift: float) -> tuple[float, float]:
    """The t statistic of (challenger - leader - shift) in log units (+-inf: no noise), and
    its degrees of freedom."""
    diff, se, df = contrast(fit_, challenger, leader)
    diff -= shift
    if se <= 0:
        return (math.inf if diff > 0 else -math.inf if diff < 0 else 0.0), df
    return diff / se, df


def slower_p(fit_: Fit, challenger: int, leader: int, shift: float = 0.0) -> float:
    """One-sided p-value that the challenger is worse than the leader by more than `shift`
    (a log ratio; 0: worse at all)."""
    return student_t.sf(*_t(fit_, challenger, leader, shift))


def _beaten(fit_: Fit, challenger: int, leader: int, level: float) -> bool:
    """Whether the challenger is worse than the leader at `level`: on the t-test, or, once the
    rounds let it reject at all (2^-n < level / 2), on either the t-test or Wilcoxon's
    signed-rank test of the paired log differences at level / 2 each (blocked only)."""
    n = len(fit_.logs[challenger]) if fit_.blocked else 0
    if n == 0 or 0.5**n >= level / 2:  # the signed-rank test could not reject: it spends none
        return slower_p(fit_, challenger, leader) < level
    d = [p - q for p, q in zip(fit_.logs[challenger], fit_.logs[leader], strict=True)]
    return slower_p(fit_, challenger, leader) < level / 2 or signed_rank.greater_p(d) < level / 2


def equivalent_p(fit_: Fit, challenger: int, leader: int, margin: float) -> float:
    """Two one-sided tests (TOST): the p-value that the two differ by less than `margin` (a
    log ratio) either way; the larger of the two one-sided p-values."""
    above = student_t.cdf(*_t(fit_, challenger, leader, margin))
    below = student_t.sf(*_t(fit_, challenger, leader, -margin))
    return max(above, below)


def welch_slower_p(
    challenger: Sequence[float], leader: Sequence[float], direction: str, shift: float = 0.0
) -> float:
    """One-sided p-value that `challenger` is worse than `leader` by more than `shift`, from
    these two alone (unblocked: their rounds are not known). Samples must be positive."""
    f = fit({0: challenger, 1: leader}, direction, blocked=False)
    return 1.0 if f is None else slower_p(f, 0, 1, shift)


def median_of(samples: Samples) -> float:
    ordered = sorted(_as_rounds(samples).values())
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def look(
    samples: Sequence[Samples],
    alive: Sequence[int],
    direction: str,
    rule: RaceRule,
    rounds: int,
    *,
    blocked: bool = True,
    pool: Pool | None = None,
    protected: int | None = None,
) -> CaseState:
    """One look at a case: drop the beaten, then say whether the race of the case is over.

    `samples[i]` are configuration i's values so far (by round); configurations without a
    value (all failed) are out. `rounds` is how many rounds were run; `blocked`: whether
    rounds are blocks (:func:`fit`); `protected`: the incumbent (the header's value), dropped
    only at the level over ``rule.family``."""
    live = [i for i in alive if samples[i]]
    if not live:
        return CaseState(alive=(), leader=None, decided="cap", rounds=rounds)
    if rounds < rule.min_repeats or (rounds not in rule.schedule and rounds < rule.cap):
        return CaseState(alive=tuple(live), leader=None, decided=None, rounds=rounds)
    sign = -1.0 if direction == "max" else 1.0
    leader = min(live, key=lambda i: (sign * median_of(samples[i]), i))
    others = [i for i in live if i != leader]
    fitted = fit({i: samples[i] for i in live}, direction, blocked=blocked)
    if fitted is not None and pool is not None:
        fitted = pool.into(fitted)
    # Bonferroni over the comparisons: the best configuration is lost only when its own
    # comparison with the (data-chosen) leader rejects, and a union bound over which of the
    # others led bounds that by len(others) times the per-comparison level (:func:`_beaten`
    # splits it between the t-test and the signed-rank test).
    level = rule.look_alpha / max(len(others), 1)
    at = {i: level / rule.family if i == protected else level for i in others}
    dropped = set() if fitted is None else {i for i in others if _beaten(fitted, i, leader, at[i])}
    survivors = tuple(i for i in live if i not in dropped)
    if len(survivors) == 1:
        return CaseState(alive=survivors, leader=leader, decided="separated", rounds=rounds)
    if fitted is not None and survivors:
        # A tie is an equivalence shown (TOST), each survivor against the leader at the look's
        # level: every one of them within the margin, either way, at the stated confidence
        # (an intersection-union test: the claim for all needs no split over them).
        margin = math.log1p(rule.margin_pct / 100.0)
        if all(
            equivalent_p(fitted, i, leader, margin) < rule.look_alpha
            for i in survivors
            if i != leader
        ):
            return CaseState(alive=survivors, leader=leader, decided="tie", rounds=rounds)
    judged = fitted is not None
    others = [i for i in survivors if i != leader]
    if (
        fitted is not None
        and rule.schedule[0] < rounds < rule.cap
        and _futile(fitted, leader, others, rule, rounds)
    ):
        return CaseState(alive=survivors, leader=leader, decided="cap", rounds=rounds)
    if all(len(_as_rounds(samples[i])) >= rule.cap for i in survivors) or rounds >= rule.cap:
        return CaseState(
            alive=survivors, leader=leader, decided="cap", rounds=rounds, judged=judged
        )
    return CaseState(alive=survivors, leader=leader, decided=None, rounds=rounds, judged=judged)


def _futile(fit_: Fit, leader: int, others: Sequence[int], rule: RaceRule, rounds: int) -> bool:
    """Whether the cap could decide none of the pairs (survivor, leader), were the differences
    to stay as they read: at the cap a pair's standard error is this look's times
    sqrt(rounds / cap), and neither the drop (|diff| / se) nor the equivalence
    ((margin - |diff|) / se) would reach the cap look's critical t (stochastic curtailment:
    it takes no chance to reject away from the drops' error, and drops nothing). Only when
    every survivor reads within the margin of the leader, by mean and by median
    (:func:`_gap_read`): a leader chosen on a few noisy samples among configurations read
    farther apart than the margin could cost more than the margin promises, so such a case
    races on to the cap (where the median of every round picks)."""
    if not others:
        return False
    margin = math.log1p(rule.margin_pct / 100.0)
    if any(_gap_read(fit_, i, leader) > margin for i in others):
        return False  # a gap read beyond the margin is settled by the cap, not these rounds
    shrink = math.sqrt(rounds / rule.cap)
    df = fit_.df * (rule.cap - 1) / max(rounds - 1, 1)
    critical = student_t.isf(rule.look_alpha / len(others), df)
    for i in others:
        diff, se, _ = contrast(fit_, i, leader)
        se = min(se, _robust_se(fit_, i, leader) or se)
        if se <= 0:
            return False
        at_cap = se * shrink
        if max(abs(diff), margin - abs(diff)) / at_cap >= critical:
            return False
    return True


def _gap_read(fit_: Fit, a: int, b: int) -> float:
    """How far apart a pair reads (log units): by mean or by median, whichever is farther."""
    gap = abs(median_of(fit_.logs[a]) - median_of(fit_.logs[b]))
    return max(abs(contrast(fit_, a, b)[0]), gap)


def _robust_se(fit_: Fit, a: int, b: int) -> float | None:
    """A pair's standard error from its paired differences' 1.4826 MAD / sqrt(n) (blocked, >= 3
    rounds, else None): bursts of load inflate the t-test's variance, not this."""
    if not fit_.blocked or len(fit_.logs[a]) < 3:
        return None
    d = [p - q for p, q in zip(fit_.logs[a], fit_.logs[b], strict=True)]
    centre = median_of(d)
    return 1.4826 * median_of([abs(x - centre) for x in d]) / math.sqrt(len(d))


def final_state(
    samples: Sequence[Samples], direction: str, rule: RaceRule, protected: int | None = None
) -> CaseState:
    """The verdict of the samples as they stand (a fixed-repeat sweep: one look at the end).

    With one look only, the whole error goes to it."""
    rounds = max((len(s) for s in samples), default=0)
    one_look = RaceRule(
        min_repeats=rounds,
        cap=rounds,
        margin_pct=rule.margin_pct,
        confidence=rule.confidence,
        family=rule.family,
    )
    state = look(samples, range(len(samples)), direction, one_look, rounds, protected=protected)
    if state.decided is None:
        return replace(state, decided="cap", rounds=rounds)
    return state
