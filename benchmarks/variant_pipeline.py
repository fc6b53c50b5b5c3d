#!/usr/bin/env python3
"""Benchmark (not a test): what building variants ahead of measurement buys, and what it costs.

N variants of one CPU bench, each built by a command that burns B seconds of CPU (a compile
stand-in: fixed CPU work, then a wrapper around the demo's reduce executable written into
``{exe}``) and each measured ``repeats`` times (reduce_benchmark built with
REDUCE_SAMPLE_S=0.1: 5 timings of >= 100 ms of CPU each, their median). Each isolation mode
runs on a fresh build folder, through ``benchspace tune``:

1. serial: ``--build-isolation pause``, builds stopped (SIGSTOP) while a variant is measured:
   each build runs only between measurements, i.e. build-then-run, one after the other;
2. pipelined: ``--build-isolation pin``, builds on cores of their own (the next variants build
   while the current one is measured on the first core);
3. unisolated: ``"overlap": true`` (what a GPU bench does), builds on any core, also the
   measuring one, with --build-jobs = cores: what the isolation protects the timings from.

Walls: pipelined against the target <= 1.15 x max(N*B/J, N*R) + B, and against serial.

Values: every variant is the same executable, so differences between them are noise. After
each mode's sweep (repeats 0..r-1, timed while builds ran) the same command with --repeats 2r
and then 3r tops every variant up with r more repeats each, with every variant built: two
quiet references Q1 and Q2, no build running. The build command and the wrapper log their
wall intervals, so each of the sweep's timed runs is known to have overlapped a build or not.
Per variant, the ratio of medians sweep/Q1 is set against the noise floor, the largest
|Q2/Q1 - 1| over the variants (two quiet sweeps disagree that much); the verdict is a TOST on
the mean log ratio (90 % interval inside +/- the floor) and a count of variants inside it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.cli import main as benchspace  # noqa: E402
from benchspace.harness.store import Store  # noqa: E402

BURN = """
import os, sys, time
seconds, real, exe, runlog, buildlog, define = sys.argv[1:7]
w0 = time.time()
t0 = time.process_time()
x = 0
while time.process_time() - t0 < float(seconds):
    for _ in range(10000):
        x += 1
with open(exe, "w") as fh:  # a wrapper: logs the timed run's wall interval, then its value
    fh.write(
        "#!/bin/sh\\n"
        't0=$(date +%s.%N)\\n'
        f'"{real}" "$@"\\n'
        "rc=$?\\n"
        f'echo "$t0 $(date +%s.%N) {define}" >> "{runlog}"\\n'
        "exit $rc\\n"
        f"# {define}\\n"  # each variant its own executable (and sha256)
    )
os.chmod(exe, 0o755)
with open(buildlog, "a") as fh:
    fh.write(f"{w0} {time.time()} {define}\\n")
"""


def _space(folder: Path, args: argparse.Namespace, reduce_exe: Path, overlap: bool) -> Path:
    burn = folder / "burn.py"
    burn.write_text(BURN)
    command = [sys.executable, str(burn), str(args.build_s), str(reduce_exe), "{exe}",
               str(folder / "runs.log"), str(folder / "builds.log"), "{defines}"]  # fmt: skip
    space = {
        "format": 1,
        "spaces": [
            {
                "bench": "reduce",
                "exe": "reduce_benchmark",
                "reader": "csv",
                "metric": "cpu_time_ns",
                "row": "BM_reduce/",
                "arg_spec": ["n"],
                "compile": ["V"],
                "build": {"command": command, "timeout_s": 600, "overlap": overlap},
                "cases": [{"fixed": {"n": 4096}, "tune": {"V": list(range(args.variants))}}],
            }
        ],
    }
    path = folder / "space.json"
    path.write_text(json.dumps(space))
    return path


def _intervals(path: Path) -> list[tuple[float, float, int]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text().splitlines():
        t0, t1, define = line.split()
        out.append((float(t0), float(t1), int(define.partition("=")[2])))
    return out


def _mode(folder: Path, space: Path, r: int, *args: str) -> dict[str, Any]:
    """One mode: the sweep (builds running), then two quiet top-ups of r repeats each."""
    build = folder / "build"
    walls = []
    for k in (1, 2, 3):
        t0 = time.monotonic()
        with contextlib.redirect_stdout(io.StringIO()):
            code = benchspace(["tune", "--space", str(space), "--build-dir", str(build),
                               "--quiet", "--repeats", str(k * r), *args])  # fmt: skip
        walls.append(time.monotonic() - t0)
        if code != 0:
            raise SystemExit(f"tune exited {code}")
        if k == 1:
            sweep_runs = len(_intervals(folder / "runs.log"))
    with Store(build / "tuning" / "profile.store.sqlite") as store:
        builds = store.builds()
        attempts = [m for m in store.attempts() if m.value is not None]
    built = _intervals(folder / "builds.log")
    runs = _intervals(folder / "runs.log")[:sweep_runs]
    overlapped: dict[int, list[bool]] = {}
    for t0, t1, v in runs:  # in the order the sweep ran them
        busy = any(b0 < t1 and t0 < b1 for b0, b1, _ in built)
        overlapped.setdefault(v, []).append(busy)
    phases: list[dict[int, list[float]]] = [{}, {}, {}]
    during: dict[int, list[float]] = {}
    by_variant: dict[int, list[Any]] = {}
    for m in attempts:
        by_variant.setdefault(int(m.params["V"]), []).append(m)  # type: ignore[arg-type]
    for v, ms in by_variant.items():
        ms.sort(key=lambda m: (m.started_at, m.repeat))
        first = [m for m in ms if m.repeat < r]
        for m in ms:
            phases[min(m.repeat // r, 2)].setdefault(v, []).append(float(m.value))  # type: ignore[arg-type]
        flags = overlapped.get(v, [])
        if len(flags) == len(first):
            during[v] = [float(m.value) for m, busy in zip(first, flags, strict=True) if busy]  # type: ignore[arg-type]
    medians = [{v: statistics.median(xs) for v, xs in sorted(p.items())} for p in phases]
    return {
        "wall": walls[0],
        "build_s": statistics.fmean(a.seconds for a in builds),
        "run_s": sum(m.duration_s for m in attempts if m.repeat < r) / len(by_variant),
        "builds": len(builds),
        "sweep": medians[0],
        "q1": medians[1],
        "q2": medians[2],
        "during": {v: statistics.median(xs) for v, xs in during.items() if xs},
        "overlap": (sum(sum(f) for f in overlapped.values()), len(runs)),
    }


def _tost(logs: list[float]) -> tuple[float, float, float]:
    """Mean log ratio as a ratio, and its 90 % interval (the TOST's, alpha 0.05 each side)."""
    mean = statistics.fmean(logs)
    half = 0.0
    if len(logs) > 1:
        half = stats.t.ppf(0.95, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def _floor(modes: dict[str, dict[str, Any]]) -> float:
    """The largest |log ratio| between two sets of timings with no build running: Q2/Q1 of
    every mode, and the serial sweep (builds paused while a run is timed) against its Q1."""
    pairs = [(m["q2"], m["q1"]) for m in modes.values()] + [(modes["serial"]["sweep"],
             modes["serial"]["q1"])]  # fmt: skip
    return max(abs(math.log(a[v] / b[v])) for a, b in pairs for v in b if v in a)


def _equality(name: str, mode: dict[str, Any], which: str, floor: float) -> str:
    q1, test = mode["q1"], mode[which]
    common = [v for v in test if v in q1]
    if not common:
        return f"{name:<26}no timed run overlapped a build"
    logs = [math.log(test[v] / q1[v]) for v in common]
    geo, low, high = _tost(logs)
    inside = sum(abs(x) <= floor for x in logs)
    equal = math.exp(-floor) <= low and high <= math.exp(floor)
    worst = math.exp(max(logs, key=abs))
    verdict = "equal within noise" if equal else "NOT shown equal"
    return (
        f"{name:<26}{math.exp(floor) - 1:>7.2%} {geo:>7.3f} [{low:.3f}, {high:.3f}] "
        f"{worst:>6.3f} {inside:>2}/{len(logs)}  {verdict}"
    )


def _measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run the three modes; a record of what was measured (JSON-ready)."""
    j = args.build_jobs
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="benchspace-pipeline-") as tmp:
        folder = Path(tmp)
        reduce_exe = folder / "reduce_benchmark"
        subprocess.run(
            ["g++", "-O2", "-std=c++17", "-DREDUCE_LANES=1", "-DREDUCE_SAMPLE_S=0.1", "-o",
             str(reduce_exe), str(ROOT / "benchmarks/demo/variants/reduce_benchmark.cc")],
            check=True,
        )  # fmt: skip
        modes = {}
        for name, overlap, more in (
            ("serial", False, ("--build-isolation", "pause")),
            ("pipelined", False, ("--build-isolation", "pin", "--build-jobs", str(j))),
            ("unisolated", True, ("--build-jobs", str(cores))),
        ):
            sub = folder / name
            sub.mkdir()
            modes[name] = _mode(sub, _space(sub, args, reduce_exe, overlap), args.repeats, *more)
    return {
        "variants": args.variants,
        "build_jobs": j,
        "repeats": args.repeats,
        "cores": cores,
        "host": platform.node(),
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "modes": modes,
    }


def _keyed(medians: dict[Any, float]) -> dict[int, float]:
    return {int(v): float(x) for v, x in medians.items()}


def _restore(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The modes of a record read back from JSON (variant keys as integers again)."""
    modes = {}
    for name in ("serial", "pipelined", "unisolated"):
        mode = record["modes"][name]
        modes[name] = {
            **mode,
            **{k: _keyed(mode[k]) for k in ("sweep", "q1", "q2", "during")},
            "overlap": tuple(mode["overlap"]),
        }
    return modes


def _render(record: dict[str, Any]) -> None:
    """Print the figures of a record (measured now or read back)."""
    modes = _restore(record)
    n, j, r, cores = record["variants"], record["build_jobs"], record["repeats"], record["cores"]
    serial, piped = modes["serial"], modes["pipelined"]
    build_s, run_s = serial["build_s"], serial["run_s"]
    bound = 1.15 * max(n * build_s / j, n * run_s) + build_s
    print(f"N={n} variants, J={j}, B={build_s:.2f} s per build, R={run_s:.2f} s per variant "
          f"({r} runs), {cores} cores")  # fmt: skip
    print(f"{'sweep':<34}{'wall s':>8}{'vs serial':>11}")
    print(f"{'serial (build, then run)':<34}{serial['wall']:>8.2f}{1.0:>10.2f}x")
    ratio = piped["wall"] / serial["wall"]
    print(f"{'pipelined (builds pinned apart)':<34}{piped['wall']:>8.2f}{ratio:>10.2f}x")
    verdict = "met" if piped["wall"] <= bound else "MISSED"
    print(f"target: pipelined <= 1.15 x max(N*B/J, N*R) + B = {bound:.2f} s: {verdict}")
    print(
        "values: cpu_time_ns of reduce n=4096, the same executable in every variant; per mode "
        f"the sweep's medians against Q1's (r={r} more runs each, no build running)"
    )
    for name, mode in modes.items():
        busy, total = mode["overlap"]
        print(f"  {name}: {busy} of the sweep's {total} timed runs overlapped a build; "
              f"{mode['builds']} builds in all ({n} variants)")  # fmt: skip
    print(f"{'':<26}{'floor':>7} {'geomean':>7} {'90 % interval':<16} {'worst':>6} inside  verdict")
    floor = _floor(modes)
    for name, mode in modes.items():
        if name != "serial":
            print(_equality(f"{name}, all runs", mode, "sweep", floor))
            print(_equality(f"{name}, during builds", mode, "during", floor))
    print("floor: the largest per-variant |ratio - 1| between timings with no build running "
          "(Q2/Q1 of every mode, and the serial sweep/its Q1); geomean and its TOST 90 % "
          "interval: sweep/Q1; equal when the interval lies within +/- the floor")  # fmt: skip


def main() -> int:
    """Measure (or read a record back with --from) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=6, help="N (default 6)")
    parser.add_argument("--build-s", type=float, default=3.0, help="B: CPU s per build (3.0)")
    parser.add_argument("--repeats", type=int, default=3, help="r: runs per variant and phase")
    parser.add_argument("--build-jobs", type=int, default=1, help="J for the pipelined sweep")
    parser.add_argument("--json", type=Path, help="also write the measured record here")
    parser.add_argument("--from", dest="source", type=Path, help="print a recorded run instead")
    args = parser.parse_args()
    if args.source is not None:
        record = json.loads(args.source.read_text())
        load = f"{record['load_before']:.2f} before the run, {record['load_after']:.2f} after"
        print(f"recorded on {record['host']} ({record['cores']} cores), load {load}")
        _render(record)
        return 0
    if shutil.which("g++") is None or len(os.sched_getaffinity(0)) < 2:
        print("variant_pipeline: needs g++ and at least 2 cores", file=sys.stderr)
        return 1
    record = _measure(args)
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    _render(record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
