"""Parallel hygiene: each --jobs worker on cores of its own, no more workers than cores."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError
from benchspace.harness.execute.affinity import (
    available_cpus,
    format_cpus,
    pinned_spawn_mask,
    place,
    restore_mask,
)


def test_format_cpus_as_ranges() -> None:
    assert format_cpus([3, 0, 1, 2, 6]) == "0-3,6"
    assert format_cpus([1]) == "1"
    assert format_cpus([0, 2]) == "0,2"


def test_place_gives_each_worker_its_own_cores() -> None:
    p = place(2, 2, range(8))
    assert p.sets == ((0, 1), (2, 3)) and p.warnings == ()
    assert p.provenance() == {"available_cpus": "0-7", "cpu_sets": ["0-1", "2-3"]}


def test_place_refuses_more_cores_than_available() -> None:
    with pytest.raises(UsageError) as err:
        place(3, 1, (0, 1))
    assert str(err.value) == (
        "--jobs 3 x --cpus-per-job 1 = 3 cores, but this process may use 2 (0-1): parallel "
        "benchmarks would share cores and inflate each other's timings; lower --jobs, or "
        "pass --oversubscribe to run anyway"
    )
    shared = place(3, 1, (0, 1), oversubscribe=True)
    assert shared.sets == ((0,), (1,), (0,)) and "inflated" in shared.warnings[0]
    with pytest.raises(UsageError, match="--cpus-per-job: 0 must be at least 1"):
        place(2, 0, (0, 1))


def test_place_warns_when_every_core_is_taken() -> None:
    placement = place(2, 1, (0, 1))
    (note,) = placement.notes
    assert "uses every core" in note and "inflated" in note and not placement.warnings


def test_pinned_spawn_mask_is_restored() -> None:
    before = os.sched_getaffinity(0)
    first = available_cpus()[:1]
    mask = pinned_spawn_mask(first)
    assert os.sched_getaffinity(0) == set(first)
    restore_mask(mask)
    assert os.sched_getaffinity(0) == before
    assert pinned_spawn_mask(()) is None


def _space(write_space: Callable[..., Path]) -> Path:
    bench: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32, 48, 64]}}],
    }
    return write_space([bench])


@pytest.mark.skipif(len(available_cpus()) < 2, reason="needs two cores")
def test_jobs_pin_workers_and_record_it(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = fake_build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(_space(write_space)), "--build-dir", str(fake_build)]
    assert main([*argv, "--out", str(out), "--jobs", "2"]) == 0
    cores = available_cpus()
    parallel = json.loads(out.read_text())["meta"]["provenance"]["parallel"]
    assert parallel["jobs"] == 2 and parallel["cpus_per_job"] == 1
    assert parallel["cpu_sets"] == [str(cores[0]), str(cores[1])]
    store = sqlite3.connect(fake_build / "tuning" / "profile.store.sqlite")
    devices = {d for (d,) in store.execute("SELECT device FROM attempts")}
    store.close()
    assert devices <= {f"cpu:{cores[0]}", f"cpu:{cores[1]}"} and devices
    if len(cores) == 2:
        assert "uses every core" in capsys.readouterr().err


def test_jobs_beyond_the_cores_are_refused(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tune", "--space", str(_space(write_space)), "--build-dir", str(fake_build)]
    jobs = str(len(available_cpus()) + 1)
    assert main([*argv, "--quiet", "--jobs", jobs]) == 2
    assert "pass --oversubscribe to run anyway" in capsys.readouterr().err
    assert not (fake_build / "tuning").exists()  # refused before anything ran
