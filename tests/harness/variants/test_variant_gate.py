"""Compiles paused while a timed run holds the gate; cores split for pinning."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from benchspace.harness.variants.gate import Gate, split_cores


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_a_hold_stops_every_build_group_and_its_end_resumes_them() -> None:
    gate = Gate(pause=True)
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        gate.register(proc.pid)
        with gate.hold():
            time.sleep(0.1)
            assert _state(proc.pid) == "T"
            late = subprocess.Popen(["sleep", "30"], start_new_session=True)
            gate.register(late.pid)  # started during a hold: stopped at once
            time.sleep(0.1)
            assert _state(late.pid) == "T"
        time.sleep(0.1)
        assert _state(proc.pid) == "S" and _state(late.pid) == "S"
        assert gate.paused_seconds() >= 0.2
        late.kill()
        late.wait()
    finally:
        proc.kill()
        proc.wait()


def test_no_pause_gate_never_stops_anything() -> None:
    gate = Gate(pause=False)
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        gate.register(proc.pid)
        with gate.hold():
            time.sleep(0.1)
            assert _state(proc.pid) == "S"
    finally:
        proc.kill()
        proc.wait()


def test_cores_split_runs_first_builds_after() -> None:
    split = split_cores([3, 0, 1, 2], 1)
    assert split is not None and split.run_cpus == (0,) and split.build_cpus == (1, 2, 3)
    assert split_cores([0], 1) is None
