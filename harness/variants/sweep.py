"""Sweeping a bench with compile-time parameters: one variant per value set, built ahead.

The main plan's configurations are grouped by their compile-time values; each group is one
variant, measured (repeats interleaved across its configurations) once its build is ready,
while the next variants build. A variant that failed to build gives each of its
configurations one ``build_failed`` (or ``build_timeout``) measurement carrying the
compiler's last lines, and the sweep goes on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from benchspace.harness.execute.invoke import (
    Invocation,
    RunOptions,
    build_invocation,
    resolve_values,
)
from benchspace.harness.measurement import Measurement, Status
from benchspace.harness.plan import Task, plan_main
from benchspace.harness.profiles.model import BenchResult
from benchspace.harness.profiles.results import bench_result
from benchspace.harness.spaces.model import Bench
from benchspace.harness.sweep.budget import bench_repeats
from benchspace.harness.sweep.cache import Sweep
from benchspace.harness.sweep.confirm import ConfirmOptions, confirm_bench
from benchspace.harness.variants.gate import Gate
from benchspace.harness.variants.pipeline import BuildSettings, Variants
from benchspace.harness.variants.spec import BuildAttempt, CompileValues, compile_values

VARIANTS_DIR = "variants"
"""Where variants live: ``<build-dir>/variants/<bench>/<key>/``."""


def group_tasks(bench: Bench, tasks: list[Task]) -> dict[CompileValues, list[Task]]:
    """The plan's tasks per variant, variants in the order their first task appears."""
    groups: dict[CompileValues, list[Task]] = {}
    for task in tasks:
        values = resolve_values(bench.cases[task.case_index], task.params())
        groups.setdefault(compile_values(bench, values), []).append(task)
    return groups


def failed_measurements(
    bench: Bench, tasks: list[Task], attempt: BuildAttempt
) -> list[Measurement]:
    """One measurement per configuration of a variant that did not build."""
    status: Status = "build_timeout" if attempt.status == "build_timeout" else "build_failed"
    last = (attempt.log_tail.strip().splitlines() or ["(no output)"])[-1]
    return [
        Measurement(
            bench=bench.name,
            case_index=t.case_index,
            phase=t.phase,
            params=t.params(),
            argv=attempt.command,
            env={},
            exe_sha256="",
            status=status,
            stderr_tail=attempt.log_tail,
            error=f"variant did not build ({attempt.status}, {attempt.seconds:.1f} s): {last}",
            duration_s=attempt.seconds,
            started_at=attempt.started_at,
            host=attempt.host,
            extra={"variant_key": attempt.key},
        )
        for t in tasks
    ]


def _invocations(
    bench: Bench,
    tasks: list[Task],
    exe: Path,
    sha: str,
    *,
    run_cpus: tuple[int, ...],
    options: RunOptions,
    repeats: int | None,
    timeout_s: float | None,
) -> Iterator[Invocation]:
    # Repeats are interleaved across the variant's configurations, never back to back.
    for repeat in range(bench_repeats(bench, repeats)):
        for task in tasks:
            inv = build_invocation(
                bench,
                task,
                exe_path=exe,
                exe_sha256=sha,
                options=options,
                repeat=repeat,
                timeout_s=timeout_s,
            )
            yield replace(inv, cpus=run_cpus) if run_cpus else inv


def tune_variant_bench(
    bench: Bench,
    sweep: Sweep,
    *,
    settings: BuildSettings,
    source_dir: Path,
    run_options: RunOptions,
    repeats: int | None,
    timeout_s: float | None,
    topk: int,
    confirm: ConfirmOptions | None = None,
) -> tuple[BenchResult, Variants]:
    """Build and measure every variant of ``bench``; the profile entry and the builder. With
    ``confirm``, the picks (each run by its own variant's executable) are then re-timed in
    fresh interleaved rounds and the profile's figures come from those."""
    assert bench.build is not None
    overlap = bench.build.overlap or settings.isolation == "none"
    gate = Gate(pause=not overlap and settings.isolation == "pause")
    if overlap:
        settings = replace(settings, isolation="none")
    build_dir = run_options.build_dir
    variants = Variants(
        bench,
        sweep.store,
        root=(build_dir / VARIANTS_DIR).absolute(),
        source_dir=source_dir,
        build_dir=build_dir.resolve(),
        settings=settings,
        gate=gate,
        where=f"$.spaces[{bench.position}].build",
        note=sweep.progress.note,
    )
    plan = plan_main(bench, {})
    groups = group_tasks(bench, list(plan.tasks))
    run_cpus = settings.run_cpus if settings.isolation == "pin" else ()
    measured: list[Measurement] = []
    built: dict[CompileValues, BuildAttempt] = {}
    for values, attempt in variants.stream(list(groups)):
        tasks = groups[values]
        if attempt.ok:
            built[values] = attempt
        if not attempt.ok:
            failed = failed_measurements(bench, tasks, attempt)
            for m in failed:
                sweep.progress.advance(m)
            measured.extend(failed)
            continue
        sweep.progress.set_label(f"{bench.name} {' '.join(f'{n}={v}' for n, v in values)}")
        invs = _invocations(
            bench,
            tasks,
            variants.exe_of(attempt),
            attempt.artefact_sha256,
            run_cpus=run_cpus,
            repeats=repeats,
            options=run_options,
            timeout_s=timeout_s,
        )
        with gate.hold() if gate.pause else contextlib.nullcontext():
            measured.extend(sweep.measure(invs))
    result = bench_result(bench, plan=plan, measurements=measured, pre_tune=[], topk=topk)
    if confirm is not None:
        of_task = {task: values for values, tasks in groups.items() for task in tasks}

        def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
            invocations = []
            for task, repeat in jobs:
                attempt = built.get(of_task[task])
                if attempt is None:  # its variant failed to build: nothing to re-time
                    continue
                inv = build_invocation(
                    bench,
                    task,
                    exe_path=variants.exe_of(attempt),
                    exe_sha256=attempt.artefact_sha256,
                    options=run_options,
                    repeat=repeat,
                    timeout_s=timeout_s,
                )
                invocations.append(replace(inv, cpus=run_cpus) if run_cpus else inv)
            return sweep.measure(invocations)

        def rebuild(ms: list[Measurement]) -> BenchResult:
            return bench_result(bench, plan=plan, measurements=ms, pre_tune=[], topk=topk)

        sweep.progress.set_label(f"{bench.name} confirm")
        result, _, _ = confirm_bench(
            result, plan, confirm, measure, rebuild, sweep.progress.add_total
        )
    return result, variants
