"""A successful Measurement of a planned task, as the race's fake machines in these tests
report one (the race reads its case, parameters, repeat and value)."""

from __future__ import annotations

from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task


def measured(task: Task, repeat: int, value: float) -> Measurement:
    """Task `task`'s attempt `repeat`, read as `value`."""
    return Measurement(
        bench=task.bench,
        case_index=task.case_index,
        phase=task.phase,
        params=task.params(),
        argv=("x",),
        env={},
        exe_sha256="",
        status="ok",
        value=value,
        repeat=repeat,
    )
