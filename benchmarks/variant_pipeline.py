#!/usr/bin/env python3
"""Benchmark (not a test): what building variants ahead of measurement buys, and what it costs.

N variants of one CPU bench, each built by a command that burns B seconds of CPU (a compile
stand-in: fixed CPU work, then the demo's reduce executable copied into ``{exe}``) and each
measured for about R seconds (``repeats`` runs of reduce_benchmark). Side by side, each on a
fresh build folder, through ``benchspace tune``:

1. serial: ``--build-isolation pause``, builds stopped (SIGSTOP) while a variant is measured:
   each build runs only between measurements, i.e. build-then-run, one after the other;
2. pipelined: ``--build-isolation pin``, builds on cores of their own (the next variants build
   while the current one is measured on another core);
3. unisolated: ``"overlap": true`` (what a GPU bench does), builds on any core, also the
   measuring one, with --build-jobs = cores: what the isolation protects the timings from.

It prints the wall times against the target pipelined <= 1.15 x max(N*B/J, N*R) + B, and the
values each sweep timed: every variant is the same executable, so their spread inside the
serial sweep is the noise floor, and a pipelined value should equal the serial one within it.
"""

from __future__ import annotations

import argparse
import json
import math
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
from benchspace.harness.store import Store  # noqa: E402

BURN = """
import shutil, sys, time
seconds, src, exe, define = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
t0 = time.process_time()
x = 0
while time.process_time() - t0 < seconds:
    for _ in range(10000):
        x += 1
shutil.copy(src, exe)
with open(exe, "ab") as fh:  # trailing bytes: each variant its own executable (and sha256)
    fh.write(define.encode())
"""


def _space(folder: Path, n: int, b: float, repeats: int, reduce_exe: Path, overlap: bool) -> Path:
    burn = folder / "burn.py"
    burn.write_text(BURN)
    space = {
        "format": 1,
        "spaces": [
            {
                "bench": "reduce",
                "exe": "reduce_benchmark",
                "reader": "csv",
                "metric": "cpu_time_ns",
                "row": "BM_reduce/",
                "repeats": repeats,
                "arg_spec": ["n"],
                "compile": ["V"],
                "build": {
                    "command": [
                        sys.executable,
                        str(burn),
                        str(b),
                        str(reduce_exe),
                        "{exe}",
                        "{defines}",
                    ],
                    "timeout_s": 600,
                    "overlap": overlap,
                },
                "cases": [{"fixed": {"n": 4096}, "tune": {"V": list(range(n))}}],
            }
        ],
    }
    path = folder / ("space_overlap.json" if overlap else "space.json")
    path.write_text(json.dumps(space))
    return path


def _sweep(space: Path, build: Path, *args: str) -> dict[str, Any]:
    t0 = time.monotonic()
    code = benchspace(["tune", "--space", str(space), "--build-dir", str(build), "--quiet", *args])
    wall = time.monotonic() - t0
    if code != 0:
        raise SystemExit(f"tune exited {code}")
    with Store(build / "tuning" / "profile.store.sqlite") as store:
        builds = store.builds()
        runs = list(store.attempts())
    values: dict[int, list[float]] = {}
    for m in runs:
        if m.value is not None:
            values.setdefault(int(m.params["V"]), []).append(m.value)  # type: ignore[arg-type]
    return {
        "wall": wall,
        "build_s": statistics.fmean(a.seconds for a in builds),
        "run_s": sum(m.duration_s for m in runs) / len(values),
        "medians": {v: statistics.median(xs) for v, xs in sorted(values.items())},
    }


def main() -> int:
    """Run the three sweeps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=6, help="N (default 6)")
    parser.add_argument("--build-s", type=float, default=1.0, help="B: CPU s per build (1.0)")
    parser.add_argument("--repeats", type=int, default=4, help="runs per variant (4: R ~ 1 s)")
    parser.add_argument("--build-jobs", type=int, default=1, help="J for the pipelined sweep")
    args = parser.parse_args()
    if shutil.which("g++") is None or len(os.sched_getaffinity(0)) < 2:
        print("variant_pipeline: needs g++ and at least 2 cores", file=sys.stderr)
        return 1
    n, b, j = args.variants, args.build_s, args.build_jobs
    with tempfile.TemporaryDirectory(prefix="benchspace-pipeline-") as tmp:
        folder = Path(tmp)
        reduce_exe = folder / "reduce_benchmark"
        subprocess.run(
            ["g++", "-O2", "-std=c++17", "-DREDUCE_LANES=1", "-o", str(reduce_exe),
             str(ROOT / "benchmarks/demo/variants/reduce_benchmark.cc")],
            check=True,
        )  # fmt: skip
        space = _space(folder, n, b, args.repeats, reduce_exe, overlap=False)
        loose = _space(folder, n, b, args.repeats, reduce_exe, overlap=True)
        cores = str(len(os.sched_getaffinity(0)))
        serial = _sweep(space, folder / "serial", "--build-isolation", "pause")
        piped = _sweep(space, folder / "piped", "--build-isolation", "pin", "--build-jobs", str(j))
        free = _sweep(loose, folder / "free", "--build-jobs", cores)
    build_s, run_s = serial["build_s"], serial["run_s"]
    bound = 1.15 * max(n * build_s / j, n * run_s) + build_s
    print(f"N={n} variants, J={j}, B={build_s:.2f} s per build, R={run_s:.2f} s per variant")
    print(f"{'sweep':<34}{'wall s':>8}{'vs serial':>11}")
    print(f"{'serial (build, then run)':<34}{serial['wall']:>8.2f}{1.0:>10.2f}x")
    ratio = piped["wall"] / serial["wall"]
    print(f"{'pipelined (builds pinned apart)':<34}{piped['wall']:>8.2f}{ratio:>10.2f}x")
    verdict = "met" if piped["wall"] <= bound else "MISSED"
    print(f"target: pipelined <= 1.15 x max(N*B/J, N*R) + B = {bound:.2f} s: {verdict}")
    floor = statistics.stdev(serial["medians"].values()) / statistics.fmean(
        serial["medians"].values()
    )
    print("values (cpu_time_ns of reduce n=4096, the same executable in every variant)")
    print(f"noise floor: spread of the {n} serial medians, stdev/mean {100 * floor:.2f} %")
    for name, sweep in (("pipelined", piped), (f"unisolated (J={cores})", free)):
        ratios = [sweep["medians"][v] / serial["medians"][v] for v in serial["medians"]]
        geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
        worst = max(ratios, key=lambda r: abs(r - 1))
        print(
            f"{name:<22} vs serial: geomean ratio {geo:.3f}, worst {worst:.3f} "
            f"(wall {sweep['wall']:.2f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
