"""Executors: run invocations concurrently and yield Measurements as they finish.

The local executor runs N invocations at once on this machine (CPU workers, each pinned to
cores of its own, or one worker per GPU pinned with ``CUDA_VISIBLE_DEVICES``). The Dask
executor (``harness.execute.dask_executor``) sends the same ``run_job`` to a Dask distributed
scheduler, so one code path serves one machine and many.
"""

from __future__ import annotations

import queue
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Protocol

from benchspace.harness.errors import UsageError
from benchspace.harness.execute.affinity import CpuSet, format_cpus
from benchspace.harness.execute.batch import Batch, execute_batch
from benchspace.harness.execute.gpus import GpuPool, all_bad
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.execute.process import Process, outcome_of, run_invocation
from benchspace.harness.measurement import Measurement

Job = Invocation | Batch
"""One process to run: a single invocation, or a batch of configurations."""


def run_job(job: Job) -> list[Measurement]:
    """Run one job; one Measurement per configuration it holds."""
    if isinstance(job, Batch):
        return execute_batch(job)
    return [run_invocation(job)]


def pin_cpus(job: Job, cpus: CpuSet) -> Job:
    """The job pinned to cores of its own (recorded in each row's device: ``cpu:0-1``)."""

    def one(inv: Invocation) -> Invocation:
        return replace(inv, cpus=cpus, device=f"{inv.device or 'cpu'}:{format_cpus(cpus)}")

    if isinstance(job, Batch):
        return replace(job, members=tuple(one(m) for m in job.members))
    return one(job)


def pin(job: Job, gpu: str) -> Job:
    """The job with ``CUDA_VISIBLE_DEVICES`` set to one GPU."""

    def one(inv: Invocation) -> Invocation:
        env = {**inv.extra_env, "CUDA_VISIBLE_DEVICES": gpu}
        # The row names the GPU it ran on: "<GPU name>:<id>", or "gpu:<id>" where the sweep
        # found no GPU name (never "cpu:<id>").
        base = inv.device if inv.device and inv.device != "cpu" else "gpu"
        return replace(inv, extra_env=env, device=f"{base}:{gpu}")

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

    def __init__(
        self, jobs: int = 1, gpus: Sequence[str] = (), cpu_sets: Sequence[CpuSet] = ()
    ) -> None:
        if jobs < 1:
            raise UsageError(f"--jobs: {jobs} must be at least 1")
        self.gpus = list(gpus)
        self.jobs = len(self.gpus) if self.gpus else jobs
        self.pool = GpuPool(self.gpus)
        # CPU workers of a parallel sweep each own a core set (see harness.execute.affinity).
        self._cpu_sets: queue.SimpleQueue[CpuSet] = queue.SimpleQueue()
        self._pinned = bool(cpu_sets) and not self.gpus and self.jobs > 1
        for cpus in cpu_sets if self._pinned else ():
            self._cpu_sets.put(tuple(cpus))

    def _run_one(self, job: Job) -> list[Measurement]:
        if self._pinned:
            cpus = self._cpu_sets.get()
            try:
                return run_job(pin_cpus(job, cpus))
            finally:
                self._cpu_sets.put(cpus)
        if not self.gpus:
            return run_job(job)
        return self._run_on_gpu(job)

    def _run_on_gpu(self, job: Job) -> list[Measurement]:
        # One process per GPU at a time; a job that fails on one GPU runs once more on
        # another, which tells a bad GPU from a bad configuration (harness.execute.gpus).
        gpu = self.pool.take()
        try:
            result = run_job(pin(job, gpu))
            if not all_bad([m.status for m in result]):
                self.pool.passed(gpu)
                return result
            other = self.pool.take_other(gpu)
            if other is None:
                return result
            try:
                again = run_job(pin(job, other))
            finally:
                self.pool.give(other)
            if all_bad([m.status for m in again]):
                return result
            self.pool.passed(other)
            self.pool.failed_alone(gpu)
        finally:
            self.pool.give(gpu)
        first = result[0].status
        return [
            replace(m, extra={**m.extra, "retried_after_gpu": gpu, "first_status": first})
            for m in again
        ]

    @property
    def retired_gpus(self) -> list[str]:
        """GPUs taken out of the sweep for failing ``RETIRE_AFTER`` jobs in a row alone."""
        return list(self.pool.retired)

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
    """One invocation as pipeline steps (see ``benchspace.harness.execute.process.Process``)."""

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
