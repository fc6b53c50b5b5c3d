"""Emit and compile CUTLASS kernels into batch libraries and the driver (skips what is built)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchspace.evaluation.cutlass.batch_index import INDEX_NAME, BuildResult, load_index
from benchspace.evaluation.cutlass.batches import pending_names, plan_batches, read_kernel_list
from benchspace.evaluation.cutlass.build import build_batches, build_driver, merge_build_dir
from benchspace.evaluation.cutlass.build_format import render_plan, render_progress
from benchspace.harness.files import guard_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the kernel list, the build directory and the build's knobs."""
    parser.add_argument(
        "--kernels", type=Path, required=True, help="kernel list: procedural names, one a line"
    )
    parser.add_argument(
        "--build-dir",
        type=Path,
        default=Path("build/cutlass"),
        help="libraries, batches.json and the driver (default: build/cutlass)",
    )
    parser.add_argument(
        "--per-tu", type=int, default=8, help="kernels per translation unit (default: 8)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="nvcc processes at a time (default: 1)")
    parser.add_argument("--limit", type=int, default=None, help="build at most N batches")
    parser.add_argument("--no-driver", action="store_true", help="do not build cutlass_bench")
    parser.add_argument(
        "--merge",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="first take the built batches of another build directory (repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    """Build the driver and the pending batches, one progress line per batch; 1 on failures."""
    guard_output(args.build_dir / INDEX_NAME, option="--build-dir",
                 inputs=[(args.kernels, "the kernel list")])  # fmt: skip
    names = read_kernel_list(args.kernels)  # the input first: nothing is built for a bad one
    for other in args.merge:
        print(f"merged {merge_build_dir(args.build_dir, other)} batches from {other}", flush=True)
    if not args.no_driver:
        print(f"driver: {build_driver(args.build_dir)}", flush=True)
    index = load_index(args.build_dir)
    batches = plan_batches(pending_names(names, index, args.build_dir), args.per_tu)
    batches = batches[: args.limit] if args.limit is not None else batches
    print(render_plan(names, batches), flush=True)
    started = time.monotonic()
    counts = {"built": 0, "cached": 0, "failed": 0}

    def report(result: BuildResult) -> None:
        counts[result.status] += 1
        done = sum(counts.values())
        eta_s = (time.monotonic() - started) / done * (len(batches) - done)
        print(render_progress(result, done, len(batches), counts["failed"], eta_s), flush=True)

    build_batches(batches, args.build_dir, args.jobs, report)
    return 1 if counts["failed"] else 0
