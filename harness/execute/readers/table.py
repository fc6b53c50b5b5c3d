"""Any CSV table with a header (pure): rows named by ``config`` (cutlass_bench), ``name`` or
the first column."""

from __future__ import annotations

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers.base import (
    ArgsReport,
    Output,
    ReadSettings,
    Row,
    TimingSettings,
    cell,
    clean_name,
    csv_records,
    no_flags,
    spreads,
)


def read_csv(text: str, *, source: str = "output") -> list[Row]:
    """Rows of a CSV table; every line must have as many cells as the header. Names lose
    surrounding blanks and stray quotes (`` "BM_X"`` is ``BM_X``), as minibench's do."""
    records = csv_records(text, source)
    if not records:
        return []
    header = [clean_name(h) for h in records[0]]
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
            value = cell(record[i])
            if i != key and value is not None and column not in fields:
                fields[column] = value
        rows.append(Row(name=clean_name(record[key]), fields=fields, spread=spreads(fields)))
    return rows


class CsvTable:
    """A CSV table the benchmark prints on stdout (or on stderr, if the space says so)."""

    name = "csv"
    label = "csv"
    output_file: str | None = None
    multi_row = True
    needs_row = False
    needs_pattern = False
    reports_args: ArgsReport = "none"
    time_unit: str | None = None

    def flags(self, options: TimingSettings, out: str) -> tuple[str, ...]:
        """None: the table comes on a stream."""
        return no_flags(options, out)

    def parse(self, output: Output, settings: ReadSettings, *, source: str) -> list[Row]:
        """The rows of the table on the chosen stream."""
        if settings.stream == "stdout":
            return read_csv(output.text, source=source)
        if settings.stream == "stderr":
            return read_csv(output.stderr, source=source)
        return read_csv(output.text, source=source) or read_csv(output.stderr, source=source)
