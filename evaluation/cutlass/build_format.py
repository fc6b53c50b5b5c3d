"""The batch build's progress lines: what is left to build, then one line per finished batch."""

from __future__ import annotations

from collections.abc import Sequence

from benchspace.evaluation.cutlass.batch_index import BuildResult
from benchspace.evaluation.cutlass.batches import KernelBatch


def render_plan(names: Sequence[str], batches: Sequence[KernelBatch]) -> str:
    """How many kernels the list holds, how many are done, how many batches are left."""
    done_before = len(names) - sum(len(b.names) for b in batches)
    return (
        f"{len(names)} kernels, {done_before} already built or failed; "
        f"{len(batches)} batches to build"
    )


def render_progress(result: BuildResult, done: int, total: int, failures: int, eta_s: float) -> str:
    """``[done/total] library status seconds failures eta`` for one finished batch."""
    return (
        f"[{done}/{total}] {result.batch.library} {result.status} "
        f"{result.seconds:.0f}s failures={failures} eta={eta_s / 60:.0f}min"
    )
