"""The Dask executor: the sweep's jobs on a Dask distributed scheduler's workers.

Each job runs ``run_on_worker`` there: rows name the worker's host, not the client's. Before
anything is submitted the cluster is checked: a scheduler that does not answer within the
timeout, a worker that cannot import benchspace, and (unless allowed) CPU timings from
workers that share a host are one-line errors, not a traceback after the first job.
"""

from __future__ import annotations

import importlib.util
import platform
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.batch import Batch
from benchspace.harness.execute.executor import Job, run_job
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.measurement import Measurement

MODULE = __name__
"""What a worker must be able to import to run a job."""


def on_host(job: Job, host: str) -> Job:
    """The job with every invocation's host set to ``host``."""

    def one(inv: Invocation) -> Invocation:
        return replace(inv, host=host)

    if isinstance(job, Batch):
        return replace(job, members=tuple(one(m) for m in job.members))
    return one(job)


def run_on_worker(job: Job) -> list[Measurement]:
    """Run one job on a Dask worker; its rows name the worker's host."""
    return run_job(on_host(job, platform.node()))


def shared_hosts(workers: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """Hosts running more than one job at once (worker threads summed per host)."""
    slots: Counter[str] = Counter()
    for address, info in workers.items():
        host = str(info.get("host") or address.rpartition(":")[0])
        slots[host] += int(info.get("nthreads") or 1)
    return {host: n for host, n in slots.items() if n > 1}


class DaskExecutor:
    """Send jobs to a Dask distributed scheduler; results come back as they finish."""

    def __init__(
        self, address: str, *, timeout_s: float = 10.0, allow_shared_hosts: bool = False
    ) -> None:
        try:
            from distributed import Client
        except ImportError:  # optional dependency
            raise UsageError(
                "--dask needs the 'distributed' package: pip install 'benchspace[dist]'"
            ) from None
        if timeout_s <= 0:
            raise UsageError(f"--dask-timeout: {timeout_s} must be positive")
        self.address = address
        try:
            self._client = Client(address, timeout=timeout_s)
        except (OSError, TimeoutError) as exc:
            raise BenchspaceError(
                f"--dask {address}: no scheduler answered within {timeout_s:g} s "
                f"({type(exc).__name__}); start one (dask scheduler), check the address, or "
                "raise --dask-timeout"
            ) from None
        try:
            self._check(allow_shared_hosts)
        except BaseException:
            self._client.close()
            raise

    def _check(self, allow_shared_hosts: bool) -> None:
        workers = self._client.scheduler_info().get("workers", {})
        if not workers:
            raise BenchspaceError(
                f"--dask {self.address}: the scheduler has no workers; start some "
                f"(dask worker {self.address})"
            )
        try:
            found = self._client.run(importlib.util.find_spec, MODULE)
        except Exception as exc:  # a worker whose import of benchspace fails
            raise BenchspaceError(
                f"--dask {self.address}: a worker cannot import benchspace "
                f"({type(exc).__name__}: {exc}); install benchspace into every worker's "
                "environment (pip install benchspace)"
            ) from None
        missing = sorted(addr for addr, spec in found.items() if spec is None)
        if missing:
            raise BenchspaceError(
                f"--dask {self.address}: worker {', '.join(missing)} cannot import benchspace "
                f"({MODULE} not found); install benchspace into every worker's environment "
                "(pip install benchspace)"
            )
        shared = shared_hosts(workers)
        if shared and not allow_shared_hosts:
            listed = ", ".join(f"{host}: {n} at once" for host, n in sorted(shared.items()))
            raise BenchspaceError(
                f"--dask {self.address}: workers share a host ({listed}): CPU benchmarks "
                "running side by side inflate each other's timings; run one single-threaded "
                "worker per host (dask worker --nworkers 1 --nthreads 1), or pass "
                "--allow-shared-hosts (e.g. GPU workers pinned one per GPU)"
            )

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        """Submit everything; the scheduler decides placement."""
        from distributed import as_completed

        futures = [self._client.submit(run_on_worker, job, pure=False) for job in jobs]
        for fut in as_completed(futures):
            try:
                result = fut.result()
            except ImportError as exc:
                raise BenchspaceError(
                    f"--dask {self.address}: a worker cannot import benchspace ({exc}); "
                    "install benchspace into every worker's environment"
                ) from None
            assert isinstance(result, list)
            yield result

    def close(self) -> None:
        """Disconnect from the scheduler."""
        self._client.close()
