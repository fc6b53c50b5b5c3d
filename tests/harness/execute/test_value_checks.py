"""One check for every value, fresh or stored: a time-like metric is never 0 or negative, no
value is infinite; and ``{build_dir}`` in flags is the build directory, never empty."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.execute.invoke import Invocation, RunOptions, build_invocation
from benchspace.harness.execute.metric_check import TIME_WORDS, is_time_metric, stored_problem
from benchspace.harness.execute.process import execute, read_measurement
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task, make_config
from benchspace.harness.spaces.model import Bench, Case

TIMES = ["duration", "elapsed", "latency", "wall_clock", "runtime_s", "time_ms", "T(µs)", "t_ns"]
NOT_TIMES = ["GFLOPS", "GB/s", "items_per_second", "speedup", "ops", "bandwidth_ms"]


def _inv(metric: str, direction: str = "min") -> Invocation:
    return Invocation(
        bench="b", case_index=0, phase="main", params={}, exe="tool", exe_path=None,
        exe_sha256="", argv=("tool",), env={}, reader="csv", pattern=None, row=None,
        metric=metric, timeout_s=5.0, repeat=0, direction=direction,
    )  # fmt: skip


def _read(metric: str, value: str, direction: str = "min") -> Measurement:
    inv = _inv(metric, direction)
    done = Measurement(
        bench="b", case_index=0, phase="main", params={}, argv=inv.argv, env={},
        exe_sha256="", status="ok",
    )  # fmt: skip
    text = f'name,"{metric}"\nBM_X,{value}\n'
    return read_measurement(inv, done, text).measurement


def test_time_like_names_are_one_table() -> None:
    assert {"time", "duration", "elapsed", "latency", "wall_clock"} <= set(TIME_WORDS)
    assert [m for m in TIMES if not is_time_metric(m)] == []
    assert [m for m in NOT_TIMES if is_time_metric(m)] == ["bandwidth_ms"][:0]


@pytest.mark.parametrize("metric", TIMES)
@pytest.mark.parametrize("value", ["0", "-5", "-0.0"])
@pytest.mark.parametrize("direction", ["min", "max"])
def test_a_time_of_zero_or_less_is_a_parse_error(metric: str, value: str, direction: str) -> None:
    m = _read(metric, value, direction)
    shown = f"{float(value):g}"
    assert (m.status, m.value) == ("parse_error", None)
    assert m.error == (
        f"tool (bench b, case 0): row 'BM_X': {metric!r} is {shown}, which cannot be a time "
        "(a benchmark that measured nothing reports it); fix the benchmark"
    )


def test_rates_may_be_zero_and_times_positive() -> None:
    assert _read("GFLOPS", "0", "max").value == 0.0
    assert _read("duration", "0.5").value == 0.5


def test_stored_values_get_the_fresh_checks() -> None:
    def stored(value: float | None, status: Any = "ok") -> Measurement:
        return Measurement(
            bench="b", case_index=0, phase="main", params={}, argv=(), env={},
            exe_sha256="", status=status, value=value, row="BM_X",
        )  # fmt: skip

    assert stored_problem(stored(float("inf")), metric="GFLOPS") == (
        "row 'BM_X': 'GFLOPS' is inf, not a finite number"
    )
    assert stored_problem(stored(-5.0), metric="latency") == (
        "row 'BM_X': 'latency' is -5, which cannot be a time (a benchmark that measured "
        "nothing reports it); fix the benchmark"
    )
    assert stored_problem(stored(-5.0), metric="GFLOPS") is None
    assert stored_problem(stored(None, "failed"), metric="latency") is None
    # a Google Benchmark row stored before times were read in ns is not served as one
    assert stored_problem(stored(3.0), metric="real_time", unit="ns") == (
        "row 'BM_X' was read before its times were converted to ns"
    )
    fresh = replace(stored(3.0), extra={"time_unit": "ns"})
    assert stored_problem(fresh, metric="real_time", unit="ns") is None


def test_a_stored_infinity_or_negative_time_is_measured_again(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = fake_build / "runs.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    space = write_space(
        [
            {
                "bench": "fake",
                "exe": "fake_benchmark",
                "reader": "csv",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["n", "block"],
                "cases": [{"fixed": {"n": 64}, "tune": {"block": [8, 16, 24, 32]}}],
            }
        ]
    )
    out = fake_build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    assert len(log.read_text().splitlines()) == 4
    db = sqlite3.connect(fake_build / "tuning" / "profile.store.sqlite")
    with db:
        db.execute("UPDATE attempts SET value = 9e999 WHERE json_extract(params, '$.block') = 16")
        db.execute("UPDATE attempts SET value = -5 WHERE json_extract(params, '$.block') = 24")
    db.close()
    assert main([*argv, "--quiet"]) == 0
    assert len(log.read_text().splitlines()) == 6  # the two damaged values measured again
    text = out.read_text()
    assert "Infinity" not in text
    values = [m["value"] for m in json.loads(text)["results"][0]["measurements"]]
    assert len(values) == 4 and all(v > 0 for v in values)


def _flagged(flag: str) -> Bench:
    return Bench(
        name="b",
        metric="t_ns",
        reader="csv",
        flags=(flag,),
        cases=(Case(index=0, fixed={}, tune={}),),
    )


def test_build_dir_in_flags_is_the_build_directory(tmp_path: Path) -> None:
    task = Task(bench="b", case_index=0, phase="main", config=make_config({}))
    options = RunOptions(build_dir=tmp_path / "build")
    inv = build_invocation(
        _flagged("--data={build_dir}/x"), task, exe_path=None, exe_sha256="", options=options
    )
    assert inv.build_dir == str(tmp_path / "build")
    assert inv.argv == ("b_benchmark", "--data={build_dir}/x")  # the cache key keeps it as is
    exe = tmp_path / "build" / "b_benchmark"
    exe.parent.mkdir()
    exe.write_text('#!/bin/sh\nprintf "name,t_ns\\n%s,5\\n" "$1"\n')
    exe.chmod(0o755)
    m = execute(replace(inv, exe_path=exe)).measurement
    assert (m.status, m.row, m.value) == ("ok", f"--data={tmp_path}/build/x", 5.0)
    with pytest.raises(BenchspaceError) as err:
        replace(inv, build_dir="")
    assert str(err.value) == (
        "bench b: flag '--data={build_dir}/x' uses {build_dir}, but no build directory is "
        "known, so it would expand to an empty string; pass --build-dir"
    )
