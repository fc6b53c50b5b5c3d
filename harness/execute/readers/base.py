"""What every output reader is: the ``Reader`` protocol, the ``Row`` it yields, and the text
handling the readers share (pure).

A reader turns what a benchmark printed into named rows of fields. Readers are tolerant
(unknown columns and JSON keys are ignored); choosing the row and the metric is strict and
lives in ``readers.select``. The one table of readers is ``readers.REGISTRY``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from benchspace.harness.errors import ReaderError

Stream = Literal["stdout", "stderr", "both"]
STREAMS: tuple[Stream, ...] = ("stdout", "stderr", "both")
"""Where a reader without an output file reads: stdout (the default), stderr, or stdout
first and stderr only when stdout has no result."""

ArgsReport = Literal["named", "given", "none"]
"""What a reader's rows say of the executable's arguments: ``named`` (Google Benchmark names
or counts them in the run name), ``given`` (one column per argument it was *given*: it cannot
tell the expected ones) or ``none``."""


@dataclass(frozen=True, kw_only=True)
class Row:
    """One result row: its name, numeric or text fields, and what the benchmark said of spread.

    gbench-json rows hold ``real_time``/``cpu_time`` in nanoseconds whatever unit the
    benchmark printed (``time_unit`` says ``ns``; ``time_unit_reported`` what it printed).
    """

    name: str
    fields: Mapping[str, float | str] = field(default_factory=dict)
    spread: Mapping[str, float] = field(default_factory=dict)
    """Field -> its reported standard deviation."""
    samples: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    """Field -> per-repetition values (Google Benchmark repetitions); may be empty."""
    args: tuple[tuple[str | None, str], ...] = ()
    """Arguments as the executable reported them: (name or None, value)."""


@dataclass(frozen=True, kw_only=True)
class ReadSettings:
    """A bench's settings for its reader (they decide which value a run's output gives)."""

    pattern: str | None = None
    """The regex reader's expression (named groups are fields)."""
    stream: Stream = "stdout"
    """Which of the process's streams a reader without an output file reads."""


@dataclass(frozen=True, kw_only=True)
class Output:
    """What a run left to read: the output file's text (or stdout) and stderr."""

    text: str
    stderr: str = ""


class TimingSettings(Protocol):
    """What a reader's flags may use of the sweep's settings (``RunOptions`` has them)."""

    @property
    def backend(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def warmup(self) -> int: ...
    @property
    def min_time_ms(self) -> float: ...
    @property
    def min_iters(self) -> int: ...
    @property
    def max_iters(self) -> int: ...


class Reader(Protocol):
    """One output format: how to ask for it, how to read it, what ``--validate`` can check."""

    @property
    def name(self) -> str:
        """The space's ``reader`` value."""
        ...

    @property
    def label(self) -> str:
        """How hints name it, e.g. ``gbench-json (Google Benchmark)``."""
        ...

    @property
    def output_file(self) -> str | None:
        """The file the benchmark writes (``{out}`` in its flags); None: it reads a stream."""
        ...

    @property
    def multi_row(self) -> bool:
        """Whether one run can print several rows (then ``row`` chooses)."""
        ...

    @property
    def needs_row(self) -> bool:
        """Whether a bench must set ``row`` (the executable always prints several)."""
        ...

    @property
    def needs_pattern(self) -> bool:
        """Whether a bench must set ``pattern`` (and only this reader reads it)."""
        ...

    @property
    def reports_args(self) -> ArgsReport:
        """What its rows tell ``--validate`` of the arguments (``--describe`` tells more)."""
        ...

    @property
    def time_unit(self) -> str | None:
        """The unit its rows' times are converted to (recorded as the measurement's
        ``extra["time_unit"]``); None: times stay as the benchmark printed them."""
        ...

    def flags(self, options: TimingSettings, out: str) -> tuple[str, ...]:
        """The argv the reader needs before the space's own flags (``out``: ``{out}``)."""
        ...

    def parse(self, output: Output, settings: ReadSettings, *, source: str) -> list[Row]:
        """The rows in a run's output; a ReaderError (naming `source`) when unreadable."""
        ...


def clean_name(text: str) -> str:
    """A row name as the benchmark meant it: surrounding blanks and stray double quotes
    removed (`` "BM_X"`` reads ``BM_X``, as BatchLAS itself strips them)."""
    return text.strip().strip('"').strip()


def cell(text: str) -> float | str | None:
    """A number if the cell reads as one, else its text; None for an empty cell."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return text


SPREAD_SUFFIXES = ("_std", "_stddev", "_sd")


def spreads(fields: Mapping[str, float | str]) -> dict[str, float]:
    """Spread columns such as ``GFLOPS_std`` attached to the field they describe."""
    out: dict[str, float] = {}
    for name, value in fields.items():
        for suffix in SPREAD_SUFFIXES:
            base = name[: -len(suffix)]
            if name.endswith(suffix) and base in fields and isinstance(value, float):
                out.setdefault(base, value)
    return out


def terminal_lines(text: str) -> str:
    """The text as a terminal shows it: after a ``\\r`` (a progress update) a line starts over."""
    if "\r" not in text:
        return text
    return "\n".join(ln.rpartition("\r")[2] for ln in text.replace("\r\n", "\n").split("\n"))


def csv_records(text: str, source: str) -> list[list[str]]:
    """The non-blank records of a CSV text (a BOM and progress updates dropped)."""
    records = csv.reader(io.StringIO(terminal_lines(text.lstrip("\ufeff"))))
    try:
        return [r for r in records if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ReaderError(
            f"{source}: not a readable CSV table (line {records.line_num}: {exc}); the "
            "benchmark's output is malformed"
        ) from None


def no_flags(options: TimingSettings, out: str) -> tuple[str, ...]:
    """A reader that needs no flags of its own."""
    del options, out
    return ()
