"""The profile's records: what ``tune`` writes and every later stage reads (pure).

A profile (format ``benchspace-profile``) holds one `BenchResult` per swept bench: every
measured configuration as a `MeasurementRow` (the median over its repeats, with their spread),
each case's best row, the cross-case leaderboard (`TopEntry`), the pre_tune phases with their
tables, and the failed attempts. BatchLAS profiles (version 0) are upgraded into these same
records when read (harness/profiles/read.py), so no consumer sees a version difference.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchspace.harness.measurement import Value
from benchspace.harness.plan import ParamValue

PROFILE_FORMAT = "benchspace-profile"
PROFILE_VERSION = 2


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfileProvenance:
    """Where a sweep ran and what it swept (``meta.provenance``)."""

    space_path: str | None = None
    space_sha256: str | None = None
    executables: Mapping[str, str] | None = None
    """Executable name -> SHA-256 of the file that was swept (None: the profile does not say)."""
    other: Mapping[str, Any] = field(default_factory=dict)
    """Everything else it records (command, git state, host, GPU, options ...), as JSON data."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfileMeta:
    """The profile's ``meta`` block: BatchLAS's keys plus the provenance."""

    backend: str | None = None
    dtype: str | None = None
    build_dir: str | None = None
    hostname: str | None = None
    platform: str | None = None
    generated_at: str | None = None
    provenance: ProfileProvenance | None = None
    other: Mapping[str, Any] = field(default_factory=dict)
    """Keys this version does not name, kept as JSON data."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    """How a winner was decided (``decided`` beside a per-case best or the cross-case best):
    ``separated`` (every other configuration beaten beyond the noise), ``tie`` (the survivors
    within the margin), ``cap`` (neither, at the repeat cap)."""

    decided: str
    confidence: float
    """The family-wise confidence of the drops (harness/sweep/decide.py)."""
    samples: int
    """The winner's samples (summed over cases for the cross-case best)."""
    rounds: int = 0
    tied: tuple[Mapping[str, ParamValue], ...] = ()
    """With ``tie``: the parameters of each configuration tied with the winner."""
    unbeaten: tuple[Mapping[str, ParamValue], ...] = ()
    """With ``cap``: the parameters of each configuration not beaten when the race ended
    (the winner among them), which ``generate`` treats as statistically tied."""
    resolves_pct: float | None = None
    """With ``cap`` and others unbeaten: the widest gap to the winner that the last look
    would have dropped at the noise it measured (harness/sweep/resolution.py)."""
    rounds_for_margin: int | None = None
    """With ``resolves_pct``: about how many rounds the race's margin would take at that
    noise."""
    read_pct: float | None = None
    """With ``resolves_pct``: the widest gap by which an unbeaten configuration read slower
    than the leader, on the test's scale (None in profiles written before it)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Selection:
    """A confirmed row's figures from the sweep that selected it (``selection``)."""

    median: float
    n: int
    stdev: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class MeasurementRow:
    """One measured configuration of one case: the median over its repeats and their spread.

    Also the record of a case's best configuration (``per_case_best``), and of a pre_tune
    phase's table cell (`BenchResult.phase_rows`)."""

    case_index: int
    fixed: Mapping[str, Value]
    """The case's fixed values."""
    params: Mapping[str, ParamValue]
    """The tuned values (grid, pre-tuned and env ones; None = an env variable left unset)."""
    args: tuple[Value, ...] = ()
    """The positional arguments in ``arg_spec`` order, as BatchLAS writes them: a parameter's
    value (an integer stays an integer), a template entry's rendered word."""
    argv: tuple[str, ...] = ()
    """The whole command line of its first repeat (the executable first; empty in profiles
    that do not record it: BatchLAS's)."""
    env: Mapping[str, str | None] = field(default_factory=dict)
    samples: tuple[float, ...] = ()
    """Every successful repeat's value."""
    spread: float | None = None
    """The benchmark's own reported spread (mean over repeats), when it reports one."""
    median: float | None = None
    """None when no repeat succeeded."""
    mean: float | None = None
    stdev: float | None = None
    n: int | None = None
    decided: Verdict | None = None
    """On a per-case best: how it was decided (None in profiles written before)."""
    selection: Selection | None = None
    """With ``tune --confirm``: the selection sweep's figures (the row's are the
    confirmation's)."""
    confirmed: bool | None = None
    """With ``tune --confirm``: False for a row the confirmation did not re-time in a case it
    confirmed (not evidence for the header any more); None without a confirmation."""

    @property
    def value(self) -> float | None:
        """The configuration's metric: the median over its repeats."""
        return self.median

    def param(self, name: str) -> ParamValue:
        """The value parameter `name` had: tuned first, then the case's fixed value."""
        return self.params[name] if name in self.params else self.fixed.get(name)

    @property
    def rel_error(self) -> float | None:
        """Relative standard error of the value (stdev / sqrt(n) / value); None if unknown."""
        if self.stdev is None or self.n is None or self.n < 2:
            return None
        if self.median is None or self.median <= 0:
            return None
        return self.stdev / math.sqrt(self.n) / self.median


class LazyRows(Sequence[MeasurementRow]):
    """Rows made when read, not held (a large sweep's, harness/profiles/row_table.py)."""

    __slots__ = ()

    def valued(self) -> Sequence[MeasurementRow]:
        """The rows with a value."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, kw_only=True, slots=True)
class TopCase:
    """One case of a leaderboard entry: the configuration's value there."""

    case_index: int
    fixed: Mapping[str, Value]
    args: tuple[Value, ...]
    env: Mapping[str, str | None]
    value: float | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TopEntry:
    """A configuration of the cross-case leaderboard, scored over every case."""

    params: Mapping[str, ParamValue]
    score: float
    """Geometric mean over cases of the value's ratio to the case's best (1.0 = best)."""
    cases: tuple[TopCase, ...]
    decided: Verdict | None = None
    selection_score: float | None = None
    """With ``tune --confirm``: the score in the selection sweep."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PhaseTableRow:
    """One combo a pre_tune phase measured: per phase case its median, stdev and repeats."""

    params: Mapping[str, ParamValue]
    values: tuple[float | None, ...]
    """None where it failed."""
    stdevs: tuple[float | None, ...] | None = None
    """None in profiles written before the table carried it."""
    n: tuple[int | None, ...] | None = None
    score: float | None = None
    """None unless it succeeded in every phase case."""
    selection_score: float | None = None
    """With ``tune --confirm``: the score in the phase's sweep (the row's figures are the
    confirmation's)."""
    confirmed: bool | None = None
    """With ``tune --confirm``: whether the phase's confirmation re-timed this combination
    (False: the sweep's figures, no evidence for the winner); None without one."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PreTunePhaseResult:
    """What one pre_tune phase decided, and (in newer profiles) every combo it measured."""

    phase_index: int
    params: Mapping[str, tuple[ParamValue, ...]]
    """The phase's grids."""
    cases: tuple[int, ...]
    resolved_params: Mapping[str, ParamValue] | None
    """The winner; None when no combination succeeded in every phase case."""
    values: tuple[float, ...]
    score: float | None
    note: str | None = None
    table: tuple[PhaseTableRow, ...] | None = None
    """None in profiles written before the table existed (they hold only the winner)."""
    decided: Verdict | None = None
    """How the winner was decided (the phase's race, its confirmation's, or one look at the
    end); ``tied`` and ``unbeaten`` list phase combinations. None in profiles written before
    phases recorded it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Failure:
    """A failed attempt, kept in the profile so that it stays visible."""

    case_index: int
    phase: str
    params: Mapping[str, ParamValue]
    status: str
    argv: tuple[str, ...]
    env: Mapping[str, str | None]
    error: str
    stderr_tail: str
    repeat: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Coverage:
    """Whether the cross-case leaderboard covers the sweep, and why not."""

    complete: bool
    note: str
    combos: int | None = None
    combos_covering_all_cases: int | None = None
    combos_scored: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchResult:
    """One bench's entry in a profile."""

    bench: str
    metric: str = ""
    direction: str = "min"
    """``min`` or ``max``."""
    exe: str = ""
    exe_sha256: str = ""
    arg_spec: tuple[str, ...] = ()
    env_spec: Mapping[str, str] = field(default_factory=dict)
    report_only: bool = False
    pre_tune: tuple[PreTunePhaseResult, ...] = ()
    failures: tuple[Failure, ...] = ()
    best: TopEntry | None = None
    top: tuple[TopEntry, ...] = ()
    per_case_best: tuple[MeasurementRow, ...] = ()
    measurements: Sequence[MeasurementRow] = ()
    """A tuple, or (from a sweep) `LazyRows`."""
    coverage: Coverage = field(default_factory=lambda: Coverage(complete=False, note=""))
    _by_case: dict[bool, dict[int, tuple[MeasurementRow, ...]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """``case_rows``'s index (main sweep: False, pre_tune phases: True), built on first use."""

    @property
    def rows(self) -> Sequence[MeasurementRow]:
        """The measured configurations with a value (at least one successful repeat), less
        those a confirmation left out (the rows it re-timed are the evidence)."""
        if isinstance(self.measurements, LazyRows):
            return self.measurements.valued()  # a sweep's rows: none confirmed or not
        return tuple(
            m for m in self.measurements if m.median is not None and m.confirmed is not False
        )

    @property
    def phase_rows(self) -> tuple[MeasurementRow, ...]:
        """What the pre_tune phases measured (from their tables), on the phases' cases; of a
        confirmed phase, the combinations its confirmation re-timed (the evidence)."""
        rows: list[MeasurementRow] = []
        for phase in self.pre_tune:
            for entry in phase.table or ():
                if entry.confirmed is False:
                    continue
                stdevs = entry.stdevs or (None,) * len(phase.cases)
                counts = entry.n or (None,) * len(phase.cases)
                columns = zip(phase.cases, entry.values, stdevs, counts, strict=False)
                for case, value, stdev, count in columns:
                    if value is None:
                        continue
                    rows.append(
                        MeasurementRow(
                            case_index=case,
                            fixed={},
                            params=entry.params,
                            median=value,
                            stdev=stdev,
                            n=count,
                        )
                    )
        return tuple(rows)

    def case_rows(self, case_index: int, *, phase: bool = False) -> tuple[MeasurementRow, ...]:
        """The rows measured in one case (by the main sweep, or by the pre_tune phases).

        Grouped once per result (asking for every case is linear in the rows, not their
        number times the cases')."""
        if phase not in self._by_case:
            groups: dict[int, list[MeasurementRow]] = {}
            for row in self.phase_rows if phase else self.rows:
                groups.setdefault(row.case_index, []).append(row)
            self._by_case[phase] = {c: tuple(rows) for c, rows in groups.items()}
        return self._by_case[phase].get(case_index, ())

    @property
    def pre_tuned(self) -> tuple[str, ...]:
        """Parameters set by the pre_tune phases, in order."""
        return tuple(dict.fromkeys(name for phase in self.pre_tune for name in phase.params))


@dataclass(frozen=True, kw_only=True, slots=True)
class Profile:
    """A whole profile document (any version, upgraded when read)."""

    meta: ProfileMeta
    results: Mapping[str, BenchResult]
    """By bench name, in the file's order."""
    version: int = PROFILE_VERSION
    """The version the file was written in (0 = BatchLAS, no ``format`` key)."""
    source: str = ""
    """The file it was read from (empty for one built in memory)."""
    sha256: str = ""
    """SHA-256 of the file's bytes (empty for one built in memory)."""

    @property
    def space_path(self) -> str | None:
        """The space file the sweep read, as recorded."""
        return None if self.meta.provenance is None else self.meta.provenance.space_path

    @property
    def space_sha256(self) -> str | None:
        """The hash of the space file the sweep read, as recorded."""
        return None if self.meta.provenance is None else self.meta.provenance.space_sha256

    @property
    def failure_counts(self) -> dict[str, int]:
        """How many failed attempts the profile holds, by status."""
        counts: Counter[str] = Counter()
        for result in self.results.values():
            counts.update(f.status for f in result.failures)
        return dict(counts)
