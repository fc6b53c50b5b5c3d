#!/usr/bin/env python3
"""Benchmark (not a test): how often ``benchspace ab`` finds a real 3 % difference, and how
often it claims one that is not there.

A tiny C program prints a time with seeded Gaussian noise (relative sd ``--noise``, default
2 %) scaled by ``AB_FACTOR``; each of ``--trials`` runs uses a fresh noise seed. Scenario
"effect": A sets ``AB_FACTOR=1``, B sets ``AB_FACTOR=1.03`` (B 3 % slower, so the right
verdict is "A faster"). Scenario "A/A": the two sides set a variable the program ignores.
Prints the detection rate (goal >= 95 %) and the false-positive rate (goal <= 5 %), with the
pairs each scenario took. Runs in well under a minute with the default budget (30 pairs).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.cli import main as benchspace  # noqa: E402

NOISY_C = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64: one well-mixed 64-bit word per (seed, invocation count). */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static double env_double(const char* name, double fallback) {
    const char* text = getenv(name);
    return text != NULL && *text != '\0' ? atof(text) : fallback;
}

int main(void) {
    /* The invocation counter lives in AB_STATE so that a sequence of runs is deterministic. */
    const char* state = getenv("AB_STATE");
    unsigned long long count = 0;
    if (state != NULL) {
        FILE* in = fopen(state, "r");
        if (in != NULL) {
            if (fscanf(in, "%llu", &count) != 1) count = 0;
            fclose(in);
        }
        FILE* out = fopen(state, "w");
        if (out != NULL) {
            fprintf(out, "%llu\n", count + 1);
            fclose(out);
        }
    }
    const uint64_t seed = (uint64_t)env_double("AB_SEED", 0.0);
    const uint64_t r1 = mix(seed * 0x100000001b3ULL ^ mix(2 * count));
    const uint64_t r2 = mix(r1 ^ mix(2 * count + 1));
    const double u1 = ((r1 >> 11) + 1.0) / 9007199254740993.0;
    const double u2 = (r2 >> 11) / 9007199254740992.0;
    const double gauss = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    const double value = 100.0 * env_double("AB_FACTOR", 1.0) *
                         (1.0 + env_double("AB_NOISE", 0.02) * gauss);
    printf("name,time_ms\nBM_AB,%.6f\n", value);
    return 0;
}
"""


def compile_fake(workdir: Path) -> Path:
    """Compile the noisy program; exits with a message when no C compiler is present."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        sys.exit("ab_power: needs a C compiler (cc, gcc or clang) on PATH")
    src = workdir / "noisy.c"
    exe = workdir / "noisy"
    src.write_text(NOISY_C)
    subprocess.run([cc, "-O2", "-o", str(exe), str(src), "-lm"], check=True)
    return exe


def one_ab(exe: Path, a: list[str], b: list[str], *, trial: int, rounds: int, workdir: Path) -> Any:
    """Run ``benchspace ab`` in process for one trial; its JSON report."""
    state = workdir / f"state-{trial}"
    state.unlink(missing_ok=True)
    os.environ["AB_STATE"] = str(state)
    os.environ["AB_SEED"] = str(1000 + trial)
    argv = ["ab", "--exe", str(exe), "--reader", "csv", "--metric", "time_ms"]
    argv += [f"--a={x}" for x in a] + [f"--b={x}" for x in b]
    argv += ["--rounds", str(rounds), "--seed", str(trial), "--format", "json", "--quiet"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = benchspace(argv)
    if code != 0:
        sys.exit(f"ab_power: benchspace ab exited {code} on trial {trial}")
    return json.loads(out.getvalue())


def scenario(
    name: str, exe: Path, a: list[str], b: list[str], args: argparse.Namespace, workdir: Path
) -> list[Any]:
    """Run one scenario's trials and print one line per trial."""
    reports = []
    for trial in range(args.trials):
        report = one_ab(exe, a, b, trial=trial, rounds=args.rounds, workdir=workdir)
        reports.append(report)
        lo, hi = report["ci"]
        print(
            f"  {name:6} trial {trial:2}: B/A {report['ratio']:.4f} [{lo:.4f}, {hi:.4f}] "
            f"p={report['p_value']:.2g} pairs={report['pairs']:2} -> {report['verdict']}",
            flush=True,
        )
    return reports


def main() -> int:
    """Run both scenarios and print the rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--effect", type=float, default=3.0, help="percent (default 3)")
    parser.add_argument("--noise", type=float, default=2.0, help="relative sd, percent")
    parser.add_argument("--rounds", type=int, default=30, help="pair budget per A/B")
    args = parser.parse_args()
    os.environ["AB_NOISE"] = str(args.noise / 100.0)
    with tempfile.TemporaryDirectory(prefix="ab-power-") as tmp:
        workdir = Path(tmp)
        exe = compile_fake(workdir)
        t0 = time.perf_counter()
        factor = 1.0 + args.effect / 100.0
        effect = scenario("effect", exe, ["AB_FACTOR=1"], [f"AB_FACTOR={factor:g}"], args, workdir)
        t1 = time.perf_counter()
        same = scenario("A/A", exe, ["AB_TAG=a"], ["AB_TAG=b"], args, workdir)
        t2 = time.perf_counter()
    right = "A faster" if args.effect > 0 else "B faster"
    detected = sum(r["verdict"] == right for r in effect)
    wrong_way = sum(r["verdict"] not in (right, "no difference detected") for r in effect)
    false_pos = sum(r["verdict"] != "no difference detected" for r in same)
    n = args.trials
    print(
        f"\nnoise {args.noise:g} % (relative sd per run), pair budget {args.rounds}, "
        f"{n} trials per scenario"
    )
    print(
        f"detection rate, {args.effect:g} % effect: {detected}/{n} = {detected / n:.0%} "
        f"(goal >= 95 %); wrong direction {wrong_way}; median pairs "
        f"{statistics.median(r['pairs'] for r in effect):g}; {t1 - t0:.1f} s"
    )
    print(
        f"false-positive rate, A/A: {false_pos}/{n} = {false_pos / n:.0%} (goal <= 5 %); "
        f"median pairs {statistics.median(r['pairs'] for r in same):g}; {t2 - t1:.1f} s"
    )
    return 0 if detected / n >= 0.95 and false_pos / n <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
