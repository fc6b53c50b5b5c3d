#!/usr/bin/env python3
"""Benchmark (not a test): what benchspace costs per invocation, and what ``--jobs 2`` buys.

Side by side in one run, on the same argv:
1. a bare ``subprocess.run`` loop over N invocations of a no-op executable (output captured);
2. ``benchspace tune`` sweeping the same N invocations (store, temp dirs, parsing, profile);
3. ``benchspace tune --jobs 2`` on a sleeping executable, against ``--jobs 1``.
Prints the per-invocation times and the ratios. The goals: overhead ratio <= 1.1 (serial)
and a ``--jobs 2`` speed-up near 2 when the benchmark itself dominates.
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
        space = _space(work / "noop.json", noop, args.n)
        bare, harness = [], []
        _bare(noop, 20)  # warm the page cache and the interpreter
        for _ in range(args.rounds):  # alternate, so drift hits both sides alike
            bare.append(_bare(noop, args.n))
            harness.append(_tune(space, work))
        b, h = statistics.median(bare), statistics.median(harness)
        n_sleep = 40
        sleep_space = _space(work / "sleep.json", sleeper, n_sleep)
        serial = _tune(sleep_space, work, "--jobs", "1")
        parallel = _tune(sleep_space, work, "--jobs", "2")
    print(f"cores: {os.cpu_count()}, invocations per run: {args.n}, rounds: {args.rounds}")
    print(f"{'':32}{'total s':>10}{'per inv ms':>12}")
    print(f"{'bare subprocess.run loop':32}{b:>10.3f}{1000 * b / args.n:>12.3f}")
    print(f"{'benchspace tune (--jobs 1)':32}{h:>10.3f}{1000 * h / args.n:>12.3f}")
    print(f"overhead ratio (tune / bare): {h / b:.3f}  (goal <= 1.1)")
    print(f"50 ms benchmark x {n_sleep}: --jobs 1 {serial:.2f} s, --jobs 2 {parallel:.2f} s, "
          f"speed-up {serial / parallel:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
