"""Values that cannot be what the metric says: a time that is zero, negative or not finite.

A benchmark compiled out for a backend, or one whose loop the compiler removed, reports a time
of 0 (or a negative one from a clock that went backwards); under ``direction: min`` such a
value would win every comparison and reach the header. It is the configuration's
``parse_error`` instead. A metric is a time when its name says so (``real_time``, ``avg_ms``,
``Time (µs) / matrix``, ``t_ns``, ``ms_mean``) and it is no rate (``GB/s``, ``items per second``).
"""

from __future__ import annotations

import functools
import math
import re

from benchspace.harness.errors import ReaderError

_TIME = re.compile(
    r"time|\((ns|us|µs|μs|ms|s)\)|(^|_)(ns|us|ms|sec|seconds)$|^(ns|us|µs|ms)_", re.IGNORECASE
)
_RATE = re.compile(r"/\s*s\b|/\s*sec|per\s*s(ec(ond)?)?\b|hz\b|flops", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def is_time_metric(metric: str) -> bool:
    """Whether the metric's name says it is a duration (not a rate)."""
    return bool(_TIME.search(metric)) and not _RATE.search(metric)


def check_time(value: float, *, metric: str, direction: str, row: str, source: str) -> None:
    """Refuse (ReaderError) a value that cannot be a duration under ``direction: min``."""
    if direction != "min" or not is_time_metric(metric):
        return
    if not math.isfinite(value) or value <= 0:
        raise ReaderError(
            f"{source}: row {row!r}: {metric!r} is {value:g}, which cannot be a time (a "
            "benchmark that measured nothing reports it); fix the benchmark"
        )
