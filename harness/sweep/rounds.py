"""One round of a race or a confirmation, measured through the sweep's store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from benchspace.harness.execute.invoke import RunOptions, build_invocation
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import Task
from benchspace.harness.spaces.model import Bench
from benchspace.harness.sweep.cache import Sweep, batching_of
from benchspace.harness.sweep.decide import RaceRule
from benchspace.harness.sweep.race import Racing


def round_measurer(
    bench: Bench,
    sweep: Sweep,
    exe_path: Path | None,
    exe_sha: str,
    run: RunOptions,
    timeout_s: float | None,
) -> Callable[[Sequence[tuple[Task, int]]], list[Measurement]]:
    """Measures (task, repeat index) pairs through the store, interleaved in the order given
    (a batched bench runs a round as processes over its configurations)."""

    def measure_round(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        invocations = (
            build_invocation(
                bench,
                task,
                exe_path=exe_path,
                exe_sha256=exe_sha,
                options=run,
                repeat=repeat,
                timeout_s=timeout_s,
            )
            for task, repeat in jobs
        )
        return sweep.measure(invocations, batching_of(bench))

    return measure_round


def rule_for(racing: Racing | None, repeats: int) -> RaceRule:
    """The race's rule for a bench whose repeat count (the cap) is `repeats`."""
    base = racing.rule if racing is not None else RaceRule()
    return replace(base, cap=repeats, min_repeats=min(base.min_repeats, repeats))
