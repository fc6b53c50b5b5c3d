"""The space's ``stream``: regex and csv read stdout unless it says stderr or both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.errors import SpaceError
from benchspace.harness.execute.readers import read_output
from benchspace.harness.spaces.load import load_space

PATTERN = r"(?P<speed>[0-9.]+) MB/s"


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "z",
        "exe": "zstd",
        "reader": "regex",
        "pattern": PATTERN,
        "metric": "speed",
        "direction": "max",
        "arg_spec": ["-b{level}"],
        "cases": [{"fixed": {}, "tune": {"level": [1, 3]}}],
    }
    entry.update(over)
    return entry


def test_stdout_is_read_first() -> None:
    stdout, stderr = "final 120.5 MB/s\n", "progress 999 MB/s\n"
    rows = read_output("regex", stdout, pattern=PATTERN, stderr=stderr)
    assert rows[0].fields["speed"] == 120.5  # stderr's progress line never wins
    assert (
        read_output("regex", stdout, pattern=PATTERN, stderr=stderr, stream="both")[0].fields[
            "speed"
        ]
        == 120.5
    )
    only = read_output("regex", "", pattern=PATTERN, stderr=stderr, stream="both")
    assert only[0].fields["speed"] == 999.0  # stdout has no match: stderr's
    assert read_output("regex", "", pattern=PATTERN, stderr=stderr) == []
    table = read_output("csv", "", stderr="name,t_ms\nBM_X,2\n", stream="stderr")
    assert (table[0].name, table[0].fields["t_ms"]) == ("BM_X", 2.0)


@pytest.mark.parametrize("stream", ["stdout", "stderr", "both"])
def test_the_space_names_the_stream(stream: str, write_space: Callable[..., Path]) -> None:
    (bench,) = load_space(write_space([_bench(stream=stream)])).benches
    assert bench.stream == stream
    (default,) = load_space(write_space([_bench()])).benches
    assert default.stream == "stdout"


def test_an_unknown_stream_is_refused(write_space: Callable[..., Path]) -> None:
    path = write_space([_bench(stream="stdrr")])
    with pytest.raises(SpaceError) as err:
        load_space(path)
    assert str(err.value).startswith(f"{path}: $.spaces[0].stream: ")
    assert '"stdout" (default), "stderr" or "both"' in str(err.value)


def test_a_file_reader_has_no_stream(write_space: Callable[..., Path]) -> None:
    path = write_space(
        [_bench(reader="gbench-json", pattern=None, row="BM_", metric="real_time", stream="both")]
    )
    raw = path.read_text().replace('"pattern": null,', "")
    path.write_text(raw)
    with pytest.raises(SpaceError) as err:
        load_space(path)
    assert (
        "$.spaces[0].stream: the gbench-json reader reads the file the benchmark writes, not a "
        'stream; remove "stream" (only csv, regex read one)'
    ) in str(err.value)
