"""Google Benchmark JSON (pure): one row per benchmark run, its times in nanoseconds.

Every entry's ``real_time``/``cpu_time`` (and their aggregates, but not the unitless ``cv``)
is converted from its ``time_unit`` to nanoseconds, so runs printed in ms, us and ns compare
as the durations they are; the row says ``time_unit: ns`` and what the benchmark printed in
``time_unit_reported``. Entries are one run's repetitions only when they share the family
(``family_index``, ``per_family_instance_index``) and the ``run_name``: two families that
print one name stay two rows (``row`` then reports the ambiguity). A file holding more than
one JSON document is refused.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Mapping
from typing import Any

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.metric_check import TIME_UNITS
from benchspace.harness.execute.readers.base import (
    ArgsReport,
    Output,
    ReadSettings,
    Row,
    TimingSettings,
)

#: The unit every gbench-json row's times are in.
GBENCH_UNIT = "ns"
_TIMES = ("real_time", "cpu_time")
# Google Benchmark appends run options to a benchmark's name; they are not arguments.
_GBENCH_OPTIONS = re.compile(
    r"(threads|iterations|repeats|min_time|min_warmup_time):.*|real_time|manual_time|process_time"
)
_SKIPPED_KEYS = frozenset(
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
_HINT = "run it with --benchmark_out_format=json"


def _args(run_name: str) -> tuple[tuple[str | None, str], ...]:
    """``BM_x/n:64/8/real_time`` -> ((n, 64), (None, 8)); run options are not arguments."""
    out: list[tuple[str | None, str]] = []
    for part in run_name.split("/")[1:]:
        if not part or _GBENCH_OPTIONS.fullmatch(part):
            continue
        name, sep, value = part.partition(":")
        out.append((name, value) if sep else (None, part))
    return tuple(out)


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    return f"line {line}, column {index - (text.rfind(chr(10), 0, index) + 1) + 1}"


def _entries(text: str, source: str) -> list[Mapping[str, Any]]:
    # Tolerate a BOM, and lines a program printed before the JSON document (e.g. on stdout).
    text = text.lstrip("\ufeff")
    start = text.find("{")
    while start > 0 and text[start - 1] not in "\n\r":
        start = text.find("{", start + 1)
    start = max(start, 0)
    try:
        document, end = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise ReaderError(
            f"{source}: not Google Benchmark JSON ({exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}); {_HINT}"
        ) from None
    rest = start + end + (len(text[start + end :]) - len(text[start + end :].lstrip()))
    if rest < len(text):
        raise ReaderError(
            f"{source}: data after the Google Benchmark JSON document ({_where(text, rest)}); "
            "the output holds more than one document: let the benchmark write a fresh file "
            "per run (--benchmark_out=<file>), never append to one"
        )
    entries = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ReaderError(
            f'{source}: JSON without a "benchmarks" list is not Google Benchmark output; {_HINT}'
        )
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)]


def _numbers(entry: Mapping[str, Any], source: str, aggregate: str | None) -> dict[str, float]:
    numbers = {
        k: float(v)
        for k, v in entry.items()
        if k not in _SKIPPED_KEYS and isinstance(v, int | float) and not isinstance(v, bool)
    }
    unit = entry.get("time_unit", GBENCH_UNIT)
    if unit not in TIME_UNITS:
        known = ", ".join(u for u in TIME_UNITS if u.isascii())
        raise ReaderError(
            f"{source}: {entry['name']!r} has time_unit {unit!r}, which is not a time unit "
            f"({known}); the output is not Google Benchmark's"
        )
    unitless = entry.get("aggregate_unit") == "percentage" or aggregate == "cv"
    if not unitless:
        factor = TIME_UNITS[unit] / TIME_UNITS[GBENCH_UNIT]
        for key in _TIMES:
            if key in numbers:
                numbers[key] *= factor
    return numbers


def _group_key(entry: Mapping[str, Any], run_name: str) -> tuple[object, ...]:
    return (entry.get("family_index"), entry.get("per_family_instance_index"), run_name)


def read_gbench_json(text: str, *, source: str = "output") -> list[Row]:
    """Google Benchmark JSON: one Row per run (family and ``run_name``), however many
    repetitions it had.

    A field's value is the median of its repetitions (the ``median`` aggregate when only
    aggregates were reported); ``spread`` is the ``stddev`` aggregate (or the repetitions'
    sample stdev); every aggregate is also kept as ``<field>_<aggregate>``. A run that reported
    an error has the text field ``error_message`` and no times.
    """
    groups: dict[tuple[object, ...], dict[str, Any]] = {}
    for entry in _entries(text, source):
        aggregate = entry.get("aggregate_name") if entry.get("run_type") == "aggregate" else None
        run_name = entry.get("run_name")
        if not isinstance(run_name, str):
            run_name = entry["name"]
            if aggregate and run_name.endswith(f"_{aggregate}"):
                run_name = run_name[: -len(aggregate) - 1]
        if aggregate in ("BigO", "RMS"):
            continue  # complexity fits describe a family, not one run
        group = groups.setdefault(
            _group_key(entry, run_name),
            {"name": run_name, "runs": [], "aggregates": {}, "text": {}},
        )
        if entry.get("error_occurred") or entry.get("skipped") in ("error", True):
            group["text"]["error_message"] = str(entry.get("error_message", "error"))
            continue
        numbers = _numbers(entry, source, None if aggregate is None else str(aggregate))
        for k, v in entry.items():
            if k not in _SKIPPED_KEYS and isinstance(v, str):
                group["text"].setdefault(k, v)
        if aggregate:
            group["aggregates"][str(aggregate)] = numbers
        else:
            group["runs"].append(numbers)
    return [_row(g) for g in groups.values()]


def _row(group: Mapping[str, Any]) -> Row:
    name: str = group["name"]
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
    text: dict[str, str] = dict(group["text"])
    if "error_message" in text:
        for key in _TIMES:
            fields.pop(key, None)
    if "time_unit" in text:
        text["time_unit_reported"] = text["time_unit"]
    text["time_unit"] = GBENCH_UNIT  # what a row without one was printed in, too
    fields.update(text)
    repeated = {k: v for k, v in samples.items() if len(v) > 1}
    return Row(name=name, fields=fields, spread=spread, samples=repeated, args=_args(name))


class GbenchJson:
    """Google Benchmark: a JSON file written where ``--benchmark_out=`` says."""

    name = "gbench-json"
    label = "gbench-json (Google Benchmark)"
    output_file: str | None = "out.json"
    multi_row = True
    needs_row = True
    needs_pattern = False
    reports_args: ArgsReport = "named"
    time_unit: str | None = GBENCH_UNIT

    def flags(self, options: TimingSettings, out: str) -> tuple[str, ...]:
        """Google Benchmark's JSON output file."""
        del options
        return (f"--benchmark_out={out}", "--benchmark_out_format=json")

    def parse(self, output: Output, settings: ReadSettings, *, source: str) -> list[Row]:
        """The rows of its JSON document."""
        del settings
        return read_gbench_json(output.text, source=source)
