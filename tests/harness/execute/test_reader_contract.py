"""The one contract every registered reader passes: rows, errors, row selection, quoting, odd
and huge input, non-UTF-8. A reader added to ``REGISTRY`` without a writer here fails
``test_every_registered_reader_is_under_contract``."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.invoke import OUT_PLACEHOLDER, OUTPUT_FILES, RunOptions
from benchspace.harness.execute.readers import (
    READERS,
    REGISTRY,
    Row,
    metric_of,
    read_output,
    select_row,
)
from benchspace.harness.spaces.model import DEFAULT_READER

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Writer:
    """How a benchmark prints rows in one reader's format."""

    metric: str
    line: Callable[[str, float], str]
    """One row, its name written as given (the caller quotes it or not)."""
    head: str = ""
    tail: str = ""
    pattern: str | None = None
    quote: Callable[[str], str] = lambda name: f'"{name}"'
    """The name as the format quotes one (a CSV cell, a JSON string)."""

    def text(self, rows: Sequence[tuple[str, float]], *, quoted: bool = True) -> str:
        lines = [self.line(self.quote(n) if quoted else n, v) for n, v in rows]
        return self.head + self.joiner.join(lines) + self.tail

    @property
    def joiner(self) -> str:
        return ",\n" if self.head.endswith("[\n") else "\n"


def _gbench_line(name: str, value: float) -> str:
    entry = {
        "run_name": "@",
        "run_type": "iteration",
        "repetitions": 1,
        "repetition_index": 0,
        "threads": 1,
        "iterations": 10,
        "real_time": value,
        "cpu_time": value,
        "time_unit": "ns",
    }
    body = json.dumps(entry).replace('"@"', name)
    return '{"name": ' + name + ", " + body[1:]


WRITERS: dict[str, Writer] = {
    "minibench-csv": Writer(
        metric="avg_ms",
        head="name,arg0,iterations,avg_ms,stddev_ms,GFLOPS\n",
        line=lambda n, v: f"{n},64,10,{v!r},0.01,2.5",
        tail="\n",
    ),
    "gbench-json": Writer(
        metric="real_time",
        head='{"context": {"library_version": "v1.7.1"},\n"benchmarks": [\n',
        line=_gbench_line,
        tail="\n]}\n",
        quote=lambda name: json.dumps(name, ensure_ascii=False),
    ),
    "csv": Writer(metric="avg_ms", head="name,avg_ms\n", line=lambda n, v: f"{n},{v!r}", tail="\n"),
    "regex": Writer(
        metric="avg_ms",
        line=lambda n, v: f"result {n}: {v!r} ms",
        pattern=r"^result (?P<name>.+): (?P<avg_ms>\S+) ms$",
        tail="\n",
    ),
}
ROWS = [("BM_a/64", 1.5), ("BM_b/64", 2.5), ("BM_c/64", 0.25)]
readers = pytest.mark.parametrize("name", READERS)


def parse(name: str, text: str | bytes, **kw: object) -> list[Row]:
    return read_output(name, text, pattern=WRITERS[name].pattern, source="out", **kw)  # type: ignore[arg-type]


def value(name: str, row: Row) -> float:
    return metric_of(row, WRITERS[name].metric, source="out")[0]


def test_every_registered_reader_is_under_contract() -> None:
    assert sorted(WRITERS) == sorted(REGISTRY)
    assert READERS[0] == DEFAULT_READER
    schema = json.loads((ROOT / "harness/schema/space-1.schema.json").read_text("utf-8"))
    assert schema["$defs"]["reader"]["enum"] == list(READERS)
    readme = (ROOT / "README.md").read_text("utf-8")
    assert all(f"`{name}`" in readme for name in READERS)


@readers
def test_the_table_and_the_invocation_agree(name: str) -> None:
    reader = REGISTRY[name]
    assert reader.name == name and name in reader.label
    flags = reader.flags(RunOptions(), OUT_PLACEHOLDER)
    assert OUTPUT_FILES.get(name) == reader.output_file
    # a reader with an output file tells the benchmark where to write it; others add nothing
    assert any(OUT_PLACEHOLDER in f for f in flags) == (reader.output_file is not None)
    assert reader.needs_row <= reader.multi_row and reader.reports_args in (
        "named",
        "given",
        "none",
    )


@readers
def test_rows_and_values(name: str) -> None:
    rows = parse(name, WRITERS[name].text(ROWS))
    expected = ROWS if REGISTRY[name].multi_row else ROWS[-1:]  # one row: the last figures
    assert [(r.name, value(name, r)) for r in rows] == expected


@readers
def test_row_selection(name: str) -> None:
    rows = parse(name, WRITERS[name].text(ROWS))
    if not REGISTRY[name].multi_row:
        assert select_row(rows, None, source="out").name == "BM_c/64"
        return
    assert select_row(rows, "BM_b", source="out").name == "BM_b/64"
    assert select_row(rows, '"BM_b/64"', source="out").name == "BM_b/64"  # copied with quotes
    with pytest.raises(ReaderError) as err:
        select_row(rows, "/64", source="out")
    assert str(err.value) == (
        "out: row '/64' matches 3 rows: 'BM_a/64', 'BM_b/64', 'BM_c/64'; make \"row\" long "
        "enough to match one"
    )
    with pytest.raises(ReaderError, match=r"^out: no row name contains 'BM_z'; rows found: "):
        select_row(rows, "BM_z", source="out")
    with pytest.raises(ReaderError, match=r"^out: the output has 3 rows and the bench sets no"):
        select_row(rows, None, source="out")


@readers
@pytest.mark.parametrize(
    "spelled",
    ['"BM_X"', ' "BM_X"', '"BM_X" ', "BM_X", " BM_X "],
)
def test_quoted_names_read_bare(name: str, spelled: str) -> None:
    writer = WRITERS[name]
    if name == "gbench-json":  # a JSON string: quotes are its syntax, blanks are the name's
        spelled = writer.quote(spelled.strip().strip('"'))
    (row,) = parse(name, writer.text([(spelled, 4.0)], quoted=False))
    assert (row.name, value(name, row)) == ("BM_X", 4.0)


@readers
def test_quoted_names_with_commas(name: str) -> None:
    bare = "BM_X<float, batchlas::Backend::NETLIB>"
    (row,) = parse(name, WRITERS[name].text([(bare, 3.0)]))
    assert (row.name, value(name, row)) == (bare, 3.0)


@readers
@pytest.mark.parametrize(
    "odd",
    ["", "\n\n", "\ufeff", "\x00\x00", "Segmentation fault\n", "\ud800", "{[(", "\r\r\r"],
)
def test_odd_input_is_no_rows_or_a_reader_error(name: str, odd: str) -> None:
    try:
        rows = parse(name, odd)
    except ReaderError as exc:
        assert str(exc).startswith("out: ") and "\n" not in str(exc)
    else:
        assert isinstance(rows, list)


@readers
def test_bom_progress_updates_and_crlf_are_tolerated(name: str) -> None:
    writer = WRITERS[name]
    text = "\ufeff" + writer.text(ROWS).replace("\n", "\r\n")
    if name != "gbench-json":  # a JSON file has no progress lines
        text = "\ufeff10%\r50%\r" + writer.text(ROWS).replace("\n", "\r\n")
    rows = parse(name, text)
    assert rows[-1].name == "BM_c/64" and value(name, rows[-1]) == 0.25


@readers
def test_non_utf8_bytes_read_with_replacement(name: str) -> None:
    data = WRITERS[name].text([("BM_\udcff", 7.0)]).encode("utf-8", "surrogateescape")
    assert b"\xff" in data
    (row,) = parse(name, data)
    assert (row.name, value(name, row)) == ("BM_\ufffd", 7.0)


@readers
def test_huge_output(name: str) -> None:
    many = [(f"BM_{i}", float(i + 1)) for i in range(50_000)]
    rows = parse(name, WRITERS[name].text(many))
    assert len(rows) == (50_000 if REGISTRY[name].multi_row else 1)
    assert select_row(rows, "BM_49999", source="out").name == "BM_49999"


@readers
def test_huge_and_odd_numbers(name: str) -> None:
    text = WRITERS[name].text([("BM_X", 1.0)]).replace("1.0", "1" + "0" * 400)
    # a number beyond float range is refused when read or when taken as the metric, never a value
    with pytest.raises(ReaderError, match=r"^out: .*(not a finite number|OverflowError)"):
        value(name, parse(name, text)[0])
    assert not math.isnan(value(name, parse(name, WRITERS[name].text([("BM_Y", 2.0)]))[0]))


def test_an_unknown_reader_is_a_reader_error() -> None:
    with pytest.raises(ReaderError) as err:
        read_output("xml", "<a/>", source="out")
    assert str(err.value) == (
        "out: unknown reader 'xml'; use one of minibench-csv, gbench-json, csv, regex"
    )
