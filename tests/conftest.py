"""Shared fixtures: fake benchmark executables in a build tree, space files in tmp dirs."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FAKES = Path(__file__).parent / "fakes"


def install_fake(build_dir: Path, name: str, script: str = "fake_bench.py") -> Path:
    """Put an executable shim ``<build>/benchmarks/<name>`` that runs a fake script."""
    target = build_dir / "benchmarks" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKES / script}" "$@"\n')
    target.chmod(0o755)
    return target


@pytest.fixture
def installer() -> Callable[..., Path]:
    """The ``install_fake`` function, for tests that need other fakes or names."""
    return install_fake


@pytest.fixture
def fake_build(tmp_path: Path) -> Path:
    """A build dir holding ``fake_benchmark`` (minibench CSV / gbench JSON speaker)."""
    build = tmp_path / "build"
    install_fake(build, "fake_benchmark")
    return build


@pytest.fixture
def write_space(tmp_path: Path) -> Callable[..., Path]:
    """Write a space file from a list of bench entries (plus top-level extras)."""

    def write(benches: list[dict[str, Any]], name: str = "space.json", **top: Any) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps({"spaces": benches, **top}, indent=2))
        return path

    return write


@pytest.fixture
def cluster() -> Iterator[Any]:
    """A local Dask cluster: one in-process worker of one thread (``inproc://`` transport:
    nothing on the network). Tests that take it are marked ``dask_cluster.needs_dask``."""
    from dask_cluster import distributed

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        yield c
