"""SIGTERM and SIGHUP stop a sweep as SIGINT does: benchmark groups killed (a grandchild that
left its group too), scratch removed, one line, exit 128 + n; the finished rows are kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _alive(pid: str) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(("signum", "jobs"), [(signal.SIGTERM, "1"), (signal.SIGHUP, "2"),
                                              (signal.SIGINT, "1")])  # fmt: skip
def test_stop_signal_kills_everything_and_says_one_line(
    fake_build: Path, write_space: Callable[..., Path], tmp_path: Path, signum: int, jobs: str
) -> None:
    bench = {"bench": "fake", "exe": "fake_benchmark", "reader": "csv",
             "metric": "Time (µs) / matrix", "arg_spec": ["n", "block"],
             "cases": [{"fixed": {"n": 64}, "tune": {"block": [8, 16, 24]}}]}  # fmt: skip
    space = write_space([bench])
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    log, pids = tmp_path / "log", tmp_path / "pids"
    env = {**os.environ, "FAKE_LOG": str(log), "FAKE_PIDS": str(pids),
           "FAKE_TERMHANG_AT": "16", "FAKE_SETSID_AT": "8", "BENCHSPACE_TMPDIR": str(scratch),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    argv = [sys.executable, "-m", "harness.cli", "tune", "--space", str(space), "--build-dir",
            str(fake_build), "--jobs", jobs, "--quiet", "--timeout", "60"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and any(json.loads(x)[-1] == "16" for x in log.read_text().splitlines()):
            break
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=20)
    name = signal.Signals(signum).name
    assert proc.returncode == 128 + signum
    assert err.strip().splitlines() == [
        f"error: interrupted by {name}; benchmark processes killed, finished measurements kept "
        "in the store (re-run to resume)"
    ]
    left = [pid for pid in pids.read_text().split() if _alive(pid)]
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert left == []
    assert list(scratch.iterdir()) == []
