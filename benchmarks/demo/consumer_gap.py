"""Measure how the demo's MATMUL_BLOCK winner differs between its kernel and its consumer.

A benchmark, not a test: for each size n and block it times ``matmul_benchmark n block``
(the kernel, block as an argument) and ``lu_benchmark n`` with
``BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK=block`` (the consumer, block through the env override),
interleaved in a shuffled order per round, and prints each one's best block and what the
kernel's winner costs LU.

    python benchmarks/demo/consumer_gap.py --build-dir build [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_VAR = "BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK"


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One round's figures for one (n, block)."""

    matmul_gflops: float
    lu_real_us: float
    lu_cpu_us: float


@dataclass(frozen=True, kw_only=True)
class Point:
    """Medians over rounds for one (n, block), with LU's relative spread."""

    n: int
    block: int
    matmul_gflops: float
    lu_real_us: float
    lu_cpu_us: float
    lu_spread: float


def run_gbench(
    exe: Path, args: Sequence[str], env: Mapping[str, str], min_time: float
) -> dict[str, Any]:
    """Run one Google Benchmark executable and return its single benchmark entry."""
    with tempfile.TemporaryDirectory(prefix="consumer-gap-") as tmp:
        out = Path(tmp) / "out.json"
        argv = [
            str(exe),
            f"--benchmark_min_time={min_time}",
            f"--benchmark_out={out}",
            "--benchmark_out_format=json",
            *args,
        ]
        subprocess.run(argv, env={**os.environ, **env}, check=True, capture_output=True)
        entries = json.loads(out.read_text())["benchmarks"]
    return dict(entries[0])


def summarise(samples: Mapping[tuple[int, int], Sequence[Sample]]) -> list[Point]:
    """Median figures per (n, block), sorted."""
    points = []
    for (n, block), runs in sorted(samples.items()):
        lu = [s.lu_real_us for s in runs]
        median_lu = statistics.median(lu)
        spread = (max(lu) - min(lu)) / median_lu if len(lu) > 1 else 0.0
        points.append(
            Point(
                n=n,
                block=block,
                matmul_gflops=statistics.median(s.matmul_gflops for s in runs),
                lu_real_us=median_lu,
                lu_cpu_us=statistics.median(s.lu_cpu_us for s in runs),
                lu_spread=spread,
            )
        )
    return points


def render(points: Sequence[Point]) -> str:
    """A table per size and one verdict line each."""
    lines = []
    for n in sorted({p.n for p in points}):
        row = [p for p in points if p.n == n]
        kernel_best = max(row, key=lambda p: p.matmul_gflops)
        lu_best = min(row, key=lambda p: p.lu_real_us)
        lines.append(f"n={n}")
        for p in row:
            lines.append(
                f"  block {p.block:4d}: matmul {p.matmul_gflops:6.2f} GFLOP/s "
                f"({100 * p.matmul_gflops / kernel_best.matmul_gflops:5.1f}% of best) | "
                f"lu {p.lu_real_us:10.1f} us real, {p.lu_cpu_us:10.1f} us cpu "
                f"({100 * (p.lu_real_us / lu_best.lu_real_us - 1):+6.1f}% vs lu best, "
                f"range {100 * p.lu_spread:.1f}%)"
            )
        cost = 100 * (kernel_best.lu_real_us / lu_best.lu_real_us - 1)
        lines.append(
            f"  kernel best block {kernel_best.block}, lu best block {lu_best.block}: "
            f"the kernel's pick makes lu {cost:+.1f}%"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the interleaved measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=Path("build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.1)
    parser.add_argument("--sizes", default="64,128,256,512")
    parser.add_argument("--blocks", default="16,32,64,128,256")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    bench_dir = args.build_dir / "benchmarks"
    matmul, lu = bench_dir / "matmul_benchmark", bench_dir / "lu_benchmark"
    for exe in (matmul, lu):
        if not exe.is_file():
            print(f"error: {exe} not found; build the demo first", file=sys.stderr)
            return 1
    sizes = [int(x) for x in args.sizes.split(",")]
    blocks = [int(x) for x in args.blocks.split(",")]
    configs = [(n, b) for n in sizes for b in blocks if b <= n]
    rng = random.Random(args.seed)
    samples: dict[tuple[int, int], list[Sample]] = {}
    for _ in range(args.rounds):
        rng.shuffle(configs)
        for n, block in configs:
            kernel = run_gbench(matmul, [str(n), str(block)], {}, args.min_time)
            consumer = run_gbench(lu, [str(n)], {ENV_VAR: str(block)}, args.min_time)
            if int(consumer["block"]) != block:
                print(f"error: lu_benchmark ignored {ENV_VAR}={block}", file=sys.stderr)
                return 1
            samples.setdefault((n, block), []).append(
                Sample(
                    matmul_gflops=float(kernel["GFLOP/s"]),
                    lu_real_us=float(consumer["real_time"]),
                    lu_cpu_us=float(consumer["cpu_time"]),
                )
            )
    print(render(summarise(samples)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
