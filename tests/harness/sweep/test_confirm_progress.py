"""The progress line's total counts the confirmation's invocations, so done never passes it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def test_progress_total_includes_the_confirmation(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    spec = tmp_path / "spec.json"
    means = {f"0,{k}": 100.0 * (1 + 0.2 * k) for k in range(4)}
    spec.write_text(json.dumps({"means": means, "sd": 0.01, "seed": 1}))
    space = write_space(
        [
            {
                "bench": "noisy",
                "exe": "noisy",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["c", "k"],
                "cases": [{"fixed": {"c": 0}, "tune": {"k": list(range(4))}}],
            }
        ]
    )
    argv = [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(build), "--out", str(tmp_path / "p.json"), "--repeats", "2",
            "--confirm", "2", "--confirm-rounds", "3"]  # fmt: skip
    env = {**os.environ, "FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(tmp_path / "s")}
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    counts = [tuple(map(int, m)) for m in re.findall(r"^\[(\d+)/(\d+)\]", proc.stderr, re.M)]
    assert counts, proc.stderr
    assert all(done <= total for done, total in counts)
    assert counts[-1] == (4 * 2 + 2 * 3, 4 * 2 + 2 * 3)  # the sweep, then 2 picks x 3 rounds


def test_the_library_default_is_confirmed_beside_the_top_k(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """The header's fallback (the library's default) is re-timed in every case even when it
    is far from the top K, so a winner's speed-up over it comes from the confirmation."""
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    spec = tmp_path / "spec.json"
    means = {f"{c},{k}": 100.0 * (c + 1) * (1 + 0.2 * k) for c in range(2) for k in range(5)}
    spec.write_text(json.dumps({"means": means, "sd": 0.01, "seed": 2}))
    header = {
        "path": "params.hh",
        "namespace": "demo",
        "env_prefix": "DEMO_TUNE_",
        "bucket_key": "c",
        "buckets": [["ALL", None]],
        "constants": [{"name": "K", "type": "int32_t", "fallback": 3,
                       "sources": [{"bench": "noisy", "param": "k"}]}],
    }  # fmt: skip
    space = write_space(
        [
            {
                "bench": "noisy",
                "exe": "noisy",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["c", "k"],
                "cases": [{"fixed": {"c": c}, "tune": {"k": list(range(5))}} for c in range(2)],
            }
        ],
        header=header,
    )
    out = tmp_path / "p.json"
    argv = [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(build), "--out", str(out), "--quiet", "--repeats", "2",
            "--confirm", "1", "--confirm-rounds", "2"]  # fmt: skip
    env = {**os.environ, "FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(tmp_path / "s")}
    subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
    (result,) = json.loads(out.read_text())["results"]
    confirmed = sorted(
        (m["case_index"], m["params"]["k"]) for m in result["measurements"] if m.get("confirmed")
    )
    assert confirmed == [(0, 0), (0, 3), (1, 0), (1, 3)]
