#!/usr/bin/env python3
"""Benchmark (not a test): what building variants ahead of measurement buys, and what it costs.

N variants of one CPU bench, each built by a command that burns B seconds of CPU (a compile
stand-in: fixed CPU work, then a wrapper around the demo's reduce executable written into
``{exe}``) and each measured ``repeats`` times in a row (reduce_benchmark built with
REDUCE_SAMPLE_S=0.1: 5 timings of >= 100 ms of CPU each, their median). Each isolation mode
runs on a fresh build folder, through ``benchspace tune``:

1. serial: ``--build-isolation pause``, builds stopped (SIGSTOP) while a variant is measured:
   each build runs only between measurements, i.e. build-then-run, one after the other;
2. pipelined: ``--build-isolation pin``, builds on cores of their own (the next variants build
   while the current one is measured on the first core);
3. unisolated: ``"overlap": true`` (what a GPU bench does), builds on any core, also the
   measuring one, with --build-jobs = cores: what the isolation protects the timings from.

Walls: pipelined against the target <= 1.15 x max(N*B/J, N*R) + B, and against serial.

Values: every variant is the same executable, so differences between its runs are noise or
the builds. A variant's runs follow each other, and the build queue (2J ahead) starts the next
build as a variant's measurement begins, so with B shorter than R a variant's first runs
overlap a build and its last ones do not (the build command and the wrapper log their wall
intervals, so each timed run is known to have overlapped a build or not). Per variant, the
log ratio of the median of its runs during builds to the median of its quiet runs, seconds
apart, is the build effect (drift between processes far apart in time cancels). The control
is the same split of the same positions in a quiet top-up (``--repeats 2r``: every variant
built, no build running), and the build effect net of it (per variant, effect - control:
what the run's position alone does cancels too). A TOST on the mean net effect: equal when its
90 % interval lies within +/- the margin (``--margin``, 2 %); the control's own interval is
the resolution the machine allows. ``--cpus K`` confines the whole run to K cores.
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


def _mode(folder: Path, space: Path, r: int, *args: str, top_up: bool = True) -> dict[str, Any]:
    """One mode: the sweep (builds running), then a quiet top-up of r repeats each."""
    build = folder / "build"
    walls = []
    for k in (1, 2) if top_up else (1,):
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
    overlapped: dict[int, list[bool]] = {}
    for t0, t1, v in _intervals(folder / "runs.log")[:sweep_runs]:  # in the order they ran
        overlapped.setdefault(v, []).append(any(b0 < t1 and t0 < b1 for b0, b1, _ in built))
    sweep: dict[int, list[tuple[float, bool]]] = {}
    quiet: dict[int, list[float]] = {}
    by_variant: dict[int, list[Any]] = {}
    for m in attempts:
        by_variant.setdefault(int(m.params["V"]), []).append(m)  # type: ignore[arg-type]
    for v, ms in sorted(by_variant.items()):
        ms.sort(key=lambda m: (m.started_at, m.repeat))
        first = [float(m.value) for m in ms if m.repeat < r]
        flags = overlapped.get(v, [])
        if len(flags) == len(first):
            sweep[v] = list(zip(first, flags, strict=True))
        quiet[v] = [float(m.value) for m in ms if m.repeat >= r]
    return {
        "wall": walls[0],
        "build_s": statistics.fmean(a.seconds for a in builds),
        "run_s": sum(m.duration_s for m in attempts if m.repeat < r) / len(by_variant),
        "builds": len(builds),
        "sweep_runs": sweep,
        "quiet_runs": quiet,
    }


def _tost(logs: list[float]) -> tuple[float, float, float]:
    """Mean log ratio as a ratio, and its 90 % interval (the TOST's, alpha 0.05 each side)."""
    mean = statistics.fmean(logs)
    half = math.inf
    if len(logs) > 1:
        half = stats.t.ppf(0.95, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def _split(values: list[float], busy: list[bool]) -> float | None:
    """log(median of the busy positions / median of the others), None without both."""
    during = [x for x, b in zip(values, busy, strict=False) if b]
    rest = [x for x, b in zip(values, busy, strict=False) if not b]
    if not during or not rest:
        return None
    return math.log(statistics.median(during) / statistics.median(rest))


def effects(mode: dict[str, Any]) -> dict[str, list[float]]:
    """Per variant with runs both during builds and not: the build effect (log ratio of its
    runs during builds to its quiet runs, in the sweep), the control (the same positions of
    the quiet top-up) and the net effect (effect - control)."""
    out: dict[str, list[float]] = {"effect": [], "control": [], "net": []}
    for v, runs in mode["sweep_runs"].items():
        values, busy = [x for x, _ in runs], [b for _, b in runs]
        effect = _split(values, busy)
        control = _split(mode["quiet_runs"].get(v, []), busy)
        if effect is None or control is None:
            continue
        out["effect"].append(effect)
        out["control"].append(control)
        out["net"].append(effect - control)
    return out


def _line(name: str, logs: list[float], margin: float | None) -> str:
    if len(logs) < 2:
        return f"{name:<30}{len(logs):>3}  too few variants with runs both during builds and not"
    geo, low, high = _tost(logs)
    verdict = ""
    if margin is not None:
        equal = 1 - margin <= low and high <= 1 + margin
        verdict = f"equal within +/-{margin:.0%}" if equal else f"NOT shown within +/-{margin:.0%}"
    return f"{name:<30}{len(logs):>3} {geo:>8.4f} [{low:.4f}, {high:.4f}]  {verdict}"


def _measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run the three modes; a record of what was measured (JSON-ready)."""
    if args.cpus:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: args.cpus])
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
            if name == "unisolated" and args.skip_unisolated:
                continue
            sub = folder / name
            sub.mkdir()
            space = _space(sub, args, reduce_exe, overlap)
            modes[name] = _mode(sub, space, args.repeats, *more, top_up=name != "serial")
    return {
        "variants": args.variants,
        "build_jobs": j,
        "repeats": args.repeats,
        "margin": args.margin,
        "cores": cores,
        "host": platform.node(),
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "modes": modes,
    }


def _restore(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The modes of a record read back from JSON (variant keys as integers again)."""
    modes = {}
    for name in record["modes"]:
        mode = record["modes"][name]
        modes[name] = {
            **mode,
            "sweep_runs": {
                int(v): [(float(x), bool(b)) for x, b in runs]
                for v, runs in mode["sweep_runs"].items()
            },
            "quiet_runs": {int(v): [float(x) for x in xs] for v, xs in mode["quiet_runs"].items()},
        }
    return modes


def _render(record: dict[str, Any]) -> None:
    """Print the figures of a record (measured now or read back)."""
    modes = _restore(record)
    n, j, r, cores = record["variants"], record["build_jobs"], record["repeats"], record["cores"]
    margin = record["margin"] / 100.0
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
        "values: cpu_time_ns of reduce n=4096, the same executable in every variant; per "
        "variant, its runs during a build against its quiet runs of the same sweep"
    )
    shown = [name for name in ("pipelined", "unisolated") if name in modes]
    for name in shown:
        runs = [b for rs in modes[name]["sweep_runs"].values() for _, b in rs]
        print(f"  {name}: {sum(runs)} of the sweep's {len(runs)} timed runs overlapped a build; "
              f"{modes[name]['builds']} builds in all ({n} variants)")  # fmt: skip
    print(f"{'':<30}{'n':>3} {'geomean':>8} {'90 % interval':<18}  verdict")
    for name in shown:
        e = effects(modes[name])
        print(_line(f"{name}: during / quiet", e["effect"], margin))
        print(_line("  control (top-up, no build)", e["control"], None))
        print(_line("  net (effect - control)", e["net"], margin))
    print("n: variants with runs both during a build and not; geomean and TOST 90 % interval "
          "of the per-variant ratio of medians; the control splits the quiet top-up's runs "
          "at the same positions; net: effect over control, equal when its interval lies "
          "within the margin (a position effect would show in the control)")  # fmt: skip


def main() -> int:
    """Measure (or read a record back with --from) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=12, help="N (default 12)")
    parser.add_argument("--build-s", type=float, default=1.5, help="B: CPU s per build (1.5)")
    parser.add_argument("--repeats", type=int, default=4, help="r: runs per variant and phase")
    parser.add_argument("--margin", type=float, default=2.0, help="equivalence margin, %% (2)")
    parser.add_argument("--cpus", type=int, help="confine the run to the first K cores")
    parser.add_argument("--build-jobs", type=int, default=1, help="J for the pipelined sweep")
    parser.add_argument(
        "--skip-unisolated",
        action="store_true",
        help="leave out the unisolated sweep (what isolation protects against)",
    )
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
