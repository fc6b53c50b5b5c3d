"""Output readers: pure functions from what a benchmark printed to named rows of fields.

Readers are tolerant (unknown columns and JSON keys are ignored); choosing the row and the
metric is strict (no match, several matches or a missing metric is a ReaderError that lists
what was found).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import re
import statistics
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchspace.harness.errors import ReaderError

READERS: tuple[str, ...] = ("minibench-csv", "gbench-json", "csv", "regex")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ARG_COLUMN = re.compile(r"arg[0-9]+")
# Google Benchmark appends run options to a benchmark's name; they are not arguments.
_GBENCH_OPTIONS = re.compile(
    r"(threads|iterations|repeats|min_time|min_warmup_time):.*|real_time|manual_time|process_time"
)
_GBENCH_SKIPPED_KEYS = frozenset(
    {
        "name",
        "run_name",
        "run_type",
        "aggregate_name",
        "aggregate_unit",
        "family_index",
        "per_family_instance_index",
        "repetition_index",
        "error_occurred",
        "skipped",
    }
)
_SPREAD_SUFFIXES = ("_std", "_stddev", "_sd")
_NOT_METRICS = frozenset({"iterations", "stddev_ms"})  # minibench columns with no derived spread


@dataclass(frozen=True, kw_only=True)
class Row:
    """One result row: its name, numeric or text fields, and what the benchmark said of spread.

    gbench-json rows keep ``real_time``/``cpu_time`` in the benchmark's own unit, given by the
    text field ``time_unit`` (``ns``, ``us``, ``ms`` or ``s``).
    """

    name: str
    fields: Mapping[str, float | str] = field(default_factory=dict)
    spread: Mapping[str, float] = field(default_factory=dict)
    """Field -> its reported standard deviation."""
    samples: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    """Field -> per-repetition values (Google Benchmark repetitions); may be empty."""
    args: tuple[tuple[str | None, str], ...] = ()
    """Arguments as the executable reported them: (name or None, value)."""


def _cell(text: str) -> float | str | None:
    """A number if the cell reads as one, else its text; None for an empty cell."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return text


def _spreads(fields: Mapping[str, float | str]) -> dict[str, float]:
    """Spread columns such as ``GFLOPS_std`` attached to the field they describe."""
    out: dict[str, float] = {}
    for name, value in fields.items():
        for suffix in _SPREAD_SUFFIXES:
            base = name[: -len(suffix)]
            if name.endswith(suffix) and base in fields and isinstance(value, float):
                out.setdefault(base, value)
    return out


def _terminal_lines(text: str) -> str:
    """The text as a terminal shows it: after a ``\\r`` (a progress update) a line starts over."""
    if "\r" not in text:
        return text
    return "\n".join(ln.rpartition("\r")[2] for ln in text.replace("\r\n", "\n").split("\n"))


def _csv_records(text: str, source: str) -> list[list[str]]:
    records = csv.reader(io.StringIO(_terminal_lines(text.lstrip("\ufeff"))))
    try:
        return [r for r in records if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ReaderError(
            f"{source}: not a readable CSV table (line {records.line_num}: {exc}); the "
            "benchmark's output is malformed"
        ) from None


def read_minibench_csv(text: str, *, source: str = "output") -> list[Row]:
    """BatchLAS minibench CSV: ``name,arg0..argN,iterations,avg_ms,stddev_ms,<metrics>``.

    Names may be quoted (they contain commas); an unquoted name with commas (older minibench)
    is rejoined. When a metric has no ``<metric>_std`` column its spread is derived from the
    relative spread of the iteration times (``stddev_ms / avg_ms``); none for a row timed once
    (``iterations`` <= 1: unknown, not 0). A repeated column name keeps its first value.
    """
    records = _csv_records(text, source)
    if not records:
        return []
    header = [h.strip() for h in records[0]]
    if header[0] != "name":
        raise ReaderError(
            f"{source}: not a minibench CSV: its first column is {header[0]!r}, not 'name'; "
            "use reader csv for other CSV files"
        )
    rows = []
    for record in records[1:]:
        if (extra := len(record) - len(header)) > 0:
            record = [",".join(record[: extra + 1]), *record[extra + 1 :]]
        fields: dict[str, float | str] = {}
        args: list[tuple[str | None, str]] = []
        for i, column in enumerate(header[1:], start=1):
            value = _cell(record[i]) if i < len(record) else None
            if _ARG_COLUMN.fullmatch(column):
                if value is not None:
                    args.append((None, record[i].strip()))
            elif value is not None and column not in fields:
                fields[column] = value
        once = isinstance(it := fields.get("iterations"), float) and it <= 1
        spread = {} if once else _spreads(fields)
        avg, std = fields.get("avg_ms"), fields.get("stddev_ms")
        if isinstance(avg, float) and isinstance(std, float) and not once:
            spread.setdefault("avg_ms", std)
            if avg > 0:
                for name, value in fields.items():
                    known = name in spread or name.endswith(_SPREAD_SUFFIXES)
                    if isinstance(value, float) and not known and name not in _NOT_METRICS:
                        spread[name] = abs(value) * std / avg
        rows.append(Row(name=record[0].strip(), fields=fields, spread=spread, args=tuple(args)))
    return rows


def read_csv(text: str, *, source: str = "output") -> list[Row]:
    """Any CSV with a header; names rows by ``config`` (cutlass_bench), ``name`` or col 1."""
    records = _csv_records(text, source)
    if not records:
        return []
    header = [h.strip() for h in records[0]]
    lowered = [h.lower() for h in header]
    key = next((lowered.index(c) for c in ("config", "name") if c in lowered), 0)
    rows = []
    for number, record in enumerate(records[1:], start=2):
        if len(record) != len(header):
            raise ReaderError(
                f"{source}: CSV line {number} has {len(record)} cells but the header has "
                f"{len(header)}; the output is not a well-formed CSV table"
            )
        fields: dict[str, float | str] = {}
        for i, column in enumerate(header):
            value = _cell(record[i])
            if i != key and value is not None and column not in fields:
                fields[column] = value
        rows.append(Row(name=record[key].strip(), fields=fields, spread=_spreads(fields)))
    return rows


def _gbench_args(run_name: str) -> tuple[tuple[str | None, str], ...]:
    """``BM_x/n:64/8/real_time`` -> ((n, 64), (None, 8)); run options are not arguments."""
    out: list[tuple[str | None, str]] = []
    for part in run_name.split("/")[1:]:
        if not part or _GBENCH_OPTIONS.fullmatch(part):
            continue
        name, sep, value = part.partition(":")
        out.append((name, value) if sep else (None, part))
    return tuple(out)


def _gbench_entries(text: str, source: str) -> list[Mapping[str, Any]]:
    # Tolerate lines a program printed before the JSON document (e.g. on stdout).
    start = text.find("{")
    while start > 0 and text[start - 1] not in "\n\r":
        start = text.find("{", start + 1)
    try:
        document, _ = json.JSONDecoder().raw_decode(text[max(start, 0) :])
    except json.JSONDecodeError as exc:
        raise ReaderError(
            f"{source}: not Google Benchmark JSON ({exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}); run it with --benchmark_out_format=json"
        ) from None
    entries = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ReaderError(
            f'{source}: JSON without a "benchmarks" list is not Google Benchmark output; run '
            "it with --benchmark_out_format=json"
        )
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)]


def read_gbench_json(text: str, *, source: str = "output") -> list[Row]:
    """Google Benchmark JSON: one Row per ``run_name``, however many repetitions it had.

    A field's value is the median of its repetitions (the ``median`` aggregate when only
    aggregates were reported); ``spread`` is the ``stddev`` aggregate (or the repetitions'
    sample stdev); every aggregate is also kept as ``<field>_<aggregate>``. A run that reported
    an error has the text field ``error_message`` and no times.
    """
    groups: dict[str, dict[str, Any]] = {}
    for entry in _gbench_entries(text, source):
        aggregate = entry.get("aggregate_name") if entry.get("run_type") == "aggregate" else None
        run_name = entry.get("run_name")
        if not isinstance(run_name, str):
            run_name = entry["name"]
            if aggregate and run_name.endswith(f"_{aggregate}"):
                run_name = run_name[: -len(aggregate) - 1]
        if aggregate in ("BigO", "RMS"):
            continue  # complexity fits describe a family, not one run
        group = groups.setdefault(run_name, {"runs": [], "aggregates": {}, "text": {}})
        if entry.get("error_occurred") or entry.get("skipped") in ("error", True):
            group["text"]["error_message"] = str(entry.get("error_message", "error"))
            continue
        numbers = {
            k: float(v)
            for k, v in entry.items()
            if k not in _GBENCH_SKIPPED_KEYS
            and isinstance(v, int | float)
            and not isinstance(v, bool)
        }
        for k, v in entry.items():
            if k not in _GBENCH_SKIPPED_KEYS and isinstance(v, str):
                group["text"].setdefault(k, v)
        if aggregate:
            group["aggregates"][str(aggregate)] = numbers
        else:
            group["runs"].append(numbers)
    return [_gbench_row(name, g) for name, g in groups.items()]


def _gbench_row(name: str, group: Mapping[str, Any]) -> Row:
    runs: list[dict[str, float]] = group["runs"]
    aggregates: dict[str, dict[str, float]] = group["aggregates"]
    samples: dict[str, tuple[float, ...]] = {}
    for run in runs:
        for key in run:
            samples.setdefault(key, ())
    for key in samples:
        samples[key] = tuple(run[key] for run in runs if key in run)
    fields: dict[str, float | str] = {}
    for key, values in samples.items():
        fields[key] = statistics.median(values)
    for agg in ("median", "mean"):
        for key, value in aggregates.get(agg, {}).items():
            fields.setdefault(key, value)
    for agg, numbers in aggregates.items():
        for key, value in numbers.items():
            fields[f"{key}_{agg}"] = value
    spread = dict(aggregates.get("stddev", {}))
    for key, values in samples.items():
        if key not in spread and len(values) > 1:
            spread[key] = statistics.stdev(values)
    if "error_message" in group["text"]:
        for key in ("real_time", "cpu_time"):
            fields.pop(key, None)
    fields.update(group["text"])
    repeated = {k: v for k, v in samples.items() if len(v) > 1}
    return Row(name=name, fields=fields, spread=spread, samples=repeated, args=_gbench_args(name))


def read_regex(text: str, pattern: str, *, source: str = "output") -> list[Row]:
    """The last match of `pattern` (named groups = fields) in the output, as one row.

    ``\\r`` counts as a line break (progress updates), ANSI colour codes are removed, and ``^``
    and ``$`` match at every line. The row is named by a group called ``name`` if there is one,
    else by the matched text. No match gives no rows.
    """
    try:
        compiled = re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise ReaderError(f"{source}: pattern does not compile ({exc})") from None
    lines = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    matches = list(compiled.finditer(lines))
    if not matches:
        return []
    last = matches[-1]  # progress updates come first, the final figures last
    fields: dict[str, float | str] = {}
    for key, value in last.groupdict().items():
        cell = None if value is None else _cell(value)
        if cell is not None:
            fields[key] = cell
    named = last.groupdict().get("name")
    name = named.strip() if named else " ".join(last.group(0).split())
    return [Row(name=name, fields=fields)]


def read_output(
    reader: str, text: str, *, pattern: str | None = None, source: str = "output"
) -> list[Row]:
    """Parse `text` with the named reader; `source` names the output in errors. Whatever the
    text, the only exception is a ReaderError (unparsable output is the benchmark's fault)."""
    try:
        return _read_output(reader, text, pattern=pattern, source=source)
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise ReaderError(
            f"{source}: the output cannot be read ({type(exc).__name__}: {exc}); the "
            "benchmark's output is malformed"
        ) from None


def _read_output(reader: str, text: str, *, pattern: str | None, source: str) -> list[Row]:
    if reader == "minibench-csv":
        return read_minibench_csv(text, source=source)
    if reader == "gbench-json":
        return read_gbench_json(text, source=source)
    if reader == "csv":
        return read_csv(text, source=source)
    if reader == "regex":
        if pattern is None:
            raise ReaderError(f"{source}: the regex reader needs a pattern")
        return read_regex(text, pattern, source=source)
    raise ReaderError(f"{source}: unknown reader {reader!r}; use one of {', '.join(READERS)}")


def _names(rows: Sequence[Row], limit: int = 12) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1
    shown = [f"{n!r}" + (f" (x{c})" if c > 1 else "") for n, c in counts.items()]
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def select_row(rows: Sequence[Row], row: str | None, *, source: str) -> Row:
    """The one row whose name contains `row` (an exact name wins); the only row if `row` is None."""
    if not rows:
        raise ReaderError(
            f"{source}: the output has no rows; was the benchmark compiled out for this "
            "backend/type, or did it stop before printing?"
        )
    if row is None:
        if len(rows) == 1:
            return rows[0]
        raise ReaderError(
            f'{source}: the output has {len(rows)} rows and the bench sets no "row"; set it to '
            f"a substring of one of: {_names(rows)}"
        )
    matches = [r for r in rows if row in r.name]
    exact = [r for r in matches if r.name == row]
    if len(exact) == 1:
        return exact[0]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ReaderError(
            f"{source}: no row name contains {row!r}; rows found: {_names(rows)}; fix the "
            'bench\'s "row"'
        )
    raise ReaderError(
        f'{source}: row {row!r} matches {len(matches)} rows: {_names(matches)}; make "row" '
        "long enough to match one"
    )


def _field_name(fields: Mapping[str, object], metric: str) -> str | None:
    if metric in fields:
        return metric
    # U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU look the same; NFKC folds them.
    folded = unicodedata.normalize("NFKC", metric)
    same = [k for k in fields if unicodedata.normalize("NFKC", k) == folded]
    return same[0] if len(same) == 1 else None


def metric_of(row: Row, metric: str, *, source: str) -> tuple[float, float | None]:
    """The row's metric and its reported spread (None when the benchmark reported none)."""
    key = _field_name(row.fields, metric)
    if key is None:
        error = row.fields.get("error_message")
        if error is not None:
            raise ReaderError(f"{source}: row {row.name!r} reported an error: {error}")
        numeric = [k for k, v in row.fields.items() if isinstance(v, float)]
        close = difflib.get_close_matches(metric, numeric, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        listed = ", ".join(repr(k) for k in numeric) or "none"
        raise ReaderError(
            f"{source}: row {row.name!r} has no field {metric!r}{hint}; numeric fields: "
            f'{listed}; fix the bench\'s "metric"'
        )
    value = row.fields[key]
    if isinstance(value, str):
        raise ReaderError(f"{source}: row {row.name!r}: {metric!r} is {value!r}, not a number")
    if not math.isfinite(value):
        raise ReaderError(f"{source}: row {row.name!r}: {metric!r} is {value}, not a finite number")
    return value, row.spread.get(key)
