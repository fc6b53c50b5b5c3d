"""Sweep a space's benchmark executables into a profile (every attempt kept, resumable)."""

from __future__ import annotations

import argparse
import functools
import platform
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchspace.harness.cli.numbers import count, non_negative, seconds
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.affinity import available_cpus, place
from benchspace.harness.execute.executor import Executor, LocalExecutor
from benchspace.harness.execute.invoke import DEFAULT_BACKEND, DEFAULT_DTYPE, RunOptions
from benchspace.harness.execute.probe import probe_bench
from benchspace.harness.execute.progress import Progress
from benchspace.harness.files import check_not_input, check_output
from benchspace.harness.plan import Sampler
from benchspace.harness.profiles.model import Profile
from benchspace.harness.project_paths import add_root_arguments
from benchspace.harness.provenance import gpu_info
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Bench, Case, Space
from benchspace.harness.sweep.budget import DEFAULT_MAX_INVOCATIONS, check_budget, plan_budget
from benchspace.harness.sweep.budget_format import render_budget
from benchspace.harness.sweep.cache import few_collections
from benchspace.harness.sweep.run import TuneOptions, tune

HeaderCheck = Callable[[Space, bool], list[str]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options as BatchLAS's tune.py, plus the ones a robust sweep needs."""
    parser.add_argument("--space", required=True, type=Path, help="space file (JSON)")
    parser.add_argument("--build-dir", type=Path, default=Path("build"), help="default: build")
    parser.add_argument(
        "--out", type=Path, help="profile (default <build-dir>/tuning/profile.json)"
    )
    parser.add_argument("--store", type=Path, help="measurement store (default beside the profile)")
    parser.add_argument(
        "--backend",
        help="passed to minibench executables (default: the space's defaults.backend, else "
        f"{DEFAULT_BACKEND})",
    )
    parser.add_argument(
        "--type",
        dest="dtype",
        help=f"passed to minibench (default: the space's defaults.type, else {DEFAULT_DTYPE})",
    )
    parser.add_argument("--topk", type=int, default=10, help="size of the cross-case leaderboard")
    parser.add_argument(
        "--jobs", type=count(1, 4096), default=1, help="invocations at once (CPU benches)"
    )
    parser.add_argument(
        "--gpus", default="", help="comma list of GPU ids: one worker per GPU, pinned"
    )
    parser.add_argument(
        "--cpus-per-job",
        type=int,
        default=1,
        metavar="K",
        help="cores each --jobs worker is pinned to (default 1)",
    )
    parser.add_argument(
        "--oversubscribe",
        action="store_true",
        help="run --jobs x --cpus-per-job beyond the cores available (timings are inflated)",
    )
    parser.add_argument("--dask", metavar="ADDRESS", help="run on a Dask distributed scheduler")
    parser.add_argument(
        "--dask-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds to wait for the Dask scheduler (default 10)",
    )
    parser.add_argument(
        "--allow-shared-hosts",
        action="store_true",
        help="with --dask: accept workers that share a host (CPU timings disturb each other)",
    )
    parser.add_argument("--timeout", type=seconds, help="seconds per invocation (default 600)")
    parser.add_argument(
        "--repeats", type=count(1, 1000), help="process-level repeats per configuration"
    )
    parser.add_argument("--bench", action="append", default=[], help="only these benches")
    parser.add_argument("--skip-missing", action="store_true", help="skip absent executables")
    parser.add_argument(
        "--allow-failures",
        "--skip-failed",
        dest="allow_failures",
        action="store_true",
        help="exit 0 despite failed configurations (they are still recorded and listed)",
    )
    parser.add_argument("--rerun", action="store_true", help="ignore the store's cache")
    parser.add_argument(
        "--allow-other-host",
        action="store_true",
        help="reuse stored measurements made on another host (default: measure them again)",
    )
    parser.add_argument(
        "--validate", action="store_true", help="one cheap invocation per bench, then exit"
    )
    parser.add_argument(
        "--include-incumbent",
        action="store_true",
        help="accept header incumbents missing from a grid (they compete only where measured)",
    )
    parser.add_argument(
        "--hardware",
        default="h200",
        help="hardware descriptor for benches with a sample block (default h200)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.add_argument(
        "--plan",
        action="store_true",
        help="print each bench's configurations and invocations (repeats included); run nothing",
    )
    parser.add_argument(
        "--max-invocations",
        type=int,
        default=DEFAULT_MAX_INVOCATIONS,
        metavar="N",
        help=f"refuse a larger sweep (default {DEFAULT_MAX_INVOCATIONS:,}; 0: no limit)",
    )
    # BatchLAS's timing flags, passed to minibench executables.
    parser.add_argument("--warmup", type=count(0, 10**9), default=2)
    parser.add_argument("--min-time", type=non_negative, default=25.0, help="ms (minibench)")
    parser.add_argument("--min-iters", type=count(0, 10**9), default=1)
    parser.add_argument("--max-iters", type=count(0, 10**9), default=20)
    add_root_arguments(parser)


def _header_check(args: argparse.Namespace) -> HeaderCheck:
    # The header rules live with the generator (imported only when a space has a header).
    from benchspace.generators.session import check_space_header

    return functools.partial(
        check_space_header, root=args.root, allow_outside_root=args.allow_outside_root
    )


def _sampler(hardware: str) -> Sampler:
    # Sampling a kernel catalogue needs the study's static features (evaluation/).
    from benchspace.evaluation.cutlass.hardware import load_hardware
    from benchspace.evaluation.selector.sampling import sample_grid

    hw = load_hardware(hardware)

    def sample(bench: Bench, case: Case) -> list[str]:
        assert bench.sample is not None
        grid = [str(v) for v in case.tune[bench.sample.param]]
        block = {
            "policy": bench.sample.policy,
            "budget": bench.sample.budget,
            "alpha": bench.sample.alpha,
            "seed": bench.sample.seed,
        }
        where = f"bench {bench.name} case {case.index}"
        return sample_grid(grid, case.fixed, block, hw, where=where)

    return sample


def _default(space: Space, key: str, fallback: str) -> str:
    """The space's ``defaults`` value of `key` (a string), else `fallback`."""
    value = space.defaults.get(key)
    return value if isinstance(value, str) else fallback


def run(args: argparse.Namespace) -> int:
    """Run the sweep or the validation."""
    if args.topk < 1:
        raise UsageError(f"--topk: {args.topk} must be at least 1")
    if args.repeats is not None and args.repeats < 1:
        raise UsageError(f"--repeats: {args.repeats} must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout: {args.timeout} must be positive")
    if args.max_invocations < 0:
        raise UsageError(f"--max-invocations: {args.max_invocations} must be 0 (no limit) or more")
    if args.dask and (args.jobs != 1 or args.gpus.strip()):
        raise UsageError(
            "--jobs/--gpus do not apply with --dask: the scheduler places the work (one job "
            "per worker thread); drop them, and size the workers instead"
        )
    space = load_space(args.space, allow_outside_root=args.allow_outside_root)
    gpu, _ = gpu_info()
    run_options = RunOptions(
        build_dir=args.build_dir,
        backend=args.backend or _default(space, "backend", DEFAULT_BACKEND),
        dtype=args.dtype or _default(space, "type", DEFAULT_DTYPE),
        timeout_s=args.timeout or 600.0,
        warmup=args.warmup,
        min_time_ms=args.min_time,
        min_iters=args.min_iters,
        max_iters=args.max_iters,
        host=platform.node(),
        device=gpu or "cpu",
    )
    unknown = [name for name in args.bench if name not in {b.name for b in space.benches}]
    if unknown:
        known = ", ".join(b.name for b in space.benches)
        raise UsageError(f"--bench: {', '.join(unknown)} not in {args.space} (benches: {known})")
    problems = _header_check(args)(space, args.include_incumbent) if space.header else []
    if args.validate:
        return _validate(space, run_options, args, problems)
    if problems:
        raise BenchspaceError(problems[0] if len(problems) == 1 else "; ".join(problems))
    budgets = plan_budget(space, benches=args.bench, repeats=args.repeats)
    if args.plan:
        print(render_budget(args.space, budgets))
        return 0
    check_budget(args.space, budgets, args.max_invocations)
    if args.include_incumbent and space.header is not None:
        from benchspace.generators.session import space_with_incumbents

        space = space_with_incumbents(
            space, root=args.root, allow_outside_root=args.allow_outside_root
        )
    out = args.out or args.build_dir / "tuning" / "profile.json"
    store = args.store or out.with_name(out.name.removesuffix(".json") + ".store.sqlite")
    check_output(out, option="--out")  # before hours of sweeping, not after
    check_not_input(out, option="--out", inputs=((store, "the store"), (space.path, "the space")))
    if not store.is_dir():  # a directory is refused by the store itself
        check_output(store, option="--store")
    sampler = _sampler(args.hardware) if any(b.sample for b in space.benches) else None
    options = TuneOptions(
        sampler=sampler,
        out=out,
        store=store,
        run=run_options,
        topk=args.topk,
        repeats=args.repeats,
        timeout_s=args.timeout,
        skip_missing=args.skip_missing,
        allow_failures=args.allow_failures,
        rerun=args.rerun,
        # Dask rows name the worker that measured them: the scheduler places the work.
        allow_other_host=args.allow_other_host or bool(args.dask),
        benches=tuple(args.bench),
        command=("benchspace", "tune", *sys.argv[2:])
        if sys.argv[1:2] == ["tune"]
        else tuple(sys.argv),
    )
    executor: Executor
    if args.dask:
        from benchspace.harness.execute.dask_executor import DaskExecutor

        executor = DaskExecutor(
            args.dask, timeout_s=args.dask_timeout, allow_shared_hosts=args.allow_shared_hosts
        )
    else:
        gpus = _gpus(args.gpus)
        cpu_sets: tuple[tuple[int, ...], ...] = ()
        if args.jobs > 1 and not gpus:
            placement = place(
                args.jobs, args.cpus_per_job, available_cpus(), oversubscribe=args.oversubscribe
            )
            for warning in placement.warnings + (() if args.quiet else placement.notes):
                print(f"warning: {warning}", file=sys.stderr)
            cpu_sets = placement.sets
            options = replace(
                options,
                extra_meta={
                    **options.extra_meta,
                    "parallel": {
                        "jobs": args.jobs,
                        "cpus_per_job": args.cpus_per_job,
                        **placement.provenance(),
                    },
                },
            )
        executor = LocalExecutor(args.jobs, gpus, cpu_sets)
    progress = Progress(quiet=args.quiet)
    try:
        with few_collections():
            outcome = tune(space, options, executor=executor, progress=progress)
    finally:
        progress.close()
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    for note in outcome.notes:
        print(note, file=sys.stderr)
    _summary(outcome.profile, out, store, outcome.executed, outcome.cached, outcome.skipped)
    if outcome.missing:
        print(f"missing executables: {', '.join(outcome.missing)}", file=sys.stderr)
        return 1
    if outcome.failures and not args.allow_failures:
        print(
            f"{outcome.failures} failed invocations (listed above and in the profile); "
            "pass --allow-failures to exit 0 anyway",
            file=sys.stderr,
        )
        return 1
    return 0


GPU_ID = re.compile(r"[0-9]+|(GPU|MIG)-[0-9A-Za-z/-]+")
"""What CUDA_VISIBLE_DEVICES takes: an index, or a GPU or MIG UUID."""


def _gpus(text: str) -> list[str]:
    """The ids of ``--gpus``; a usage error for one CUDA would not know (it would hide GPUs)."""
    gpus = [g.strip() for g in text.split(",") if g.strip()]
    bad = [g for g in gpus if not GPU_ID.fullmatch(g)]
    if bad:
        raise UsageError(
            f"--gpus: {bad[0]!r} is not a GPU id; write indices such as 0,1 (or GPU-/MIG- UUIDs)"
        )
    return gpus


def _validate(
    space: Space, options: RunOptions, args: argparse.Namespace, problems: list[str]
) -> int:
    failed = 0
    for problem in problems:
        print(f"{'failed':<8} header: {problem}")
        failed += 1
    benches = [b for b in space.benches if not args.bench or b.name in args.bench]
    for bench in benches:
        result = probe_bench(bench, options, skip_missing=args.skip_missing)
        print(result.line(), flush=True)
        failed += result.state in ("failed", "missing")
    checked = sum(1 for _ in benches)
    print(f"validated {checked} benches of {args.space}: {failed} problems")
    return 1 if failed else 0


def _summary(
    profile: Profile,
    out: Path,
    store: Path,
    executed: int,
    cached: int,
    skipped: tuple[str, ...],
) -> None:
    for result in profile.results.values():
        best = result.best
        shown = dict(best.params) if best else "(no combo covers every case; see per_case_best)"
        print(f"{result.bench}: best {shown}")
        for failure in result.failures:
            print(
                f"  {failure.status}: case {failure.case_index} "
                f"{dict(failure.params)}: {failure.error}"
            )
    if skipped:
        print(f"skipped (no executable): {', '.join(skipped)}")
    print(f"{executed} invocations run, {cached} from the store; profile {out}, store {store}")
