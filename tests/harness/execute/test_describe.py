"""The --describe convention and tune --validate's per-check report: checked, failed, or not
checked (never "ok" for a check that cannot be made)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.execute.describe import (
    Description,
    args_check,
    parse_description,
    rows_check,
)
from benchspace.harness.execute.readers import Row
from benchspace.harness.spaces.load import parse_space


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
    }
    entry.update(over)
    return entry


def _space_bench(**over: Any) -> Any:
    return parse_space({"spaces": [_bench(**over)]}, source="s.json").benches[0]


def _line(**doc: Any) -> str:
    return json.dumps({"format": "benchspace-describe", "version": 1, **doc})


def test_parse_description_takes_the_last_describe_line() -> None:
    out = "banner\n" + _line(args=["n", "block"], rows=["BM_x"]) + "\n"
    assert parse_description(out) == Description(args=("n", "block"), rows=("BM_x",))
    assert parse_description("name,arg0\n") == "the executable does not answer --describe"
    newer = json.dumps({"format": "benchspace-describe", "version": 2, "args": []})
    assert parse_description(newer) == "--describe version 2 is newer than this benchspace reads"
    assert "not lists of strings" in str(parse_description(_line(args=[1])))


def test_args_against_a_description_and_what_each_reader_cannot_tell() -> None:
    bench = _space_bench()
    ok = args_check(bench, Description(args=("n", "block"), rows=()), None)
    assert (ok.state, ok.text()) == ("ok", "args: ok (--describe: ['n', 'block'])")
    drift = args_check(bench, Description(args=("n", "nb", "fuse"), rows=()), None)
    assert drift.state == "failed" and "['n', 'nb', 'fuse'] but arg_spec is ['n', 'block']" in (
        drift.detail
    )
    unknown = "the executable does not answer --describe"
    mini = args_check(bench, unknown, Row(name="x", args=((None, "64"), (None, "32"))))
    assert mini.text() == (
        "args: not checked (minibench writes as many argK columns as it was given; "
        "the executable does not answer --describe)"
    )
    csv = args_check(_space_bench(reader="csv"), unknown, Row(name="x"))
    assert csv.state == "not checked" and "the csv reader reports no arguments" in csv.detail
    gb = _space_bench(reader="gbench-json", metric="real_time", row="BM_x")
    named = args_check(gb, unknown, Row(name="x", args=(("n", "64"), ("block", "32"))))
    assert named.state == "ok" and "named in the run name" in named.detail
    counted = args_check(gb, unknown, Row(name="x", args=((None, "64"), (None, "32"))))
    assert counted.state == "ok" and counted.detail.startswith("count only")
    bare = args_check(gb, unknown, Row(name="x"))
    assert bare.state == "not checked" and "the run name carries no arguments" in bare.detail
    templ = args_check(_space_bench(arg_spec=["n", "--block={block}"]), unknown, None)
    assert templ.text() == "args: not checked (arg_spec has templates)"


def test_rows_against_a_description() -> None:
    two = Description(args=(), rows=("BM_sort_random", "BM_sort_runs"))
    assert rows_check(_space_bench(row="BM_sort_random/"), two).state == "ok"
    assert rows_check(_space_bench(row="random"), two).state == "ok"
    ambiguous = rows_check(_space_bench(row="BM_sort"), two)
    assert ambiguous.state == "failed" and "matches 2 (BM_sort_random, BM_sort_runs)" in (
        ambiguous.detail
    )
    none = rows_check(_space_bench(row="BM_lu"), two)
    assert none.state == "failed" and "matches none of the executable's rows" in none.detail
    unset = rows_check(_space_bench(), two)
    assert unset.state == "failed" and 'sets no "row"' in unset.detail
    paren = Description(args=(), rows=("(BM_SB2ST_HH_BACK<float, batchlas::Backend::NETLIB>)",))
    assert rows_check(_space_bench(row="BM_SB2ST_HH_BACK"), paren).state == "ok"
    assert rows_check(_space_bench(), "no answer").text() == "rows: not checked (no answer)"


def test_validate_reports_every_check_per_bench(
    fake_build: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = write_space([_bench(row="BM_FAKE")])
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--validate"]
    assert main(argv) == 0
    (line, _summary) = capsys.readouterr().out.splitlines()
    assert line.startswith("ok       fake: fake_benchmark row 'BM_FAKE<float>'")
    assert line.endswith(
        "; args: not checked (minibench writes as many argK columns as it was given; the "
        "executable does not answer --describe); rows: not checked (the executable does not "
        "answer --describe)"
    )
    assert " ok" not in line.split("; ", 1)[1]  # nothing it could not check reads as passed
    monkeypatch.setenv("FAKE_DESCRIBE_ARGS", "n,block")
    assert main(argv) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.endswith(
        "; args: ok (--describe: ['n', 'block']); rows: ok (row 'BM_FAKE' picks BM_FAKE)"
    )
    monkeypatch.setenv("FAKE_DESCRIBE_ARGS", "n,nb,block")
    assert main(argv) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(
        "failed   fake: --describe says the arguments are ['n', 'nb', 'block'] but arg_spec is "
        "['n', 'block']; fix arg_spec to match the executable; rows: ok"
    )
