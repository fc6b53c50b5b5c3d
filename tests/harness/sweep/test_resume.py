"""A sweep killed with SIGKILL loses no finished measurement and re-runs only what was in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchspace.harness.store import Store


def test_sigkill_then_resume(
    fake_build: Path, write_space: Callable[..., Path], tmp_path: Path
) -> None:
    space = write_space(
        [
            {
                "bench": "fake",
                "exe": "fake_benchmark",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["n", "block"],
                "cases": [{"fixed": {"n": 64}, "tune": {"block": list(range(8, 8 + 12))}}],
            }
        ]
    )
    log = tmp_path / "runs.log"
    env = {**os.environ, "FAKE_LOG": str(log), "FAKE_MODE": "slow", "FAKE_SLEEP": "0.3"}
    out = fake_build / "tuning" / "profile.json"
    store_path = fake_build / "tuning" / "profile.store.sqlite"
    argv = [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(fake_build), "--out", str(out), "--quiet"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if store_path.exists():
            with Store(store_path) as store:
                if store.count() >= 4:
                    break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # The benchmark in flight runs in its own session and finishes as an orphan; its result
    # never reaches the store. Let it finish before counting what was started.
    time.sleep(1.0)
    with Store(store_path) as store:
        finished = store.count()
    started = len(log.read_text().splitlines())
    assert 4 <= finished < 12
    assert started - finished <= 1  # at most the one in flight was lost
    env["FAKE_MODE"] = "ok"
    subprocess.run(argv, env=env, check=True)
    rerun = len(log.read_text().splitlines()) - started
    assert rerun == 12 - finished  # only what had not finished
    with Store(store_path) as store:
        assert store.count() == 12
    profile = json.loads(out.read_text())
    assert len(profile["results"][0]["measurements"]) == 12
