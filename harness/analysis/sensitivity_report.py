"""The records a sensitivity analysis returns: per bench its noise floor and, per tuned
parameter, its spreads, verdict and how each value fared (see harness/analysis/sensitivity.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from benchspace.harness.plan import ParamValue

VerdictName = Literal["dead", "flat", "keep", "untested"]

DEFAULT_NOISE_PCT = 1.0


@dataclass(frozen=True, kw_only=True)
class NoiseFloor:
    """The spread below which a difference is noise, in percent, and where it came from."""

    pct: float
    source: str
    """``repeats``, ``reported spread``, ``flag`` or ``unknown`` (the flag's value is used)."""
    measured_pct: float | None
    """What the profile itself says (None when it says nothing), even when a flag overrides."""
    basis: int
    """How many measurements the measured figure pools."""


@dataclass(frozen=True, kw_only=True)
class ValueStat:
    """How one value of a parameter fared against the cases' bests."""

    value: ParamValue
    wins: tuple[int, ...]
    """Indices of the cases whose best configuration has this value."""
    excess_by_case: Mapping[int, float]
    """Per case it was measured in: how far (percent) its best configuration there is behind
    the case's best (0 where it wins)."""
    failed_only: bool
    """Attempted, but every attempt failed."""
    never_wins: bool

    @property
    def excess_pct(self) -> float | None:
        """The smallest excess over a case's best (None when never measured)."""
        return min(self.excess_by_case.values()) if self.excess_by_case else None

    @property
    def excess_case(self) -> int | None:
        """The case where the value came closest to the best."""
        if not self.excess_by_case:
            return None
        return min(self.excess_by_case, key=lambda c: (self.excess_by_case[c], c))


@dataclass(frozen=True, kw_only=True)
class ParamReport:
    """The sensitivity of one bench parameter."""

    bench: str
    param: str
    env_var: str | None
    """The environment variable when the parameter is passed as one."""
    spreads: tuple[float, ...]
    """Per-slice spreads in percent, in slice order."""
    median_pct: float | None
    p90_pct: float | None
    max_pct: float | None
    verdict: VerdictName
    inert: bool
    inert_test: str
    """``kruskal-wallis`` or ``none (no repeats)``; empty when the parameter is not inert-able."""
    inert_p: float | None
    """Smallest Bonferroni-adjusted p-value of the pooled and per-case tests (None: untested)."""
    values: tuple[ValueStat, ...]
    pre_tune: int | None = None
    """The pre_tune phase that sets this parameter (judged on the phase's own table of
    measurements and cases); None for a main-sweep parameter."""

    @property
    def slices(self) -> int:
        """Number of slices with at least two values."""
        return len(self.spreads)

    @property
    def never_winning(self) -> tuple[ParamValue, ...]:
        """Values that won no case and never came within noise of a case's best."""
        return tuple(v.value for v in self.values if v.never_wins)

    def winner(self, case_index: int) -> ParamValue:
        """This parameter's value in the case's best configuration (first on ties)."""
        for stat in self.values:
            if case_index in stat.wins:
                return stat.value
        raise KeyError(case_index)


@dataclass(frozen=True, kw_only=True)
class BenchReport:
    """Sensitivity of every tuned parameter of one bench."""

    bench: str
    metric: str
    direction: str
    noise: NoiseFloor
    params: tuple[ParamReport, ...]
    pre_tuned: tuple[str, ...]
    """Parameters set by pre_tune phases (analysed when the profile has the phase's table)."""
    best_params: Mapping[str, ParamValue] | None
    """The cross-case best configuration, when the profile has one."""
    measurements: int
    cases: tuple[int, ...]

    @property
    def unanalysed(self) -> tuple[str, ...]:
        """Pre-tuned parameters without a report (older profiles hold only the winner)."""
        analysed = {p.param for p in self.params}
        return tuple(n for n in self.pre_tuned if n not in analysed)

    def param(self, name: str) -> ParamReport:
        """The report of parameter `name`."""
        for report in self.params:
            if report.param == name:
                return report
        raise KeyError(name)


@dataclass(frozen=True, kw_only=True)
class SensitivityReport:
    """The analysis of a whole profile."""

    source: str
    benches: tuple[BenchReport, ...]
    noise_option: str
    """``auto`` or the percentage given."""
    fallback_pct: float = DEFAULT_NOISE_PCT

    def bench(self, name: str) -> BenchReport:
        """The report of bench `name`."""
        for report in self.benches:
            if report.bench == name:
                return report
        raise KeyError(name)
