"""One benchmark process (prepare, start, wait, collect) and the serial pipeline over many."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchspace.harness.execute import process
from benchspace.harness.execute.executor import LocalExecutor
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.execute.process import Process, execute, run_process


def _inv(tmp_path: Path, script: str, *, timeout_s: float = 30.0, index: int = 0) -> Invocation:
    exe = tmp_path / f"prog{index}.sh"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)
    return Invocation(
        bench="b",
        case_index=0,
        phase="main",
        params={"i": index},
        exe=exe.name,
        exe_path=exe,
        exe_sha256="x",
        argv=(exe.name, str(index)),
        env={},
        reader="regex",
        pattern=r"value (?P<value>\d+)",
        row=None,
        metric="value",
        timeout_s=timeout_s,
        repeat=0,
    )


@pytest.fixture(autouse=True)
def _own_scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("BENCHSPACE_TMPDIR", str(scratch))
    return scratch


def test_output_cwd_and_cleanup(tmp_path: Path) -> None:
    script = 'echo "value $1"; echo "to stderr" >&2; pwd; touch left_behind\n'
    result = run_process(_inv(tmp_path, script, index=7))
    m = result.measurement
    assert m.status == "ok" and m.returncode == 0
    assert "value 7" in result.text and "to stderr" not in result.text  # stdout only
    assert result.stderr == ""  # read only when the space asks for stderr
    cwd = m.stdout_tail.splitlines()[1]
    assert cwd.startswith(str(tmp_path / "scratch"))  # a directory of its own
    assert m.stderr_tail == "to stderr\n"
    assert m.started_at and m.duration_s > 0
    assert os.listdir(tmp_path / "scratch") == []  # removed, files the benchmark left included


def test_stderr_is_read_when_the_space_asks(tmp_path: Path) -> None:
    script = 'echo "value 3" >&2; echo "value 9"; echo "value 4" >&2\n'
    for stream, value in (("stdout", 9.0), ("both", 9.0), ("stderr", 4.0)):
        inv = replace(_inv(tmp_path, script, index=1), stream=stream)
        result = run_process(inv)
        assert (result.text, result.stderr != "") == ("value 9\n", stream != "stdout")
        assert execute(inv).measurement.value == value, stream
    quiet = 'echo "progress 50%"; echo "value 5" >&2\n'
    inv = replace(_inv(tmp_path, quiet, index=2), stream="both")
    assert execute(inv).measurement.value == 5.0  # stdout has no match: stderr's


def test_timeout_kills_the_group(tmp_path: Path) -> None:
    script = "sleep 30 &\necho started\nwait\n"
    result = run_process(_inv(tmp_path, script, timeout_s=0.5))
    m = result.measurement
    assert m.status == "timeout" and m.returncode is None
    assert "no result after 0.5 s" in m.error
    assert m.stdout_tail == "started\n"
    assert m.duration_s < 10


def test_timeout_counts_from_start_not_from_wait(tmp_path: Path) -> None:
    p = Process(_inv(tmp_path, "sleep 5\n", timeout_s=0.3))
    p.start()
    import time

    time.sleep(0.5)  # the caller was busy: the deadline has passed when it comes to wait
    p.wait()
    assert p.collect().measurement.status == "timeout"


def test_crash_and_exit_status(tmp_path: Path) -> None:
    crashed = run_process(_inv(tmp_path, "kill -SEGV $$\n")).measurement
    assert crashed.status == "crashed" and crashed.error == "killed by SIGSEGV"
    failed = run_process(_inv(tmp_path, "exit 3\n", index=1)).measurement
    assert failed.status == "failed" and failed.error == "exit status 3"


def test_missing_and_unstartable(tmp_path: Path) -> None:
    inv = _inv(tmp_path, "")
    from dataclasses import replace

    missing = run_process(replace(inv, exe_path=None)).measurement
    assert missing.status == "missing" and "not found" in missing.error
    bad = tmp_path / "not_executable"
    bad.write_text("no shebang, no x bit")
    failed = run_process(replace(inv, exe_path=bad)).measurement
    assert failed.status == "unavailable" and failed.error.startswith("cannot start:")


def test_discard_kills_a_started_process_and_cleans_up(tmp_path: Path) -> None:
    p = Process(_inv(tmp_path, "sleep 30\n"))
    p.start()
    assert p.proc is not None
    p.discard()
    assert p.proc.poll() is not None  # killed and reaped
    assert os.listdir(tmp_path / "scratch") == []


def test_serial_pipeline_runs_in_order_one_at_a_time(tmp_path: Path) -> None:
    log = tmp_path / "log"
    # Each run notes its start and end; an overlap would interleave the lines.
    script = f'echo "start $1" >> {log}; sleep 0.05; echo "end $1" >> {log}; echo "value $1"\n'
    invs = [_inv(tmp_path, script, index=i) for i in range(5)]
    results = [m for ms in LocalExecutor(jobs=1).run(iter(invs)) for m in ms]
    assert [m.value for m in results] == [0.0, 1.0, 2.0, 3.0, 4.0]
    lines = log.read_text().split()
    assert lines == [w for i in range(5) for w in ("start", str(i), "end", str(i))]
    assert os.listdir(tmp_path / "scratch") == []


def test_serial_pipeline_closed_early_leaves_nothing_behind(tmp_path: Path) -> None:
    invs = [_inv(tmp_path, 'sleep 0.2; echo "value $1"\n', index=i) for i in range(4)]
    runs = LocalExecutor(jobs=1).run(invs)
    first = next(runs)  # the second process is running, the third prepared
    assert first[0].value == 0.0
    runs.close()
    assert os.listdir(tmp_path / "scratch") == []


def test_without_memfd_output_files_are_unnamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(process.os, "memfd_create", raising=False)
    script = 'ls -A; echo "value $1"\n'
    result = run_process(_inv(tmp_path, script, index=3))
    assert result.measurement.status == "ok"
    assert result.text.startswith("value 3")  # `ls -A` saw an empty directory
    assert sys.platform != "linux" or os.listdir(tmp_path / "scratch") == []


def test_no_descriptor_left_for_an_output_file_leaves_no_scratch_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[int] = []
    real = process.output_file

    def second_fails(scratch: str, name: str) -> int:
        if opened:
            raise OSError(24, "Too many open files")  # EMFILE, as under ulimit -n 8
        opened.append(real(scratch, name))
        return opened[-1]

    monkeypatch.setattr(process, "output_file", second_fails)
    with pytest.raises(OSError, match="Too many open files"):
        Process(_inv(tmp_path, 'echo "value 1"\n'))
    assert os.listdir(tmp_path / "scratch") == []  # the directory made for it is gone
    with pytest.raises(OSError):
        os.fstat(opened[0])  # and the stdout file opened for it is closed
