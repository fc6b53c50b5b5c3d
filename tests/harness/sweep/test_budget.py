"""The budget guard and ``tune --plan``: sizes known, and refused, before anything runs."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.spaces.load import load_space
from benchspace.harness.sweep.budget import check_budget, plan_budget


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "repeats": 3,
        "cases": [
            {"fixed": {"n": 64}, "tune": {"block": [16, 32, 48]}},
            {"fixed": {"n": 256}, "tune": {"block": [16, 32, 48, 64]}},
        ],
    }
    entry.update(over)
    return entry


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def test_plan_counts_configurations_and_repeats(write_space: Callable[..., Path]) -> None:
    budgets = plan_budget(load_space(write_space([_bench()])))
    (b,) = budgets
    assert (b.bench, b.cases, b.configurations, b.repeats, b.invocations) == ("fake", 2, 7, 3, 21)
    (again,) = plan_budget(load_space(write_space([_bench()])), repeats=1)
    assert again.invocations == 7


def test_plan_prints_and_runs_nothing(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench()])
    before = _digest(fake_build)
    code = main(["tune", "--space", str(space), "--build-dir", str(fake_build), "--plan"])
    out = capsys.readouterr().out
    assert code == 0
    assert "fake" in out and "7 configurations" in out and "21 invocations" in out
    assert "total: 21 invocations" in out
    assert _digest(fake_build) == before  # no store, no profile, nothing run


def test_over_budget_is_refused_before_anything_runs(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench()])
    before = _digest(fake_build)
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--quiet"]
    assert main([*argv, "--max-invocations", "20"]) == 1
    err = capsys.readouterr().err
    assert (
        f"{space}: 21 invocations planned (bench fake: 7 configurations x 3 repeats), more "
        "than --max-invocations 20; raise it (0: no limit) or trim the grid (benchspace "
        "sensitivity --write-pruned)"
    ) in err
    assert _digest(fake_build) == before
    assert main([*argv, "--max-invocations", "0"]) == 0  # 0: no limit
    assert main([*argv, "--max-invocations", "-1"]) == 2


def test_default_budget_refuses_a_million(write_space: Callable[..., Path]) -> None:
    grid = list(range(1000))
    big = _bench(
        arg_spec=["n", "block", "tile"],
        repeats=1,
        cases=[{"fixed": {"n": 64}, "tune": {"block": grid, "tile": grid}}],
    )
    space = write_space([big])
    with pytest.raises(BenchspaceError, match=r"1,000,000 invocations planned") as err:
        check_budget(space, plan_budget(load_space(space)), 100_000)
    assert "--max-invocations 100000" in str(err.value)
