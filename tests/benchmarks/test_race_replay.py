"""benchmarks/race_replay.py: the race replayed on a fixed-repeat sweep's store takes the live
race's decisions and invocations (the fake's k-th call of a configuration draws the same
value in both, so the replay must match ``tune --race`` exactly)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[2]
MEANS = {f"{c},{k}": 100.0 * (c + 1) * (1.0 + (0.015 if k == 1 else 0.2 * k)) for c in range(3)
         for k in range(6)}  # fmt: skip


def _tune(space: Path, build: Path, out: Path, env: dict[str, str], *flags: str) -> None:
    argv = [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(build), "--out", str(out), "--quiet", *flags]  # fmt: skip
    subprocess.run(argv, env=env, check=True, capture_output=True)


def test_the_replay_of_a_fixed_sweep_is_the_live_race(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"means": MEANS, "sd": 0.01, "seed": 5}))
    space = write_space(
        [
            {
                "bench": "noisy",
                "exe": "noisy",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["c", "k"],
                "cases": [{"fixed": {"c": c}, "tune": {"k": list(range(6))}} for c in range(3)],
            }
        ]
    )
    envs = {
        name: {
            **os.environ,
            "FAKE_NOISY_SPEC": str(spec),
            "FAKE_NOISY_STATE": str(tmp_path / f"state_{name}"),
            "FAKE_LOG": str(tmp_path / f"{name}.log"),
        }
        for name in ("fixed", "race")
    }
    fixed_store = tmp_path / "fixed.sqlite"
    _tune(space, build, tmp_path / "fixed.json", envs["fixed"], "--repeats", "10",
          "--store", str(fixed_store))  # fmt: skip
    _tune(space, build, tmp_path / "race.json", envs["race"], "--race", "--repeats", "10",
          "--store", str(tmp_path / "race.sqlite"))  # fmt: skip
    live = len((tmp_path / "race.log").read_text().splitlines())
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "race_replay.py"), str(fixed_store),
         "--space", str(space)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    head = re.search(r"^noisy main: race (\d+) of (\d+) invocations", done.stdout, re.M)
    assert head is not None, done.stdout
    assert (int(head[1]), int(head[2])) == (live, 3 * 6 * 10)
    assert live < 3 * 6 * 10
    raced = json.loads((tmp_path / "race.json").read_text())["results"][0]["per_case_best"]
    for case, best in enumerate(raced):
        decided = best["decided"]
        line = re.search(rf"^  case {case}: (\w+) after \d+ rounds, (\d+) samples", done.stdout,
                         re.M)  # fmt: skip
        assert line is not None, done.stdout
        assert (line[1], int(line[2])) == (decided["decided"], decided["samples"])
        if "resolves_pct" in decided:  # a cap: the replay states what the live race recorded
            gaps = re.search(rf"^  case {case}: cap .*\(resolves ([\d.]+) %, read ([\d.]+) %\)",
                             done.stdout, re.M)  # fmt: skip
            assert gaps is not None, done.stdout
            assert (gaps[1], gaps[2]) == (
                f"{decided['resolves_pct']:.1f}", f"{decided['read_pct']:.1f}")  # fmt: skip
    assert "reading a gap wider than they resolve: 0" in done.stdout
    assert any("resolves_pct" in best["decided"] for best in raced)  # k = 0, 1: 1.5 % apart
