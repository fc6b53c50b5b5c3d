"""``tune`` as one frozen request and the one library call that runs it.

The CLI parses its arguments into a :class:`TuneRequest` (the argument types already enforce
every range) and calls :func:`run_tune`, which loads the space, checks its header, validates,
plans or sweeps, and returns a :class:`TuneResult` for the CLI to render. What lives in
``generators/`` and ``evaluation/`` (the header rules, the incumbents, sampling a kernel
catalogue) comes in as :class:`TuneHooks`, so the core keeps importing neither.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.affinity import available_cpus, place
from benchspace.harness.execute.executor import Executor, LocalExecutor
from benchspace.harness.execute.gpus import nvidia_smi_uuids, parse_gpus
from benchspace.harness.execute.invoke import (
    DEFAULT_BACKEND,
    DEFAULT_DTYPE,
    RunOptions,
    resolve_executable,
)
from benchspace.harness.execute.probe import probe_bench
from benchspace.harness.execute.progress import Progress
from benchspace.harness.files import check_output, guard_output
from benchspace.harness.plan import Sampler
from benchspace.harness.provenance import gpu_info
from benchspace.harness.spaces.inputs import space_inputs
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space
from benchspace.harness.sweep.budget import (
    BenchBudget,
    Confirming,
    check_budget,
    plan_budget,
)
from benchspace.harness.sweep.cache import few_collections
from benchspace.harness.sweep.from_store import StoreOnly
from benchspace.harness.sweep.run import TuneOptions, TuneOutcome, tune
from benchspace.harness.variants.settings import build_settings, space_root, variant_plan_lines
from benchspace.harness.variants.validate import probe_variant


@dataclass(frozen=True, kw_only=True, slots=True)
class TuneRequest:
    """Everything ``benchspace tune`` was asked, as parsed (ranges already checked)."""

    space: Path
    build_dir: Path = Path("build")
    out: Path | None = None
    store: Path | None = None
    backend: str | None = None
    dtype: str | None = None
    topk: int = 10
    jobs: int = 1
    gpus: str = ""
    """``--gpus`` as written: a comma list of GPU ids (checked by :func:`gpu_ids`)."""
    cpus_per_job: int = 1
    oversubscribe: bool = False
    dask: str | None = None
    dask_timeout: float = 10.0
    allow_shared_hosts: bool = False
    timeout: float | None = None
    repeats: int | None = None
    benches: tuple[str, ...] = ()
    skip_missing: bool = False
    allow_failures: bool = False
    rerun: bool = False
    allow_other_host: bool = False
    """Reuse stored measurements made on another host."""
    build_jobs: int = 1
    """Variants (compile-time parameters) built at once, ahead of measurement."""
    build_isolation: str = "auto"
    """How compiles keep off timed CPU runs: ``pin``, ``pause`` or ``auto``."""
    validate: bool = False
    include_incumbent: bool = False
    hardware: str = "h200"
    quiet: bool = False
    plan: bool = False
    max_invocations: int = 0
    warmup: int = 2
    min_time: float = 25.0
    min_iters: int = 1
    max_iters: int = 20
    root: Path | None = None
    allow_outside_root: bool = False
    command: tuple[str, ...] = ()
    from_store: bool = False
    """Assemble the profile from the store alone; run nothing (harness/sweep/from_store.py)."""
    exe_sha: str | None = None
    """With ``from_store``: the build (a sha256 prefix) whose attempts to read."""


def _no_header_check(space: Space, include_incumbent: bool) -> list[str]:
    return []


def _same_space(space: Space) -> Space:
    return space


def _no_sampler(hardware: str) -> Sampler:
    raise UsageError(f"sampling a grid needs the study's features (hardware {hardware})")


def _ignore(line: str) -> None:
    pass


def _no_decisions(space: Space) -> dict[str, Any]:
    return {}


@dataclass(frozen=True, kw_only=True, slots=True)
class TuneHooks:
    """What the layers above the core add to a sweep, and where its lines go."""

    header_check: Callable[[Space, bool], list[str]] = _no_header_check
    """The header rules' problems of a header-fed space (``include_incumbent`` passed)."""
    with_incumbents: Callable[[Space], Space] = _same_space
    """The space with the checked-in header's incumbents added to its grids."""
    sampler: Callable[[str], Sampler] = _no_sampler
    """A sampler for benches with a ``sample`` block, for a hardware descriptor's name."""
    say: Callable[[str], None] = _ignore
    """A line for the terminal as it happens (``--validate``'s probes)."""
    warn: Callable[[str], None] = _ignore
    """A warning for stderr (CPU placement)."""
    decisions: Callable[[Space], dict[str, Any]] = _no_decisions
    """TuneOptions' ``racing`` and ``confirm`` for the space (``--race``, ``--stop``,
    ``--confirm``: harness/cli/race_args.py); none by default."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TuneResult:
    """What :func:`run_tune` did: probed (``validated``), planned, or swept."""

    kind: Literal["validated", "planned", "swept"]
    space: Path
    problems: int = 0
    checked: int = 0
    budgets: tuple[BenchBudget, ...] = ()
    outcome: TuneOutcome | None = None
    out: Path | None = None
    store: Path | None = None
    failures_allowed: bool = False
    retired_gpus: tuple[str, ...] = ()
    """GPUs taken out of the sweep for failing alone (harness/execute/gpus.py)."""
    plan_lines: tuple[str, ...] = ()
    """``--plan``'s lines about variants to build (compile-time parameters)."""


GPU_ID = re.compile(r"[0-9]+|(GPU|MIG)-[0-9A-Za-z/-]+")
"""What CUDA_VISIBLE_DEVICES takes: an index, or a GPU or MIG UUID."""


def gpu_ids(text: str) -> list[str]:
    """The ids of ``--gpus`` (a list, or ``all``); a usage error for one CUDA would not know."""
    return parse_gpus(text, os.environ, nvidia_smi_uuids)


def _default(space: Space, key: str, fallback: str) -> str:
    """The space's ``defaults`` value of `key` (a string), else `fallback`."""
    value = space.defaults.get(key)
    return value if isinstance(value, str) else fallback


def run_options(request: TuneRequest, space: Space) -> RunOptions:
    """How each invocation runs: build dir, minibench flags, host and device."""
    gpu, _ = gpu_info()
    return RunOptions(
        build_dir=request.build_dir,
        backend=request.backend or _default(space, "backend", DEFAULT_BACKEND),
        dtype=request.dtype or _default(space, "type", DEFAULT_DTYPE),
        timeout_s=request.timeout or 600.0,
        warmup=request.warmup,
        min_time_ms=request.min_time,
        min_iters=request.min_iters,
        max_iters=request.max_iters,
        host=platform.node(),
        device=gpu or "cpu",
    )


def _check_request(request: TuneRequest, space: Space) -> None:
    if request.max_invocations < 0:
        raise UsageError(
            f"--max-invocations: {request.max_invocations} must be 0 (no limit) or more"
        )
    unknown = [name for name in request.benches if name not in {b.name for b in space.benches}]
    if unknown:
        known = ", ".join(b.name for b in space.benches)
        raise UsageError(f"--bench: {', '.join(unknown)} not in {request.space} (benches: {known})")


def _check_from_store(request: TuneRequest, space: Space) -> None:
    if request.exe_sha is not None and not request.from_store:
        raise UsageError("--exe-sha: applies only with --from-store")
    if not request.from_store:
        return
    clash = [flag for flag, on in (("--rerun", request.rerun), ("--validate", request.validate),
             ("--dask", bool(request.dask)), ("--include-incumbent", request.include_incumbent))
             if on]  # fmt: skip
    if clash:
        raise UsageError(f"--from-store runs nothing: drop {', '.join(clash)}")
    built = [b.name for b in space.benches if b.build is not None]
    built = [name for name in built if not request.benches or name in request.benches]
    if built:
        raise UsageError(
            f"--from-store: bench {built[0]!r} builds variants (compile-time parameters), "
            "which are not assembled from a store; leave it out with --bench"
        )


def _validate(
    request: TuneRequest, space: Space, problems: list[str], hooks: TuneHooks
) -> TuneResult:
    failed = 0
    for problem in problems:
        hooks.say(f"{'failed':<8} header: {problem}")
        failed += 1
    options = run_options(request, space)
    benches = [b for b in space.benches if not request.benches or b.name in request.benches]
    for bench in benches:
        if bench.build is not None:
            result = probe_variant(bench, options, source_dir=space_root(space))
        else:
            result = probe_bench(bench, options, skip_missing=request.skip_missing)
        hooks.say(result.line())
        failed += result.state in ("failed", "missing")
    return TuneResult(kind="validated", space=request.space, problems=failed, checked=len(benches))


def _executor(
    request: TuneRequest, options: TuneOptions, hooks: TuneHooks
) -> tuple[Executor, TuneOptions]:
    if request.from_store:
        return StoreOnly(options.store), options
    if request.dask:
        from benchspace.harness.execute.dask_executor import DaskExecutor

        dask = DaskExecutor(
            request.dask,
            timeout_s=request.dask_timeout,
            allow_shared_hosts=request.allow_shared_hosts,
        )
        return dask, options
    gpus = gpu_ids(request.gpus)
    cpu_sets: tuple[tuple[int, ...], ...] = ()
    if request.jobs > 1 and not gpus:
        placement = place(
            request.jobs,
            request.cpus_per_job,
            available_cpus(),
            oversubscribe=request.oversubscribe,
        )
        for warning in placement.warnings + (() if request.quiet else placement.notes):
            hooks.warn(f"warning: {warning}")
        cpu_sets = placement.sets
        parallel = {
            "jobs": request.jobs,
            "cpus_per_job": request.cpus_per_job,
            **placement.provenance(),
        }
        options = replace(options, extra_meta={**options.extra_meta, "parallel": parallel})
    return LocalExecutor(request.jobs, gpus, cpu_sets), options


def _sweep_options(request: TuneRequest, space: Space, hooks: TuneHooks) -> TuneOptions:
    out = request.out or request.build_dir / "tuning" / "profile.json"
    store = request.store or out.with_name(out.name.removesuffix(".json") + ".store.sqlite")
    executables = [
        (resolve_executable(b.exe, request.build_dir), f"the executable of bench {b.name!r}")
        for b in space.benches
    ]
    inputs = [(store, "the store"), *space_inputs(space), *executables]
    guard_output(out, option="--out", inputs=inputs)  # before hours of sweeping, not after
    if not store.is_dir():  # a directory is refused by the store itself
        check_output(store, option="--store")
    sampler = hooks.sampler(request.hardware) if any(b.sample for b in space.benches) else None
    return TuneOptions(
        builds=build_settings(
            request.build_jobs, request.build_isolation, request.jobs, rebuild=request.rerun
        ),
        source_dir=space_root(space),
        allow_other_host=request.allow_other_host,
        sampler=sampler,
        out=out,
        store=store,
        run=run_options(request, space),
        topk=request.topk,
        repeats=request.repeats,
        timeout_s=request.timeout,
        skip_missing=request.skip_missing,
        allow_failures=request.allow_failures,
        rerun=request.rerun,
        benches=request.benches,
        command=request.command,
        from_store=request.from_store,
        exe_sha=request.exe_sha,
        extra_meta={"from_store": str(store)} if request.from_store else {},
        **hooks.decisions(space),
    )


def _budgets(
    request: TuneRequest, space: Space, decisions: Mapping[str, Any]
) -> tuple[BenchBudget, ...]:
    """The plan's sizes, with what --race/--stop and --confirm (`decisions`) make of them."""
    racing, confirm = decisions.get("racing"), decisions.get("confirm")
    confirming = None
    if confirm is not None:
        most = confirm.cap if confirm.cap is not None else confirm.rounds
        confirming = Confirming(k=confirm.k, most_rounds=most, incumbents=confirm.incumbents)
    return plan_budget(
        space,
        benches=request.benches,
        repeats=request.repeats,
        least_repeats=racing.rule.min_repeats if racing is not None else None,
        confirming=confirming,
    )


def run_tune(request: TuneRequest, hooks: TuneHooks) -> TuneResult:
    """Validate, plan or sweep as `request` asks; the result for the CLI to render."""
    if request.dask and (request.jobs != 1 or request.gpus.strip()):
        raise UsageError(
            "--jobs/--gpus do not apply with --dask: the scheduler places the work (one job "
            "per worker thread); drop them, and size the workers instead"
        )
    space = load_space(request.space, allow_outside_root=request.allow_outside_root)
    _check_request(request, space)
    _check_from_store(request, space)
    problems = hooks.header_check(space, request.include_incumbent) if space.header else []
    if request.validate:
        return _validate(request, space, problems, hooks)
    if problems:
        raise BenchspaceError(problems[0] if len(problems) == 1 else "; ".join(problems))
    budgets = _budgets(request, space, hooks.decisions(space))
    if request.plan:
        lines = tuple(variant_plan_lines(space, request.benches))
        return TuneResult(kind="planned", space=request.space, budgets=budgets, plan_lines=lines)
    check_budget(request.space, budgets, request.max_invocations)
    if request.include_incumbent and space.header is not None:
        space = hooks.with_incumbents(space)
    options = _sweep_options(request, space, hooks)
    executor, options = _executor(request, options, hooks)
    progress = Progress(quiet=request.quiet)
    try:
        with few_collections():
            outcome = tune(space, options, executor=executor, progress=progress)
    finally:
        progress.close()
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    return TuneResult(
        kind="swept",
        space=request.space,
        outcome=outcome,
        out=options.out,
        store=options.store,
        failures_allowed=request.allow_failures,
        retired_gpus=tuple(getattr(executor, "retired_gpus", ())),
    )
