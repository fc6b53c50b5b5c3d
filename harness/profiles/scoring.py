"""How a sweep's measurements are summarised and compared (pure).

Cross-case scores are normalised per case: a configuration's score is the geometric mean over
cases of its value's ratio to that case's best (lower is better whatever the direction), so a
large size cannot drown a small one, and only combos measured in every case are compared.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchspace.harness.measurement import Measurement, RepeatSummary
from benchspace.harness.plan import Config, make_config


@dataclass(frozen=True, kw_only=True, slots=True)
class Aggregate:
    """The repeats of one (case, configuration)."""

    case_index: int
    config: Config
    summary: RepeatSummary | None
    samples: tuple[float, ...]
    spread: float | None
    argv: tuple[str, ...]
    env: Mapping[str, str | None]
    failures: tuple[Measurement, ...]

    @property
    def ok(self) -> bool:
        """Whether at least one repeat produced a value."""
        return self.summary is not None


def aggregate(measurements: Sequence[Measurement]) -> dict[tuple[int, Config], Aggregate]:
    """Group attempts by (case, configuration) and summarise their samples."""
    groups: dict[tuple[int, Config], list[Measurement]] = defaultdict(list)
    for m in measurements:
        groups[(m.case_index, make_config(m.params))].append(m)
    out: dict[tuple[int, Config], Aggregate] = {}
    for key, items in groups.items():
        if len(items) > 1:
            items.sort(key=lambda m: m.repeat)
        samples = [m.value for m in items if m.ok and m.value is not None]
        spreads = [m.spread for m in items if m.ok and m.spread is not None]
        first = items[0]
        out[key] = Aggregate(
            case_index=key[0],
            config=key[1],
            summary=RepeatSummary.of(samples) if samples else None,
            samples=tuple(samples),
            spread=(sum(spreads) / len(spreads)) if spreads else None,
            argv=first.argv,
            env=first.env,
            failures=tuple(m for m in items if not m.ok),
        )
    return out


def ratio(value: float, best: float, direction: str) -> float:
    """How many times worse than the best a value is (1.0 = best), whatever the direction."""
    if direction == "max":
        return best / value if value > 0 else math.inf
    return value / best if best > 0 else (1.0 if value == best else math.inf)


def geomean(values: Sequence[float]) -> float:
    """Geometric mean of positive values (inf if any is inf)."""
    if any(math.isinf(v) for v in values):
        return math.inf
    return math.exp(sum(math.log(v) for v in values) / len(values))


def better(a: float, b: float, direction: str) -> bool:
    """Whether metric value ``a`` beats ``b``."""
    return a > b if direction == "max" else a < b


def in_order(aggs: Mapping[tuple[int, Config], Aggregate]) -> list[Aggregate]:
    """Aggregates by case, then configuration (its text: values of mixed types compare)."""
    keyed = [((agg.case_index, repr(agg.config)), agg) for agg in aggs.values()]
    keyed.sort(key=lambda pair: pair[0])
    return [agg for _, agg in keyed]


def case_bests(ordered: Sequence[Aggregate], direction: str) -> dict[int, Aggregate]:
    """Per case, the configuration with the best median (the first in ``ordered`` on ties)."""
    best: dict[int, Aggregate] = {}
    for agg in ordered:
        if agg.summary is None:
            continue
        current = best.get(agg.case_index)
        if current is None or (
            current.summary is not None
            and better(agg.summary.median, current.summary.median, direction)
        ):
            best[agg.case_index] = agg
    return best


def score_configs(
    per_case: Mapping[int, Mapping[Config, float]],
    cases: Sequence[int],
    direction: str,
) -> dict[Config, float]:
    """Geomean ratio-to-case-best for combos measured (ok) in every case, keyed by combo.

    ``per_case[case][combo]`` is the combo's median value in that case.
    """
    best = {
        c: (max if direction == "max" else min)(per_case[c].values())
        for c in cases
        if per_case.get(c)
    }
    if len(best) < len(cases):
        return {}
    combos = set.intersection(*(set(per_case[c]) for c in cases)) if cases else set()
    return {
        combo: geomean([ratio(per_case[c][combo], best[c], direction) for c in cases])
        for combo in combos
    }


def top_scores(scores: Mapping[Config, float], k: int) -> list[tuple[Config, float]]:
    """The ``k`` best-scored combos, ties broken by their text (deterministic)."""
    candidates = list(scores.items())
    if len(candidates) > k > 0:
        cutoff = heapq.nsmallest(k, scores.values())[-1]
        candidates = [kv for kv in candidates if kv[1] <= cutoff]
    return sorted(candidates, key=lambda kv: (kv[1], repr(kv[0])))[:k]


def winner(scores: Mapping[Config, float]) -> Config:
    """The best-scored combo (the first by its text on ties); `scores` must not be empty."""
    return min(scores, key=lambda c: (scores[c], repr(c)))
