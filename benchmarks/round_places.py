#!/usr/bin/env python3
"""Benchmark (not a test): does a measurement's place in a round move it, on this machine?

A race or a confirmation measures its configurations in interleaved rounds and pairs their
values round by round; harness/sweep/round_order.py draws each round's order so that a place's
effect is not handed to the same configuration every round. This measures that effect on a
real bench: one configuration of a case (default: the demo's matmul n = 256, block 64) run
``--places`` times back to back per round, ``--rounds`` rounds, every run through the
harness's own invocation and reader (an A/A: the runs differ only by place). Per place it
prints the mean of log(value / the round's geometric mean) in per cent, with a 95 % interval
(Student's t over the rounds), and the pairwise test of the first place against the rest.

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2
    python benchmarks/round_places.py --build-dir build
    python benchmarks/round_places.py --build-dir build --bench sort --case 0 --rounds 40

Nothing is kept; exits 0 (it reports, it judges nothing).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.abtest import student_t  # noqa: E402
from benchspace.harness.execute.invoke import (  # noqa: E402
    RunOptions,
    build_invocation,
    resolve_executable,
    sha256_file,
)
from benchspace.harness.execute.process import run_invocation  # noqa: E402
from benchspace.harness.plan import plan_main  # noqa: E402
from benchspace.harness.spaces.load import load_space  # noqa: E402


def _interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    se = statistics.stdev(values) / math.sqrt(len(values))
    return mean, student_t.isf(0.025, len(values) - 1) * se


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--space", default=str(ROOT / "spaces" / "demo.json"))
    parser.add_argument("--build-dir", default=str(ROOT / "build" / "benchmarks"))
    parser.add_argument("--bench", default="matmul")
    parser.add_argument("--case", type=int, default=2)
    parser.add_argument("--config", type=int, default=2, help="the case's configuration")
    parser.add_argument("--places", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    space = load_space(args.space)
    bench = next((b for b in space.benches if b.name == args.bench), None)
    if bench is None:
        print(f"round_places: no bench {args.bench!r} in {args.space}", file=sys.stderr)
        return 1
    build = Path(args.build_dir)
    if (build / "benchmarks").is_dir():
        build = build / "benchmarks"
    exe = resolve_executable(bench.exe, build)
    if exe is None:
        print(f"round_places: {bench.exe} is not in {build}; build the demo", file=sys.stderr)
        return 1
    tasks = [t for t in plan_main(bench, {}).tasks if t.case_index == args.case]
    task = tasks[args.config]
    sha = sha256_file(exe)
    options = RunOptions(build_dir=build)
    logs: list[list[float]] = [[] for _ in range(args.places)]
    started = time.monotonic()
    for r in range(args.rounds):
        values = []
        for place in range(args.places):
            inv = build_invocation(
                bench, task, exe_path=exe, exe_sha256=sha, options=options, repeat=r
            )
            m = run_invocation(inv)
            if not m.ok or m.value is None or m.value <= 0:
                print(f"round_places: round {r} place {place} failed: {m.status}", file=sys.stderr)
                return 1
            values.append(math.log(m.value))
        centre = statistics.fmean(values)
        for place, v in enumerate(values):
            logs[place].append(v - centre)
    print(
        f"{bench.name} case {args.case} {dict(task.config)} ({bench.metric}, {bench.direction}): "
        f"{args.places} runs of the same configuration per round, {args.rounds} rounds, "
        f"{time.monotonic() - started:.0f} s"
    )
    for place, deltas in enumerate(logs):
        mean, half = _interval([100 * d for d in deltas])
        print(f"  place {place}: {mean:+.2f} % +- {half:.2f} (vs the round's centre)")
    first = [a - statistics.fmean(rest) for a, *rest in zip(*logs, strict=True)]
    mean, half = _interval([100 * d for d in first])
    seen = "a place effect" if abs(mean) > half else "no place effect shown"
    print(f"  first place vs the others: {mean:+.2f} % +- {half:.2f}: {seen} at 95 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
