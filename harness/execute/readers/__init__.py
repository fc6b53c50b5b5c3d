"""Output readers: pure functions from what a benchmark printed to named rows of fields.

``REGISTRY`` is the one table of readers: the space schema's ``reader`` values, the space
rules (which reader needs ``row`` or ``pattern``), the invocation (its flags and output file),
``--validate`` (what the rows tell of the arguments) and the CLI's choices all read it, and
``tests/harness/execute/test_reader_contract.py`` runs every reader in it through one
contract. A reader is one module implementing ``base.Reader``.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers.base import (
    STREAMS,
    Output,
    Reader,
    ReadSettings,
    Row,
    Stream,
    clean_name,
)
from benchspace.harness.execute.readers.gbench import GbenchJson, read_gbench_json
from benchspace.harness.execute.readers.minibench import MinibenchCsv, read_minibench_csv
from benchspace.harness.execute.readers.regex import Regex, read_regex
from benchspace.harness.execute.readers.select import metric_of, select_row
from benchspace.harness.execute.readers.table import CsvTable, read_csv

__all__ = [
    "READERS",
    "REGISTRY",
    "STREAMS",
    "Output",
    "ReadSettings",
    "Reader",
    "Row",
    "Stream",
    "clean_name",
    "get_reader",
    "metric_of",
    "read_csv",
    "read_gbench_json",
    "read_minibench_csv",
    "read_output",
    "read_regex",
    "select_row",
    "time_unit_of",
]

REGISTRY: Mapping[str, Reader] = {
    r.name: r for r in (MinibenchCsv(), GbenchJson(), CsvTable(), Regex())
}
"""Every reader, by the name a space gives it; the first is the default."""
READERS: tuple[str, ...] = tuple(REGISTRY)


def get_reader(name: str, *, source: str = "output") -> Reader:
    """The reader of that name; a ReaderError naming the known ones otherwise."""
    reader = REGISTRY.get(name)
    if reader is None:
        raise ReaderError(f"{source}: unknown reader {name!r}; use one of {', '.join(READERS)}")
    return reader


def time_unit_of(name: str) -> str | None:
    """The unit the named reader converts times to (None: none, or no such reader)."""
    reader = REGISTRY.get(name)
    return None if reader is None else reader.time_unit


def _text(data: str | bytes) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def read_output(
    reader: str,
    text: str | bytes,
    *,
    pattern: str | None = None,
    stream: Stream = "stdout",
    stderr: str | bytes = "",
    source: str = "output",
) -> list[Row]:
    """Parse a run's output with the named reader; `text` is its output file (or stdout),
    `stderr` its stderr; bytes are read as UTF-8 with U+FFFD for what is not. `source` names
    the output in errors. Whatever the text, the only exception is a ReaderError
    (unparsable output is the benchmark's fault)."""
    chosen = get_reader(reader, source=source)
    output = Output(text=_text(text), stderr=_text(stderr))
    settings = ReadSettings(pattern=pattern, stream=stream)
    try:
        return chosen.parse(output, settings, source=source)
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise ReaderError(
            f"{source}: the output cannot be read ({type(exc).__name__}: {exc}); the "
            "benchmark's output is malformed"
        ) from None
