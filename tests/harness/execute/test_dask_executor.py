"""The Dask executor on a local cluster: worker hosts, refusals, one-line errors.

The clusters run in-process (``inproc://`` transport: nothing listens on the network); the
unreachable scheduler is a closed port on 127.0.0.1. Skipped where the optional
'distributed' package is absent (CI installs ``.[dev]``, which does not include it)."""

from __future__ import annotations

import platform
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dask_cluster import distributed, needs_dask

from benchspace.harness.cli import main
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.execute.dask_executor import shared_hosts


def _bench() -> dict[str, Any]:
    return {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
    }


def test_shared_hosts_sums_threads_per_host() -> None:
    workers = {
        "tcp://10.0.0.1:1": {"host": "10.0.0.1", "nthreads": 1},
        "tcp://10.0.0.1:2": {"host": "10.0.0.1", "nthreads": 1},
        "tcp://10.0.0.2:1": {"host": "10.0.0.2", "nthreads": 1},
        "tcp://10.0.0.3:1": {"host": "10.0.0.3", "nthreads": 4},
    }
    assert shared_hosts(workers) == {"10.0.0.1": 2, "10.0.0.3": 4}


def test_jobs_or_gpus_with_dask_is_a_usage_error(
    write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = str(write_space([_bench()]))
    for extra in (["--jobs", "2"], ["--gpus", "0,1"]):
        assert main(["tune", "--space", space, "--dask", "tcp://127.0.0.1:1", *extra]) == 2
        assert "--jobs/--gpus do not apply with --dask" in capsys.readouterr().err


def _tune(space: Path, build: Path, *extra: str) -> int:
    out = build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out)]
    return main([*argv, "--quiet", *extra])


@needs_dask
def test_rows_name_the_workers_host(fake_build: Path, cluster: Any) -> None:
    from benchspace.harness.execute.dask_executor import DaskExecutor
    from benchspace.harness.execute.invoke import Invocation

    inv = Invocation(
        bench="b", case_index=0, phase="main", params={}, exe="true",
        exe_path=Path("/bin/true"), exe_sha256="", argv=("true",), env={}, reader="csv",
        pattern=None, row=None, metric="t", timeout_s=10.0, repeat=0, host="the-client",
    )  # fmt: skip
    executor = DaskExecutor(cluster.scheduler_address, timeout_s=10)
    try:
        ((m,),) = list(executor.run([inv]))
    finally:
        executor.close()
    assert m.host == platform.node() != "the-client"


@needs_dask
def test_sweep_on_dask(fake_build: Path, write_space: Callable[..., Path], cluster: Any) -> None:
    assert _tune(write_space([_bench()]), fake_build, "--dask", cluster.scheduler_address) == 0


@needs_dask
def test_workers_sharing_a_host_are_refused_unless_told(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench()])
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as two:  # fmt: skip
        assert _tune(space, fake_build, "--dask", two.scheduler_address) == 1
        err = capsys.readouterr().err
        assert "workers share a host (" in err and ": 2 at once)" in err
        assert "--allow-shared-hosts" in err and "Traceback" not in err
        assert not (fake_build / "tuning").exists()
        args = ("--dask", two.scheduler_address, "--allow-shared-hosts")
        assert _tune(space, fake_build, *args) == 0


@needs_dask
def test_unreachable_scheduler_is_one_line(
    write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    space = str(write_space([_bench()]))
    address = f"tcp://127.0.0.1:{port}"
    assert main(["tune", "--space", space, "--dask", address, "--dask-timeout", "1"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"--dask {address}: no scheduler answered within 1 s" in line
    assert "raise --dask-timeout" in line


@needs_dask
def test_worker_without_benchspace_is_one_line(
    cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchspace.harness.execute import dask_executor

    monkeypatch.setattr(dask_executor, "MODULE", "benchspace_not_installed_here")
    with pytest.raises(BenchspaceError) as err:
        dask_executor.DaskExecutor(cluster.scheduler_address, timeout_s=10)
    assert "cannot import benchspace" in str(err.value)
    assert "install benchspace into every worker's environment" in str(err.value)
