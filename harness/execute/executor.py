"""Executors: run invocations concurrently and yield Measurements as they finish.

The local executor runs N invocations at once on this machine (CPU workers, or one worker per
GPU pinned with ``CUDA_VISIBLE_DEVICES``). The Dask executor sends the same function to a Dask
distributed scheduler (an address, or a dask-jobqueue cluster's), so one code path serves one
machine and many.
"""

from __future__ import annotations

import queue
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Protocol

from harness.errors import UsageError
from harness.execute.batch import Batch, execute_batch
from harness.execute.invoke import Invocation
from harness.execute.process import Process, outcome_of, run_invocation
from harness.measurement import Measurement

Job = Invocation | Batch
"""One process to run: a single invocation, or a batch of configurations."""


def run_job(job: Job) -> list[Measurement]:
    """Run one job; one Measurement per configuration it holds."""
    if isinstance(job, Batch):
        return execute_batch(job)
    return [run_invocation(job)]


def pin(job: Job, gpu: str) -> Job:
    """The job with ``CUDA_VISIBLE_DEVICES`` set to one GPU."""

    def one(inv: Invocation) -> Invocation:
        env = {**inv.extra_env, "CUDA_VISIBLE_DEVICES": gpu}
        return replace(inv, extra_env=env, device=f"{inv.device or 'gpu'}:{gpu}")

    if isinstance(job, Batch):
        return replace(job, members=tuple(one(m) for m in job.members))
    return one(job)


class Executor(Protocol):
    """Runs jobs; yields each job's Measurements as the job finishes."""

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        """Run all jobs."""
        ...


class LocalExecutor:
    """N invocations at once on this machine: a pool of worker threads, each running one
    process at a time; with one job, a single-threaded pipeline (see ``_run_serial``)."""

    def __init__(self, jobs: int = 1, gpus: Sequence[str] = ()) -> None:
        if jobs < 1:
            raise UsageError(f"--jobs: {jobs} must be at least 1")
        self.gpus = list(gpus)
        self.jobs = len(self.gpus) if self.gpus else jobs
        self._free: queue.SimpleQueue[str] = queue.SimpleQueue()
        for gpu in self.gpus:
            self._free.put(gpu)

    def _run_one(self, job: Job) -> list[Measurement]:
        if not self.gpus:
            return run_job(job)
        gpu = self._free.get()
        try:
            return run_job(pin(job, gpu))
        finally:
            self._free.put(gpu)

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        """Run with at most ``jobs`` processes in flight, in submission order."""
        if self.jobs == 1:
            yield from self._run_serial(jobs)
            return
        pending = iter(jobs)
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            running: set[Future[list[Measurement]]] = set()
            for inv in pending:
                running.add(pool.submit(self._run_one, inv))
                if len(running) >= self.jobs:
                    break
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
                    nxt = next(pending, None)
                    if nxt is not None:
                        running.add(pool.submit(self._run_one, nxt))

    def _run_serial(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        # One process at a time, in one thread, the next starting as soon as the last has
        # ended. Everything else happens while a benchmark runs: the next one's temporary
        # directory and output files are prepared, the last one's output read and parsed,
        # and the caller records its result (store row, progress) before the next wait.
        pending = iter(jobs)
        current = self._prepare(next(pending, None))
        upcoming = None
        try:
            if current is not None:
                current.start()
                upcoming = self._prepare(next(pending, None))
            while current is not None:
                current.wait()
                if upcoming is not None:
                    upcoming.start()
                result = current.results()
                current, upcoming = upcoming, None
                if current is not None:
                    upcoming = self._prepare(next(pending, None))
                yield result
        finally:
            for step in (current, upcoming):
                if step is not None:
                    step.discard()

    def _prepare(self, job: Job | None) -> _Step | None:
        if job is None:
            return None
        if self.gpus:
            job = pin(job, self.gpus[0])
        return _Batched(job) if isinstance(job, Batch) else _Single(job)


class _Single:
    """One invocation as pipeline steps (see ``harness.execute.process.Process``)."""

    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        self.process = Process(inv)

    def start(self) -> None:
        self.process.start()

    def wait(self) -> None:
        self.process.wait()

    def results(self) -> list[Measurement]:
        return [outcome_of(self.inv, self.process.collect()).measurement]

    def discard(self) -> None:
        self.process.discard()


class _Batched:
    """A batch runs whole at ``wait`` (it may need several processes)."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self.out: list[Measurement] = []

    def start(self) -> None:
        pass

    def wait(self) -> None:
        self.out = execute_batch(self.batch)

    def results(self) -> list[Measurement]:
        return self.out

    def discard(self) -> None:
        pass


_Step = _Single | _Batched


class DaskExecutor:
    """Send invocations to a Dask distributed scheduler; results come back as they finish."""

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError as exc:  # optional dependency
            raise UsageError(
                "--dask needs the 'distributed' package: pip install 'benchspace[dist]'"
            ) from exc
        self._client = Client(address)

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        """Submit everything; the scheduler decides placement."""
        from distributed import as_completed

        futures = [self._client.submit(run_job, job, pure=False) for job in jobs]
        for fut in as_completed(futures):
            result = fut.result()
            assert isinstance(result, list)
            yield result

    def close(self) -> None:
        """Disconnect from the scheduler."""
        self._client.close()
