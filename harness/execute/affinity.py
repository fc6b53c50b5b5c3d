"""CPU affinity for parallel sweeps: each worker on cores of its own, and no more workers
than cores.

``--jobs N`` runs N benchmarks at once; unpinned, they and benchspace itself migrate across
the same cores and disturb each other's timings (measured on the demo: ``--jobs 2`` inflated
medians 1.19x on 2 cores). Each worker therefore owns ``--cpus-per-job`` cores: the thread
that starts a benchmark pins itself to them just before the fork, so the child inherits the
mask from its first instruction (an OpenMP runtime sizes its pool from it), and restores its
own mask afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from benchspace.harness.errors import UsageError

CpuSet = tuple[int, ...]


def available_cpus() -> CpuSet:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    return tuple(sorted(os.sched_getaffinity(0)))


def format_cpus(cpus: Sequence[int]) -> str:
    """A core list as ranges: ``0-3,6``."""
    runs: list[list[int]] = []
    for cpu in sorted(cpus):
        if runs and runs[-1][1] == cpu - 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@dataclass(frozen=True, kw_only=True)
class Placement:
    """The cores of each worker of a parallel sweep, and what a person should know of it."""

    sets: tuple[CpuSet, ...]
    available: CpuSet
    warnings: tuple[str, ...] = ()
    """Said whatever the verbosity: cores are shared (``--oversubscribe``)."""
    notes: tuple[str, ...] = ()
    """Said unless quiet: every core is taken (the provenance records the placement)."""

    def provenance(self) -> dict[str, object]:
        """The placement as the profile's provenance records it."""
        return {
            "available_cpus": format_cpus(self.available),
            "cpu_sets": [format_cpus(s) for s in self.sets],
        }


def place(
    jobs: int, cpus_per_job: int, available: Sequence[int], *, oversubscribe: bool = False
) -> Placement:
    """Give each of ``jobs`` workers ``cpus_per_job`` cores of its own out of ``available``.

    More workers than that leaves cores for is refused (``UsageError``) unless
    ``oversubscribe``; then the sets wrap around and are shared, with a warning. Using every
    core is allowed with a note: benchspace's own work and any other process then compete
    with the benchmarks."""
    if cpus_per_job < 1:
        raise UsageError(f"--cpus-per-job: {cpus_per_job} must be at least 1")
    cores = tuple(sorted(available))
    wanted = jobs * cpus_per_job
    warnings: list[str] = []
    notes: list[str] = []
    if wanted > len(cores):
        if not oversubscribe:
            raise UsageError(
                f"--jobs {jobs} x --cpus-per-job {cpus_per_job} = {wanted} cores, but this "
                f"process may use {len(cores)} ({format_cpus(cores)}): parallel benchmarks "
                "would share cores and inflate each other's timings; lower --jobs, or pass "
                "--oversubscribe to run anyway"
            )
        warnings.append(
            f"--oversubscribe: {wanted} cores asked, {len(cores)} available: workers share "
            "cores, CPU timings are inflated"
        )
    elif wanted == len(cores) and jobs > 1:
        notes.append(
            f"--jobs {jobs} x --cpus-per-job {cpus_per_job} uses every core this process may "
            f"use ({format_cpus(cores)}): benchspace itself and any other process compete "
            "with the benchmarks, so CPU timings may be inflated; leave a core free (or run "
            "serially) for timings you compare"
        )
    sets = tuple(
        tuple(cores[(job * cpus_per_job + i) % len(cores)] for i in range(cpus_per_job))
        for job in range(jobs)
    )
    return Placement(sets=sets, available=cores, warnings=tuple(warnings), notes=tuple(notes))


def pinned_spawn_mask(cpus: CpuSet) -> CpuSet | None:
    """Pin the calling thread to ``cpus`` (a child it forks inherits the mask); the mask it
    had, to restore with ``restore_mask``; None (and nothing done) for no cpus."""
    if not cpus:
        return None
    before = tuple(os.sched_getaffinity(0))
    os.sched_setaffinity(0, cpus)
    return before


def restore_mask(before: CpuSet | None) -> None:
    """Undo ``pinned_spawn_mask``."""
    if before is not None:
        os.sched_setaffinity(0, before)
