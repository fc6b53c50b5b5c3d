"""An interrupted ``--rerun`` keeps the previous profile; a resume names its campaign
(issue 22, class 10)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _bench(name: str, n: int) -> dict[str, object]:
    return {"bench": name, "exe": f"{name}_benchmark", "metric": "avg_ms",
            "arg_spec": ["n", "block"],
            "cases": [{"fixed": {"n": n}, "tune": {"block": [16, 32]}}]}  # fmt: skip


def test_an_interrupted_rerun_leaves_the_previous_profile_and_a_resume_says_so(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build = tmp_path / "build"
    for name in ("one", "two", "three"):
        installer(build, f"{name}_benchmark")
    space = write_space([_bench("one", 64), _bench("two", 99), _bench("three", 128)])
    profile = tmp_path / "profile.json"
    log = tmp_path / "log"
    argv = [sys.executable, "-m", "benchspace", "tune", "--space", str(space), "--build-dir",
            str(build), "--out", str(profile), "--timeout", "60"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FAKE_LOG": str(log)}
    assert subprocess.run(argv, env=env, capture_output=True, check=False).returncode == 0
    before = profile.read_bytes()
    assert len(json.loads(before)["results"]) == 3
    hang = {**env, "FAKE_HANG_AT": "99"}
    proc = subprocess.Popen([*argv, "--rerun"], env=hang, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and log.read_text().count('"99"') < 3:
        time.sleep(0.02)  # bench two runs (again), and hangs
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert profile.read_bytes() == before  # not replaced by a bench-one-only profile
    resumed = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr
    said = [x for x in resumed.stderr.splitlines() if x.startswith("continuing the campaign")]
    assert len(said) == 1, resumed.stderr
    first = said[0]
    assert first.startswith(f"continuing the campaign in {tmp_path / 'profile.store.sqlite'}: ")
    assert "attempts stored, the first at " in first and first.endswith("(--rerun starts anew)")
