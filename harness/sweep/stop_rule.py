"""Stopping by noise (``tune --stop rse:X``, and the cap of a race): whether a configuration
should be measured again."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchspace.harness.sweep.decide import RaceRule


def rse(samples: Sequence[float]) -> float:
    """Relative standard error of the centre: stdev / sqrt(n) / |median| (inf below 2)."""
    n = len(samples)
    if n < 2:
        return math.inf
    centre = statistics.median(samples)
    mean = sum(samples) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1))
    return sd / math.sqrt(n) / abs(centre) if centre else math.inf


def wants_more(samples: Sequence[float], rule: RaceRule) -> bool:
    """Whether a configuration should be measured again (under the cap, above the RSE)."""
    if len(samples) >= rule.cap:
        return False
    if len(samples) < rule.min_repeats:
        return True
    return rule.stop_rse is None or rse(samples) >= rule.stop_rse
