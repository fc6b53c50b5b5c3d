"""BatchLAS minibench CSV (pure): ``name,arg0..argN,iterations,avg_ms,stddev_ms,<metrics>``."""

from __future__ import annotations

import re

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers.base import (
    SPREAD_SUFFIXES,
    ArgsReport,
    Output,
    ReadSettings,
    Row,
    TimingSettings,
    cell,
    clean_name,
    csv_records,
    spreads,
)

_ARG_COLUMN = re.compile(r"arg[0-9]+")
_NOT_METRICS = frozenset({"iterations", "stddev_ms"})  # minibench columns with no derived spread


def read_minibench_csv(text: str, *, source: str = "output") -> list[Row]:
    """Rows of a minibench CSV.

    Names may be quoted (they contain commas); an unquoted name with commas (older minibench)
    is rejoined. Names keep minibench's spelling, parentheses and template arguments included
    (``(BM_X<float, batchlas::Backend::NETLIB>)``); surrounding blanks and stray quotes are
    removed as BatchLAS does (`` "BM_X"`` is ``BM_X``). When a metric has no ``<metric>_std``
    column its spread is derived from the relative spread of the iteration times
    (``stddev_ms / avg_ms``), exact for per-time metrics and first-order for rates. A row timed
    once (``iterations`` <= 1: minibench stops after one iteration slower than ``--min_time``
    and writes stddev 0) has no spread: unknown, not 0. A repeated column keeps its first value.
    """
    records = csv_records(text, source)
    if not records:
        return []
    header = [h.strip() for h in records[0]]
    if clean_name(header[0]) != "name":
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
            value = cell(record[i]) if i < len(record) else None
            if _ARG_COLUMN.fullmatch(column):
                if value is not None:
                    args.append((None, record[i].strip()))
            elif value is not None and column not in fields:
                fields[column] = value
        once = isinstance(it := fields.get("iterations"), float) and it <= 1
        spread = {} if once else spreads(fields)
        avg, std = fields.get("avg_ms"), fields.get("stddev_ms")
        if isinstance(avg, float) and isinstance(std, float) and not once:
            spread.setdefault("avg_ms", std)
            if avg > 0:
                for name, value in fields.items():
                    known = name in spread or name.endswith(SPREAD_SUFFIXES)
                    if isinstance(value, float) and not known and name not in _NOT_METRICS:
                        spread[name] = abs(value) * std / avg
        name = clean_name(record[0])
        rows.append(Row(name=name, fields=fields, spread=spread, args=tuple(args)))
    return rows


class MinibenchCsv:
    """BatchLAS's minibench: a CSV file written where ``--csv=`` says."""

    name = "minibench-csv"
    label = "minibench-csv (BatchLAS)"
    output_file: str | None = "out.csv"
    multi_row = True
    needs_row = False
    needs_pattern = False
    reports_args: ArgsReport = "given"
    time_unit: str | None = None

    def flags(self, options: TimingSettings, out: str) -> tuple[str, ...]:
        """minibench's backend, type, output file and timing flags."""
        return (
            f"--backend={options.backend}",
            f"--type={options.dtype}",
            f"--csv={out}",
            f"--warmup={options.warmup}",
            f"--min_time={options.min_time_ms:g}",
            f"--min_iters={options.min_iters}",
            f"--max_iters={options.max_iters}",
        )

    def parse(self, output: Output, settings: ReadSettings, *, source: str) -> list[Row]:
        """The rows of its CSV."""
        del settings
        return read_minibench_csv(output.text, source=source)
