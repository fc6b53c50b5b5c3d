"""Benchmark faults end to end: each is a status of its configuration, never an exception out
of the sweep; a rebuilt executable is tracked per invocation; cannot-start is not cached."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import ReaderError
from benchspace.harness.execute import scratch
from benchspace.harness.execute.metric_check import is_time_metric
from benchspace.harness.execute.process import crash_message
from benchspace.harness.execute.readers import read_output

METRIC = "Time (µs) / matrix"


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "reader": "csv",
        "metric": METRIC,
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [8, 16, 24, 32]}}],
    }
    entry.update(over)
    return entry


def _tune(space: Path, build: Path, *extra: str) -> int:
    out = build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out), *extra]
    return main([*argv, "--timeout", "5"])


def _rows(build: Path) -> dict[int, tuple[str, str, str, float | None]]:
    """block -> (status, error, exe sha, value) of the latest attempt."""
    db = sqlite3.connect(build / "tuning" / "profile.store.sqlite")
    try:
        got = db.execute(
            "SELECT params, status, error, exe_sha256, value FROM attempts ORDER BY id"
        )
        return {json.loads(p)["block"]: (s, e, h, v) for p, s, e, h, v in got}
    finally:
        db.close()


def _runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize(
    ("mode", "status", "error"),
    [
        ("rtsig", "crashed", "killed by SIGRTMIN+3 (signal 37)"),
        ("abort", "crashed", "killed by SIGABRT"),
        ("crash", "crashed", "killed by SIGSEGV"),
        ("bigfield", "parse_error", "fake_benchmark (bench fake, case 0): not a readable CSV "
         "table (line 2: field larger than field limit (131072)); the benchmark's output is "
         "malformed"),
        ("closed", "parse_error",
         "fake_benchmark (bench fake, case 0): produced no output to read"),
        ("zero", "parse_error", "fake_benchmark (bench fake, case 0): row 'BM_FAKE<float>': "
         "'Time (µs) / matrix' is 0, which cannot be a time (a benchmark that measured nothing "
         "reports it); fix the benchmark"),
        ("negative", "parse_error", "fake_benchmark (bench fake, case 0): row 'BM_FAKE<float>': "
         "'Time (µs) / matrix' is -68, which cannot be a time (a benchmark that measured "
         "nothing reports it); fix the benchmark"),
        ("norow", "parse_error", "fake_benchmark (bench fake, case 0): the output has no rows; "
         "was the benchmark compiled out for this backend/type, or did it stop before printing?"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fault_is_the_configurations_status(
    mode: str,
    status: str,
    error: str,
    jobs: str,
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(f"FAKE_{mode.upper()}_AT", "16")
    assert _tune(write_space([_bench()]), fake_build, "--jobs", jobs, "--quiet") == 1
    rows = _rows(fake_build)
    assert rows[16][:2] == (status, error)
    assert all(rows[b][0] == "ok" for b in (8, 24, 32))
    profile = json.loads((fake_build / "tuning" / "profile.json").read_text())
    assert [f["status"] for f in profile["results"][0]["failures"]] == [status]


def test_carriage_returns_read_as_a_terminal_shows_them(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CR_AT", "16")
    assert _tune(write_space([_bench()]), fake_build, "--quiet") == 0
    assert _rows(fake_build)[16][0] == "ok"


def test_readers_raise_only_reader_errors() -> None:
    with pytest.raises(ReaderError, match=r"^out: not a readable CSV table \(line 2: field"):
        read_output("csv", 'a,b\n"' + "x" * (200 << 10) + '",1\n', source="out")
    deep = '{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ReaderError, match=r"^out: the output cannot be read \(RecursionError"):
        read_output("gbench-json", deep, source="out")
    huge = '{"benchmarks": [{"name": "a", "run_name": "a", "real_time": 1' + "0" * 400 + "}]}"
    with pytest.raises(ReaderError, match=r"^out: the output cannot be read \(OverflowError"):
        read_output("gbench-json", huge, source="out")
    (row,) = read_output("minibench-csv", "10%\r50%\rname,ms\nwarm\rx,1.5\r\n", source="out")
    assert (row.name, row.fields["ms"]) == ("x", 1.5)


def test_signal_names_for_every_signal() -> None:
    assert crash_message(11) == "killed by SIGSEGV"
    assert crash_message(34) == "killed by SIGRTMIN (signal 34)"
    assert crash_message(37) == "killed by SIGRTMIN+3 (signal 37)"
    assert crash_message(64) == "killed by SIGRTMAX (signal 64)"
    assert crash_message(99) == "killed by signal 99 (signal 99)"


def test_output_flood_is_a_parse_error_read_only_as_tails(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scratch, "MAX_OUTPUT_BYTES", 1 << 20)
    monkeypatch.setattr("benchspace.harness.execute.process.MAX_OUTPUT_BYTES", 1 << 20)
    monkeypatch.setenv("FAKE_FLOOD_AT", "16")
    monkeypatch.setenv("FAKE_FLOOD_MB", "3")
    assert _tune(write_space([_bench()]), fake_build, "--quiet") == 1
    status, error, _, _ = _rows(fake_build)[16]
    assert (status, error) == (
        "parse_error",
        "fake_benchmark (bench fake, case 0): the output is 3145878 bytes, more than the 1048576 a "
        "reader takes; make the benchmark print less",
    )


def test_rebuilt_executable_rows_carry_the_binary_that_ran(
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    exe = fake_build / "benchmarks" / "fake_benchmark"
    old = exe.read_bytes()
    log = fake_build / "log"
    monkeypatch.setenv("FAKE_EXE", str(exe))
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_REPLACE_AT", "16")
    space = write_space([_bench()])
    assert _tune(space, fake_build) == 0
    rows = _rows(fake_build)
    assert rows[8][2] == rows[16][2] != rows[24][2] == rows[32][2]  # old, old, new, new
    assert rows[24][3] == rows[8][3] * 0.5 * (1 + (8 / 64) ** 2) / (1 + (24 / 64) ** 2)
    err = capsys.readouterr().err
    assert f"warning: {exe} changed during the sweep (sha256 {rows[8][2][:12]} -> " in err
    profile = json.loads((fake_build / "tuning" / "profile.json").read_text())
    (change,) = profile["meta"]["provenance"]["executable_changes"]
    assert (change["old_sha256"], change["new_sha256"]) == (rows[8][2], rows[24][2])
    monkeypatch.delenv("FAKE_REPLACE_AT")
    exe.write_bytes(old)  # the old binary back: only its own rows are served
    before = _runs(log)
    assert _tune(space, fake_build, "--quiet") == 0
    assert _runs(log) - before == 2  # 24 and 32 never ran on the old binary
    profile = json.loads((fake_build / "tuning" / "profile.json").read_text())
    values = {m["params"]["block"]: m["value"] for m in profile["results"][0]["measurements"]}
    assert values[24] > 64 and values[32] > 63  # the old build's numbers, not halved


def test_cannot_start_is_unavailable_and_not_cached(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = fake_build / "benchmarks" / "fake_benchmark"
    log = fake_build / "log"
    monkeypatch.setenv("FAKE_EXE", str(exe))
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_VANISH_AT", "16")  # moves the executable away mid-sweep
    space = write_space([_bench()])
    assert _tune(space, fake_build, "--quiet") == 1
    rows = _rows(fake_build)
    assert rows[24][:2] == (
        "unavailable",
        f"cannot start: {exe}: No such file or directory (ENOENT); not cached: the next sweep "
        "runs it again",
    )
    assert rows[32][0] == "unavailable"
    monkeypatch.delenv("FAKE_VANISH_AT")
    os.replace(f"{exe}.away", exe)
    before = _runs(log)
    assert _tune(space, fake_build, "--quiet") == 0
    assert _runs(log) - before == 2


def test_orphaned_setsid_grandchild_dies_with_the_sweep(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = fake_build / "pids"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    monkeypatch.setenv("FAKE_SETSID_AT", "16")
    assert _tune(write_space([_bench()]), fake_build, "--quiet") == 0
    for pid in pids.read_text().split():
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        assert state == "Z" or pytest.fail(f"pid {pid} outlived the sweep")
        os.kill(int(pid), signal.SIGKILL)


def test_time_metrics_are_told_from_rates() -> None:
    times = ["real_time", "cpu_time", "avg_ms", METRIC, "t_ns", "ms_mean", "elapsed (s)"]
    rates = ["GFLOPS", "GB/s", "bytes_per_second", "items/s", "throughput", "Gflop/s"]
    assert [is_time_metric(m) for m in times] == [True] * len(times)
    assert [is_time_metric(m) for m in rates] == [False] * len(rates)
