"""Sweep a space's benchmark executables into a profile (every attempt kept, resumable)."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

from benchspace.harness.cli.numbers import count, non_negative, seconds
from benchspace.harness.cli.race_args import add_race_arguments, race_options
from benchspace.harness.execute.gpus import RETIRE_AFTER
from benchspace.harness.execute.invoke import DEFAULT_BACKEND, DEFAULT_DTYPE
from benchspace.harness.plan import Sampler
from benchspace.harness.profiles.decided_format import bench_line, phase_line
from benchspace.harness.profiles.model import Profile
from benchspace.harness.project_paths import add_root_arguments
from benchspace.harness.spaces.model import Bench, Case, Space
from benchspace.harness.sweep.budget import DEFAULT_MAX_INVOCATIONS
from benchspace.harness.sweep.budget_format import render_budget
from benchspace.harness.sweep.tune_request import TuneHooks, TuneRequest, run_tune


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options as BatchLAS's tune.py, plus the ones a robust sweep needs."""
    _file_arguments(parser)
    _executor_arguments(parser)
    _sweep_arguments(parser)
    _mode_arguments(parser)
    _timing_arguments(parser)


def _file_arguments(parser: argparse.ArgumentParser) -> None:
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


def _executor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--topk", type=count(1, 10**6), default=10, help="size of the cross-case leaderboard"
    )
    parser.add_argument(
        "--jobs", type=count(1, 4096), default=1, help="invocations at once (CPU benches)"
    )
    parser.add_argument(
        "--gpus",
        default="",
        help="comma list of GPU ids, or 'all' (CUDA_VISIBLE_DEVICES, else every GPU nvidia-smi "
        "lists, by UUID): one worker per GPU, pinned",
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


def _sweep_arguments(parser: argparse.ArgumentParser) -> None:
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


def _mode_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-other-host",
        action="store_true",
        help="reuse stored measurements made on another host (default: measure them again)",
    )
    parser.add_argument(
        "--validate", action="store_true", help="one cheap invocation per bench, then exit"
    )
    parser.add_argument(
        "--from-store",
        action="store_true",
        help="assemble the profile from --store alone, running nothing (the executable need "
        "not be here); an attempt the store lacks is an error",
    )
    parser.add_argument(
        "--exe-sha",
        metavar="PREFIX",
        help="with --from-store: the build whose attempts to read, when the store holds several",
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
    parser.add_argument(
        "--build-jobs",
        type=count(1, 1024),
        default=1,
        metavar="J",
        help="variants (compile-time parameters) built at once, ahead of measurement (default 1)",
    )
    parser.add_argument(
        "--build-isolation",
        choices=("auto", "pin", "pause"),
        default="auto",
        help="keep compiles off timed CPU runs: pin them to other cores, or pause them while a "
        "variant is measured (auto: pin when a core is free for builds, else pause)",
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


def _timing_arguments(parser: argparse.ArgumentParser) -> None:
    # BatchLAS's timing flags, passed to minibench executables.
    parser.add_argument("--warmup", type=count(0, 10**9), default=2)
    parser.add_argument("--min-time", type=non_negative, default=25.0, help="ms (minibench)")
    parser.add_argument("--min-iters", type=count(0, 10**9), default=1)
    parser.add_argument("--max-iters", type=count(0, 10**9), default=20)
    add_root_arguments(parser)
    add_race_arguments(parser)  # --race, --stop, --confirm (harness/cli/race_args.py)


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


def request_from(args: argparse.Namespace) -> TuneRequest:
    """The parsed arguments as one frozen request."""
    return TuneRequest(
        space=args.space,
        build_dir=args.build_dir,
        out=args.out,
        store=args.store,
        backend=args.backend,
        dtype=args.dtype,
        topk=args.topk,
        jobs=args.jobs,
        gpus=args.gpus,
        cpus_per_job=args.cpus_per_job,
        oversubscribe=args.oversubscribe,
        dask=args.dask,
        dask_timeout=args.dask_timeout,
        allow_shared_hosts=args.allow_shared_hosts,
        timeout=args.timeout,
        repeats=args.repeats,
        benches=tuple(args.bench),
        skip_missing=args.skip_missing,
        allow_failures=args.allow_failures,
        rerun=args.rerun,
        build_jobs=args.build_jobs,
        build_isolation=args.build_isolation,
        # Dask rows name the worker that measured them: the scheduler places the work.
        allow_other_host=args.allow_other_host or bool(args.dask),
        validate=args.validate,
        from_store=args.from_store,
        exe_sha=args.exe_sha,
        include_incumbent=args.include_incumbent,
        hardware=args.hardware,
        quiet=args.quiet,
        plan=args.plan,
        max_invocations=args.max_invocations,
        warmup=args.warmup,
        min_time=args.min_time,
        min_iters=args.min_iters,
        max_iters=args.max_iters,
        root=args.root,
        allow_outside_root=args.allow_outside_root,
        command=("benchspace", "tune", *sys.argv[2:])
        if sys.argv[1:2] == ["tune"]
        else tuple(sys.argv),
    )


def _hooks(request: TuneRequest, args: argparse.Namespace) -> TuneHooks:
    def with_incumbents(space: Space) -> Space:
        from benchspace.generators.session import space_with_incumbents

        return space_with_incumbents(
            space, root=request.root, allow_outside_root=request.allow_outside_root
        )

    def header_check(space: Space, include_incumbent: bool) -> list[str]:
        # The header rules live with the generator (imported only when a space has a header).
        from benchspace.generators.session import check_space_header

        return check_space_header(
            space,
            include_incumbent,
            root=request.root,
            allow_outside_root=request.allow_outside_root,
        )

    return TuneHooks(
        header_check=header_check,
        with_incumbents=with_incumbents,
        sampler=_sampler,
        say=functools.partial(print, flush=True),
        warn=functools.partial(print, file=sys.stderr),
        decisions=functools.partial(_decisions, args),
    )


def _decisions(args: argparse.Namespace, space: Space) -> dict[str, Any]:
    return race_options(args, space, root=args.root, allow_outside=args.allow_outside_root)


def run(args: argparse.Namespace) -> int:
    """Run the sweep, the plan or the validation, and say what it did."""
    request = request_from(args)
    result = run_tune(request, _hooks(request, args))
    if result.kind == "validated":
        print(f"validated {result.checked} benches of {result.space}: {result.problems} problems")
        return 1 if result.problems else 0
    if result.kind == "planned":
        print(render_budget(result.space, result.budgets))
        for line in result.plan_lines:
            print(line)
        return 0
    outcome = result.outcome
    assert outcome is not None and result.out is not None and result.store is not None
    _summary(
        outcome.profile,
        result.out,
        result.store,
        outcome.executed,
        outcome.cached,
        outcome.skipped,
        duplicates=outcome.duplicates,
    )
    for note in outcome.notes:
        print(note, file=sys.stderr)
    for gpu in result.retired_gpus:
        print(
            f"warning: GPU {gpu} retired after {RETIRE_AFTER} jobs in a row failed on it and "
            "passed on another GPU (those rows say retried_after_gpu)",
            file=sys.stderr,
        )
    if outcome.built or outcome.reused:
        print(f"{outcome.built} variants built, {outcome.reused} from the store")
    if outcome.missing:
        print(f"missing executables: {', '.join(outcome.missing)}", file=sys.stderr)
        return 1
    if outcome.failures and not result.failures_allowed:
        print(
            f"{outcome.failures} failed invocations (listed above and in the profile); "
            "pass --allow-failures to exit 0 anyway",
            file=sys.stderr,
        )
        return 1
    return 0


def _summary(
    profile: Profile,
    out: Path,
    store: Path,
    executed: int,
    cached: int,
    skipped: tuple[str, ...],
    *,
    duplicates: int = 0,
) -> None:
    for result in profile.results.values():
        best = result.best
        shown = dict(best.params) if best else "(no combo covers every case; see per_case_best)"
        print(f"{result.bench}: best {shown}")
        # How --race / --confirm decided the winners (nothing for a plain sweep).
        decided = [bench_line(result), *(phase_line(result.bench, p) for p in result.pre_tune)]
        for line in decided:
            if line is not None:
                print(f"  decided: {line.removeprefix(f'{result.bench}:').strip()}")
        for failure in result.failures:
            print(
                f"  {failure.status}: case {failure.case_index} "
                f"{dict(failure.params)}: {failure.error}"
            )
    if skipped:
        print(f"skipped (no executable): {', '.join(skipped)}")
    again = f", {duplicates} duplicates inside the sweep" if duplicates else ""
    print(
        f"{executed} invocations run, {cached} from the store{again}; profile {out}, store {store}"
    )
