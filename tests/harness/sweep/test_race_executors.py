"""tune --race end to end through the other executors: --jobs, a batched bench, --dask.

The fakes draw a (case, configuration)'s k-th sample from ``Random(f"{seed}:{case}:{config}:
{k}")`` (tests/fakes/fake_noisy.py; the batched fake below draws the same way), k counted per
configuration: a race measures each surviving configuration once a round and the rounds one
after another, so the samples, and every drop, do not depend on which executor ran them or in
what order a round's jobs finished."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dask_cluster import needs_dask
from test_race_cli import MEANS, _argv  # the same fake bench: k = 0 best, k = 1 1.5 % behind

from benchspace.harness.cli import main
from benchspace.harness.store import Store

SD, SEED = 0.01, 3
SPEC = {"means": MEANS, "sd": SD, "seed": SEED}
FAR = (2, 3, 4, 5)

# A batched fake_noisy: ``noisy_batch CASE CONFIG [CONFIG ...]`` measures every CONFIG in one
# process and prints a CSV table, one row per CONFIG named by it; one FAKE_LOG line per process.
FAKE_BATCH = """\
import json, math, os, random, sys

argv = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a", encoding="utf-8") as fh:
    fh.write(json.dumps(argv) + "\\n")
case, configs = argv[0], argv[1:]
with open(os.environ["FAKE_NOISY_SPEC"], encoding="utf-8") as fh:
    spec = json.load(fh)
state = os.environ["FAKE_NOISY_STATE"]
os.makedirs(state, exist_ok=True)
sd = float(spec["sd"])
print("config,Time (µs) / matrix")
for config in configs:
    counter = os.path.join(state, f"{case}_{config}")
    k = os.path.getsize(counter) if os.path.exists(counter) else 0
    with open(counter, "ab") as fh:
        fh.write(b".")
    rng = random.Random(f"{spec['seed']}:{case}:{config}:{k}")
    value = spec["means"][f"{case},{config}"] * math.exp(rng.gauss(0.0, sd) - sd * sd / 2)
    print(f"{config},{value:.9f}")
"""


def _draw(case: int, config: int, k: int) -> float:
    """The fakes' k-th sample of (case, config)."""
    rng = random.Random(f"{SEED}:{case}:{config}:{k}")
    return MEANS[f"{case},{config}"] * math.exp(rng.gauss(0.0, SD) - SD * SD / 2)


def _bench(**extra: Any) -> dict[str, Any]:
    return {
        "bench": "noisy",
        "exe": "noisy",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["c", "k"],
        "cases": [{"fixed": {"c": c}, "tune": {"k": list(range(6))}} for c in range(2)],
        **extra,
    }


def _setup(
    tmp_path: Path,
    installer: Callable[..., Path],
    write_space: Callable[..., Path],
    **extra: Any,
) -> tuple[Path, Path, Path]:
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    return build, spec, write_space([_bench(**extra)])


def _fake_env(spec: Path, state: Path, log: Path) -> dict[str, str]:
    return {"FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(state), "FAKE_LOG": str(log)}


def _env(spec: Path, state: Path, log: Path) -> dict[str, str]:
    return {**os.environ, **_fake_env(spec, state, log)}


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _n(result: dict[str, Any]) -> dict[int, dict[int, int]]:
    """Per case, per k: how many samples the profile keeps."""
    out: dict[int, dict[int, int]] = {}
    for m in result["measurements"]:
        out.setdefault(m["case_index"], {})[m["params"]["k"]] = m["n"]
    return out


def _assert_draws(result: dict[str, Any]) -> None:
    """Each configuration's samples are its own draws, the k-th sample the k-th draw."""
    for m in result["measurements"]:
        c, k = m["case_index"], m["params"]["k"]
        assert m["samples"] == pytest.approx([_draw(c, k, i) for i in range(m["n"])], abs=1e-6)


def _assert_sound(result: dict[str, Any], min_repeats: int = 2) -> None:
    """Both cases won by k = 0 under a race verdict; the far configurations dropped at the
    first look, with their min-repeats samples."""
    for best in result["per_case_best"]:
        assert best["params"] == {"k": 0}
        assert best["decided"]["decided"] in ("separated", "tie", "cap")
        assert best["decided"]["samples"] == best["n"] >= min_repeats
    assert result["best"]["params"] == {"k": 0}
    assert result["best"]["decided"]["decided"] in ("separated", "tie", "cap")
    n = _n(result)
    assert sorted(n) == [0, 1]
    assert all(n[c][k] == min_repeats for c in n for k in FAR), n
    assert all(n[c][0] == n[c][1] > min_repeats for c in n), n  # the close pair raced on


def test_race_with_parallel_jobs(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build, spec, space = _setup(tmp_path, installer, write_space)
    out, log = tmp_path / "jobs.json", tmp_path / "jobs.log"
    env = _env(spec, tmp_path / "state", log)
    # (--oversubscribe: a one-core runner shares its core; two cores or more give each job
    # its own, as on CI.)
    flags = ("--race", "--repeats", "10", "--jobs", "2", "--oversubscribe")
    first = subprocess.run(_argv(space, build, out, *flags), env=env, check=True,
                           capture_output=True, text=True)  # fmt: skip
    profile = json.loads(out.read_text())
    result = profile["results"][0]
    _assert_sound(result)
    # Every process run is one sample kept: none lost or doubled by jobs finishing out of order.
    ran = len(_lines(log))
    samples = sum(n for case in _n(result).values() for n in case.values())
    assert ran == samples < 0.6 * 2 * 6 * 10
    assert f"{ran} invocations run, 0 from the store" in first.stdout
    # Two workers, each pinned to its cores, ran them (rows name the cores they ran on).
    parallel = profile["meta"]["provenance"]["parallel"]
    assert parallel["jobs"] == 2 and len(parallel["cpu_sets"]) == 2
    with Store(tmp_path / "jobs.store.sqlite") as store:
        devices = {m.device for m in store.attempts()}
    assert devices == {f"cpu:{cpus}" for cpus in parallel["cpu_sets"]}, (devices, parallel)
    # Each configuration's samples are the fake's draws in order, as a serial race takes them:
    # jobs finishing out of order change nothing the race sees.
    _assert_draws(result)
    again = subprocess.run(_argv(space, build, out, *flags), env=env, check=True,
                           capture_output=True, text=True)  # fmt: skip
    assert "0 invocations run" in again.stdout  # decided cases are not raced again
    assert len(_lines(log)) == ran
    assert json.loads(out.read_text())["results"][0]["per_case_best"] == result["per_case_best"]


def _install_batch_fake(tmp_path: Path, build: Path) -> None:
    script = tmp_path / "fake_noisy_batch.py"
    script.write_text(FAKE_BATCH, encoding="utf-8")
    shim = build / "benchmarks" / "noisy_batch"
    shim.parent.mkdir(parents=True, exist_ok=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    shim.chmod(0o755)


@pytest.mark.parametrize("size", [None, 4])
def test_batched_race_runs_each_round_as_processes_over_the_survivors(
    tmp_path: Path,
    installer: Callable[..., Path],
    write_space: Callable[..., Path],
    size: int | None,
) -> None:
    batch = {"param": "k"} if size is None else {"param": "k", "size": size}
    build, spec, space = _setup(tmp_path, installer, write_space, exe="noisy_batch",
                                reader="csv", batch=batch)  # fmt: skip
    _install_batch_fake(tmp_path, build)
    out, log = tmp_path / "b.json", tmp_path / "b.log"
    env = _env(spec, tmp_path / "state", log)
    flags = ("--race", "--repeats", "10", "--min-repeats", "3")
    first = subprocess.run(_argv(space, build, out, *flags), env=env, check=True,
                           capture_output=True, text=True)  # fmt: skip
    result = json.loads(out.read_text())["results"][0]
    _assert_sound(result, min_repeats=3)
    n = _n(result)
    # Each row is its own configuration's draws, in order (rows matched to members by name).
    _assert_draws(result)
    samples = sum(v for case in n.values() for v in case.values())
    assert f"{samples} invocations run, 0 from the store" in first.stdout
    # Round r measures, per case, the configurations with at least r samples (the survivors),
    # in ceil(survivors / size) processes (size 64 by default: one); rounds run in turn, so
    # the log is round 1's processes, then round 2's, ... A case stops when decided.
    runs = _lines(log)
    per = 64 if size is None else size
    at = 0
    rounds = {c: 0 for c in n}
    for r in range(1, 11):
        survivors = {c: sorted(k for k, v in n[c].items() if v >= r) for c in n}
        count = sum(math.ceil(len(s) / per) for s in survivors.values())
        this, at = runs[at : at + count], at + count
        assert len(this) == count, (r, runs)
        for c, alive in survivors.items():
            mine = [[int(k) for k in run[1:]] for run in this if run[0] == str(c)]
            assert len(mine) == math.ceil(len(alive) / per), (r, c, this)
            assert all(len(ks) <= per for ks in mine)
            assert sorted(k for ks in mine for k in ks) == alive, (r, c, this)
            rounds[c] += bool(alive)
    assert at == len(runs)
    # The first 3 rounds (--min-repeats) run whole cases; after them only k = 0 and 1 race.
    whole = 3 * 2 * math.ceil(6 / per)
    assert sum(len(run) - 1 for run in runs[:whole]) == 3 * 2 * 6
    assert [sorted(run[1:]) for run in runs[whole:]] == [["0", "1"]] * (len(runs) - whole)
    assert {c: b["decided"]["rounds"] for c, b in enumerate(result["per_case_best"])} == rounds
    assert len(runs) < samples
    again = subprocess.run(_argv(space, build, out, *flags), env=env, check=True,
                           capture_output=True, text=True)  # fmt: skip
    assert "0 invocations run" in again.stdout
    assert len(_lines(log)) == len(runs)
    assert json.loads(out.read_text())["results"][0]["per_case_best"] == result["per_case_best"]


@needs_dask
def test_race_on_dask(
    tmp_path: Path,
    installer: Callable[..., Path],
    write_space: Callable[..., Path],
    cluster: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # In process, as tests/harness/execute/test_dask_executor.py runs it: the workers are
    # threads of this process and start the fake with its environment.
    build, spec, space = _setup(tmp_path, installer, write_space)
    out, log = tmp_path / "dask.json", tmp_path / "dask.log"
    for name, value in _fake_env(spec, tmp_path / "state", log).items():
        monkeypatch.setenv(name, value)
    argv = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out),
            "--quiet", "--race", "--repeats", "10",
            "--dask", cluster.scheduler_address]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(out.read_text())["results"][0]
    _assert_sound(result)
    ran = len(_lines(log))
    samples = sum(n for case in _n(result).values() for n in case.values())
    assert ran == samples < 0.6 * 2 * 6 * 10
    assert f"{ran} invocations run, 0 from the store" in capsys.readouterr().out
    _assert_draws(result)
    assert main(argv) == 0
    assert "0 invocations run" in capsys.readouterr().out
    assert len(_lines(log)) == ran
    assert json.loads(out.read_text())["results"][0]["per_case_best"] == result["per_case_best"]
