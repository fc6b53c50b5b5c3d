"""The one record every stage shares: one attempted invocation of a benchmark executable."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from benchspace.harness.values import Value as Value  # re-exported: many readers name it here

Status = Literal[
    "ok", "failed", "crashed", "timeout", "parse_error", "missing", "unavailable",
    "build_failed", "build_timeout",
]  # fmt: skip
STATUSES: tuple[Status, ...] = (
    "ok", "failed", "crashed", "timeout", "parse_error", "missing", "unavailable",
    "build_failed", "build_timeout",
)  # fmt: skip
"""``unavailable``: the executable could not be started (absent, not executable, fork failed):
not the configuration's fault, so never a cache hit. ``build_failed``/``build_timeout``: the
configuration's compile-time variant did not build (its log tail is in ``stderr_tail``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Measurement:
    """One attempt: what was run, how it ended, and what it measured. Failures are data."""

    bench: str
    case_index: int
    phase: str
    """``main``, ``pre_tune[<i>]``, ``validate``, ``ab`` ..."""
    params: Mapping[str, Value | None]
    """The tuned parameters of the invocation (grid, pre-tuned and env; None = unset)."""
    argv: tuple[str, ...]
    env: Mapping[str, str | None]
    """Environment overrides; ``None`` means the variable was unset."""
    exe_sha256: str
    status: Status
    value: float | None = None
    """The metric, as the benchmark reported it (direction is the bench's business)."""
    spread: float | None = None
    """The benchmark's own reported spread of the metric (stddev), when it has one."""
    row: str | None = None
    repeat: int = 0
    returncode: int | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    error: str = ""
    duration_s: float = 0.0
    started_at: str = ""
    host: str = ""
    device: str = ""
    cache_key: str = ""
    extra: Mapping[str, float | str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the invocation produced a value."""
        return self.status == "ok" and self.value is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class RepeatSummary:
    """Spread of the repeated samples of one configuration."""

    median: float
    mean: float
    stdev: float
    n: int

    @classmethod
    def of(cls, samples: list[float]) -> RepeatSummary:
        """Summarise samples (at least one)."""
        if len(samples) == 1:
            return cls(median=samples[0], mean=samples[0], stdev=0.0, n=1)
        return cls(
            median=statistics.median(samples),
            mean=statistics.fmean(samples),
            stdev=statistics.stdev(samples) if len(samples) > 1 else 0.0,
            n=len(samples),
        )
