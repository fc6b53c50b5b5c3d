"""How a race decides a case (pure): which configurations are beaten, and when it ends.

Every look compares each surviving configuration with the case's leader (the best median) by
a one-sided Welch t-test on the logarithms of their samples: a configuration is dropped when
it is slower than the leader at the per-look level. The error held at ``1 - confidence`` per
case is the one that matters, losing the configuration with the best true centre anywhere in
the race (an A/A race of ten equal configurations drops one of them, not a designated one,
more often: tests/harness/sweep/test_race.py). The race looks at rounds min_repeats, twice
that, ... and the cap (``ab``'s schedule); the error is split evenly over those looks
(Bonferroni over looks, as ``ab``'s stopping rule does) and within a look over the
comparisons with the leader (Bonferroni: the leader is the best of noisy medians, chosen by
the same samples, and the true best is dropped only when its comparison with whichever
configuration led rejects; a union bound over the possible leaders gives the factor).
The race of a case ends when one configuration is left (``separated``), when every
survivor's median is within the margin of the leader's (``tie``: none of them was shown
slower, and none is worse by more than the margin as measured), or when the survivors
reached the cap (``cap``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from benchspace.harness.abtest.stats import look_schedule

Decided = Literal["separated", "tie", "cap"]
DECISIONS: tuple[Decided, ...] = ("separated", "tie", "cap")

CONFIDENCE = 0.95
DEFAULT_MIN_REPEATS = 3
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


def rse(samples: Sequence[float]) -> float:
    """Relative standard error of the centre: stdev / sqrt(n) / |median| (inf below 2)."""
    n = len(samples)
    if n < 2:
        return math.inf
    ordered = sorted(samples)
    centre = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    mean = sum(samples) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1))
    return sd / math.sqrt(n) / abs(centre) if centre else math.inf


def _log_stats(samples: Sequence[float], sign: float) -> tuple[float, float, int]:
    """Mean and variance of the logs, oriented so that lower is better."""
    logs = [sign * math.log(x) for x in samples]
    n = len(logs)
    mean = sum(logs) / n
    var = sum((v - mean) ** 2 for v in logs) / (n - 1) if n > 1 else 0.0
    return mean, var, n


def welch_slower_p(
    challenger: Sequence[float], leader: Sequence[float], direction: str, shift: float = 0.0
) -> float:
    """One-sided Welch p-value that `challenger` is worse than `leader` by more than `shift`
    (a log ratio; 0: worse at all). Samples must be positive."""
    from scipy.stats import t as student_t  # imported here: scipy is slow to import

    sign = -1.0 if direction == "max" else 1.0
    mc, vc, nc = _log_stats(challenger, sign)
    ml, vl, nl = _log_stats(leader, sign)
    if nc < 2 or nl < 2:
        return 1.0
    se2 = vc / nc + vl / nl
    diff = mc - ml - shift
    if se2 <= 0:
        return 0.0 if diff > 0 else 1.0
    df = se2**2 / ((vc / nc) ** 2 / max(nc - 1, 1) + (vl / nl) ** 2 / max(nl - 1, 1))
    return float(student_t.sf(diff / math.sqrt(se2), df))


def _within_margin(
    challenger: Sequence[float], leader: Sequence[float], direction: str, rule: RaceRule
) -> bool:
    """Whether the challenger's median is within the margin of the leader's (a point
    estimate: a tie claims no error rate of its own; the challenger was not shown slower)."""
    a, b = _median(challenger), _median(leader)
    worse = a / b if direction == "min" else b / a
    return worse - 1.0 <= rule.margin_pct / 100.0


def _median(samples: Sequence[float]) -> float:
    ordered = sorted(samples)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def look(
    samples: Sequence[Sequence[float]],
    alive: Sequence[int],
    direction: str,
    rule: RaceRule,
    rounds: int,
) -> CaseState:
    """One look at a case: drop the beaten, then say whether the race of the case is over.

    `samples[i]` are configuration i's values so far; configurations without a value (all
    failed) are out. `rounds` is how many rounds were run."""
    live = [i for i in alive if samples[i]]
    if not live:
        return CaseState(alive=(), leader=None, decided="cap", rounds=rounds)
    if rounds < rule.min_repeats or (rounds not in rule.schedule and rounds < rule.cap):
        return CaseState(alive=tuple(live), leader=None, decided=None, rounds=rounds)
    sign = -1.0 if direction == "max" else 1.0
    leader = min(live, key=lambda i: (sign * _median(samples[i]), i))
    others = [i for i in live if i != leader]
    # Bonferroni over the comparisons: the best configuration is lost only when its own
    # comparison with the (data-chosen) leader rejects, and a union bound over which of the
    # others led bounds that by len(others) times the per-comparison level.
    level = rule.look_alpha / max(len(others), 1)
    dropped = {i for i in others if welch_slower_p(samples[i], samples[leader], direction) < level}
    survivors = tuple(i for i in live if i not in dropped)
    if len(survivors) == 1:
        return CaseState(alive=survivors, leader=leader, decided="separated", rounds=rounds)
    if all(
        _within_margin(samples[i], samples[leader], direction, rule)
        for i in survivors
        if i != leader
    ):
        return CaseState(alive=survivors, leader=leader, decided="tie", rounds=rounds)
    if all(len(samples[i]) >= rule.cap for i in survivors) or rounds >= rule.cap:
        return CaseState(alive=survivors, leader=leader, decided="cap", rounds=rounds)
    return CaseState(alive=survivors, leader=leader, decided=None, rounds=rounds)


def wants_more(samples: Sequence[float], rule: RaceRule) -> bool:
    """Whether a configuration should be measured again (under the cap, above the RSE)."""
    if len(samples) >= rule.cap:
        return False
    if len(samples) < rule.min_repeats:
        return True
    return rule.stop_rse is None or rse(samples) >= rule.stop_rse


@dataclass(frozen=True, kw_only=True)
class Decision:
    """How a case's winner was decided: what the profile records beside it."""

    decided: Decided
    confidence: float
    samples: int
    """The winner's sample count."""
    rounds: int
    tied: tuple[Mapping[str, object], ...] = ()
    """With ``tie``: the parameters of every configuration tied with the winner."""

    def as_dict(self) -> dict[str, object]:
        """The profile's ``decided`` record."""
        out: dict[str, object] = {
            "decided": self.decided,
            "confidence": self.confidence,
            "samples": self.samples,
            "rounds": self.rounds,
        }
        if self.tied:
            out["tied"] = [dict(t) for t in self.tied]
        return out


def final_state(samples: Sequence[Sequence[float]], direction: str, rule: RaceRule) -> CaseState:
    """The verdict of the samples as they stand (a fixed-repeat sweep: one look at the end).

    With one look only, the whole error goes to it."""
    rounds = max((len(s) for s in samples), default=0)
    one_look = RaceRule(
        min_repeats=rounds,
        cap=rounds,
        margin_pct=rule.margin_pct,
        confidence=rule.confidence,
    )
    state = look(samples, range(len(samples)), direction, one_look, rounds)
    if state.decided is None:
        return CaseState(alive=state.alive, leader=state.leader, decided="cap", rounds=rounds)
    return state
