"""Metric units and time-like names in one table, and the check every value passes (pure).

A benchmark compiled out for a backend, or one whose loop the compiler removed, reports a time
of 0 (or a negative one from a clock that went backwards); under ``direction: min`` such a
value would win every comparison and reach the header. It is the configuration's
``parse_error`` instead, whether the value comes from a fresh run or from the store. A metric
is a time when its name says so (``real_time``, ``avg_ms``, ``Time (µs) / matrix``, ``t_ns``,
``ms_mean``, ``duration``, ``elapsed``, ``latency``, ``wall_clock``) and it is no rate
(``GB/s``, ``items per second``, ``GFLOPS``).
"""

from __future__ import annotations

import functools
import math
import re

from benchspace.harness.errors import ReaderError
from benchspace.harness.measurement import Measurement

TIME_UNITS: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 MICRO SIGN
    "μs": 1e-6,  # U+03BC GREEK SMALL LETTER MU
    "ms": 1e-3,
    "s": 1.0,
}
"""A time unit's length in seconds (Google Benchmark's ``time_unit`` values among them)."""
UNIT_SPELLINGS: dict[str, str] = {"sec": "s", "secs": "s", "seconds": "s", "second": "s"}
"""Other spellings of a unit in metric names."""
TIME_WORDS: tuple[str, ...] = (
    "time",
    "duration",
    "elapsed",
    "latency",
    "wall_clock",
    "wallclock",
    "runtime",
)
"""Words that make a metric a duration wherever they occur in its name."""
RATE_WORDS: tuple[str, ...] = ("flops", "flop/s", "hz", "throughput", "bandwidth")
"""Words that make a metric a rate (a rate is never checked as a time)."""

_UNITS = "|".join(sorted({*(u for u in TIME_UNITS if u != "s"), *UNIT_SPELLINGS}, key=len)[::-1])
_TIME = re.compile(
    "|".join(
        (
            *(re.escape(w) for w in TIME_WORDS),
            rf"[(\[]\s*({_UNITS}|s)\s*[)\]]",  # "Time (µs)", "elapsed [s]"
            rf"(^|[_\s-])({_UNITS})$",  # "avg_ms", "t_ns"
            rf"^({_UNITS})([_\s-]|$)",  # "ms_mean", "ns"
        )
    ),
    re.IGNORECASE,
)
_RATE = re.compile(
    r"/\s*s\b|/\s*sec|per[\s_]*s(ec(ond)?)?\b|" + "|".join(re.escape(w) for w in RATE_WORDS),
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=256)
def is_time_metric(metric: str) -> bool:
    """Whether the metric's name says it is a duration (not a rate)."""
    return bool(_TIME.search(metric)) and not _RATE.search(metric)


def value_problem(value: float, *, metric: str) -> str | None:
    """Why `value` cannot be what `metric` names (not finite; a time that is not positive);
    None when it can."""
    if not math.isfinite(value):
        return f"{metric!r} is {value}, not a finite number"
    if value <= 0 and is_time_metric(metric):
        return (
            f"{metric!r} is {value:g}, which cannot be a time (a benchmark that measured "
            "nothing reports it); fix the benchmark"
        )
    return None


def check_value(value: float, *, metric: str, row: str, source: str) -> None:
    """Refuse (ReaderError) a value that cannot be the metric: the check fresh and stored
    values both pass."""
    problem = value_problem(value, metric=metric)
    if problem is not None:
        raise ReaderError(f"{source}: row {row!r}: {problem}")


def stored_problem(m: Measurement, *, metric: str, unit: str | None = None) -> str | None:
    """Why a stored ``ok`` measurement cannot be served for `metric`; None when it can.
    `unit`: the unit the bench's reader converts times to now (a row stored without it was
    read in whatever unit the benchmark printed)."""
    if m.status != "ok":
        return None
    if m.value is None:
        return "row has status ok but no value"
    if unit is not None and m.extra.get("time_unit") != unit:
        return f"row {m.row!r} was read before its times were converted to {unit}"
    problem = value_problem(m.value, metric=metric)
    return None if problem is None else f"row {m.row!r}: {problem}"
