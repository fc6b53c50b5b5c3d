#!/usr/bin/env python3
"""Benchmark (not a test): what benchspace costs per invocation, and what ``--jobs 2`` buys.

Side by side in one run, on the same argv:
1. a bare ``subprocess.run`` loop over N invocations of a no-op executable (output captured);
2. ``benchspace tune`` sweeping the same N invocations (store, temp dirs, parsing, profile);
3. ``benchspace tune --jobs 2`` on a sleeping executable, against ``--jobs 1``.
Each side runs at two sizes, N and 4N, alternating, several rounds (medians): the slope
between the sizes is the per-invocation cost, the intercept the fixed cost of a sweep (space
validation, provenance, store and profile files). The goals: per-invocation overhead ratio
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

from harness.cli import main as benchspace  # noqa: E402

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
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
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
        bare: dict[int, list[float]] = {n_small: [], n_large: []}
        harness: dict[int, list[float]] = {n_small: [], n_large: []}
        _bare(noop, 20)  # warm the page cache
        _tune(spaces[n_small], work)  # and the imports
        for _ in range(args.rounds):  # alternate, so drift hits both sides alike
            for n in (n_small, n_large):
                bare[n].append(_bare(noop, n))
                harness[n].append(_tune(spaces[n], work))
        b = {n: statistics.median(v) for n, v in bare.items()}
        h = {n: statistics.median(v) for n, v in harness.items()}
        b_per, b_fixed = _slope(b[n_small], b[n_large], n_small, n_large)
        h_per, h_fixed = _slope(h[n_small], h[n_large], n_small, n_large)
        n_sleep = 40
        sleep_space = _space(work / "sleep.json", sleeper, n_sleep)
        bare_sleep = _bare(sleeper, n_sleep)
        serial = _tune(sleep_space, work, "--jobs", "1")
        parallel = _tune(sleep_space, work, "--jobs", "2")
    print(
        f"cores: {os.cpu_count()}, sizes {n_small} and {n_large} invocations, {args.rounds} rounds"
    )
    print(f"{'':30}{'per invocation ms':>18}{'fixed ms':>10}{f'total at {n_large}, s':>18}")
    print(f"{'bare subprocess.run loop':30}{1000 * b_per:>18.3f}{1000 * b_fixed:>10.1f}"
          f"{b[n_large]:>18.3f}")  # fmt: skip
    print(f"{'benchspace tune (--jobs 1)':30}{1000 * h_per:>18.3f}{1000 * h_fixed:>10.1f}"
          f"{h[n_large]:>18.3f}")  # fmt: skip
    print(f"per-invocation overhead ratio (tune / bare): {h_per / b_per:.3f}  (goal <= 1.1)")
    print(f"whole-run ratio at {n_large} invocations: {h[n_large] / b[n_large]:.3f}")
    print(f"absolute overhead: {1000 * (h_per - b_per):.3f} ms per invocation")
    print(f"50 ms benchmark x {n_sleep}: bare loop {bare_sleep:.2f} s, --jobs 1 {serial:.2f} s "
          f"(ratio {serial / bare_sleep:.3f}), --jobs 2 {parallel:.2f} s, "
          f"speed-up {serial / parallel:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
