#!/usr/bin/env python3
"""Benchmark (not a test): what benchspace costs per invocation, and what ``--jobs 2`` buys.

Side by side in one run, on the same argv:
1. a bare ``subprocess.run`` loop over N invocations of a no-op executable (output captured);
2. ``benchspace tune`` sweeping the same N invocations (store, temp dirs, parsing, profile);
3. ``benchspace tune --jobs 2`` on a sleeping executable, against ``--jobs 1``.
Each side runs at two sizes, N and 4N, in rounds (each round both sides at both sizes, in
alternating order): the slope between the sizes is the per-invocation cost, the intercept the
fixed cost of a sweep (space validation, provenance, store and profile files). The ratio is
taken per round and its median printed with every round's value (on a shared machine single
rounds scatter by +-15 %). The goals: per-invocation overhead ratio
<= 1.1 (serial) and a ``--jobs 2`` speed-up near 2 when the benchmark itself dominates.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.cli import main as benchspace  # noqa: E402

NOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
    /* A benchmark that does no work: prints one result line. */
    printf("result %s %d\n", argc > 1 ? argv[1] : "0", argc > 2 ? atoi(argv[2]) : 0);
    return 0;
}
"""

SLEEP_C = r"""
#include <stdio.h>
#include <time.h>
int main(int argc, char** argv) {
    struct timespec ts = {0, 50 * 1000 * 1000};  /* 50 ms of "benchmark" */
    nanosleep(&ts, NULL);
    printf("result %s 1\n", argc > 1 ? argv[1] : "0");
    return 0;
}
"""


def _compile(src: str, out: Path) -> None:
    c = out.with_suffix(".c")
    c.write_text(src)
    subprocess.run(["cc", "-O2", "-o", str(out), str(c)], check=True)


def _space(path: Path, exe: Path, n: int) -> Path:
    space = {
        "format": 1,
        "spaces": [
            {
                "bench": "noop",
                "exe": str(exe),
                "reader": "regex",
                "pattern": r"result (?P<n>\d+) (?P<value>\d+)",
                "metric": "value",
                "arg_spec": ["n", "i"],
                "cases": [{"fixed": {"n": 1}, "tune": {"i": list(range(n))}}],
            }
        ],
    }
    path.write_text(json.dumps(space))
    return path


def _bare(exe: Path, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        subprocess.run([str(exe), "1", str(i)], capture_output=True, check=True)
    return time.perf_counter() - t0


def _slope(small: float, large: float, n_small: int, n_large: int) -> tuple[float, float]:
    """(per-invocation seconds, fixed seconds) from two sizes."""
    per = (large - small) / (n_large - n_small)
    return per, small - per * n_small


def _tune(space: Path, work: Path, *extra: str) -> float:
    out = work / "profile.json"
    for leftover in work.glob("profile*"):
        leftover.unlink()
    t0 = time.perf_counter()
    code = benchspace(
        ["tune", "--space", str(space), "--build-dir", str(work), "--out", str(out),
         "--quiet", *extra]
    )  # fmt: skip
    elapsed = time.perf_counter() - t0
    if code != 0:
        raise SystemExit(f"benchspace tune exited {code}")
    return elapsed


def main() -> int:
    """Run the three measurements and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=300, help="invocations per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (median)")
    args = parser.parse_args()
    if shutil.which("cc") is None:
        raise SystemExit("needs a C compiler (cc) to build the no-op executable")
    with tempfile.TemporaryDirectory(prefix="benchspace-overhead-") as tmp:
        work = Path(tmp)
        noop, sleeper = work / "noop", work / "sleeper"
        _compile(NOOP_C, noop)
        _compile(SLEEP_C, sleeper)
        n_small, n_large = args.n, 4 * args.n
        spaces = {n: _space(work / f"noop{n}.json", noop, n) for n in (n_small, n_large)}
        _bare(noop, 20)  # warm the page cache
        _tune(spaces[n_small], work)  # and the imports
        bare_slopes: list[float] = []
        tune_slopes: list[float] = []
        fixed: dict[str, list[float]] = {"bare": [], "tune": []}
        for r in range(args.rounds):
            # One round measures both sides at both sizes, in an order that alternates
            # (ABBA, then BAAB) so that drift of the machine hits both sides alike.
            steps = [("bare", n_small), ("tune", n_small), ("tune", n_large), ("bare", n_large)]
            if r % 2:
                steps = [(side, n) for side, n in reversed(steps)]
            took: dict[tuple[str, int], float] = {}
            for side, n in steps:
                took[side, n] = _bare(noop, n) if side == "bare" else _tune(spaces[n], work)
            for side, slopes in (("bare", bare_slopes), ("tune", tune_slopes)):
                per, fix = _slope(took[side, n_small], took[side, n_large], n_small, n_large)
                slopes.append(per)
                fixed[side].append(fix)
        ratios = sorted(t / b for t, b in zip(tune_slopes, bare_slopes, strict=True))
        b_per, h_per = statistics.median(bare_slopes), statistics.median(tune_slopes)
        b_fixed, h_fixed = statistics.median(fixed["bare"]), statistics.median(fixed["tune"])
        n_sleep = 40
        sleep_space = _space(work / "sleep.json", sleeper, n_sleep)
        bare_sleep = _bare(sleeper, n_sleep)
        serial = _tune(sleep_space, work, "--jobs", "1")
        parallel = _tune(sleep_space, work, "--jobs", "2")
    print(
        f"cores: {os.cpu_count()}, sizes {n_small} and {n_large} invocations, {args.rounds} rounds"
    )
    print(f"{'(medians over rounds)':30}{'per invocation ms':>18}{'fixed ms':>10}")
    print(f"{'bare subprocess.run loop':30}{1000 * b_per:>18.3f}{1000 * b_fixed:>10.1f}")
    print(f"{'benchspace tune (--jobs 1)':30}{1000 * h_per:>18.3f}{1000 * h_fixed:>10.1f}")
    print(
        f"per-invocation overhead ratio (tune / bare): {statistics.median(ratios):.3f}"
        f"  (goal <= 1.1; per round {', '.join(f'{r:.3f}' for r in ratios)})"
    )
    print(f"absolute overhead: {1000 * (h_per - b_per):.3f} ms per invocation")
    print(f"50 ms benchmark x {n_sleep}: bare loop {bare_sleep:.2f} s, --jobs 1 {serial:.2f} s "
          f"(ratio {serial / bare_sleep:.3f}), --jobs 2 {parallel:.2f} s, "
          f"speed-up {serial / parallel:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
