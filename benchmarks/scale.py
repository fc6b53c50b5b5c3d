"""How benchspace scales with the number of configurations: 10^4, 10^5, 10^6.

Builds a batched no-op benchmark (a small C program: one process prints one CSV row for each
configuration it is given, a deterministic value per case and configuration) and a space
whose every case has its own grid (the case that made planning quadratic), then times each
stage through the real CLI, one process per stage, and reads each stage's peak memory from
the kernel (``wait4``):

    plan        benchspace tune --plan (load, rules, expand, constrain; runs nothing)
    sweep       benchspace tune (fresh store)
    re-run      benchspace tune again on the same store (nothing changed: runs nothing)
    sensitivity benchspace sensitivity --format json
    generate    benchspace generate (into the space's header path: the incumbents of prune)
    prune       benchspace sensitivity --write-pruned

It prints, per stage and size, wall and CPU seconds and peak RSS, the growth ratio per 10x
(of CPU time, which other processes on a shared machine do not inflate), and the store's
largest write-ahead log seen during the sweep (sampled every 50 ms). Each stage runs from the
size's working directory, the project its space and header live in. Exit status 1 if a
growth ratio (of CPU time, or of peak memory above 100 MB) exceeds --max-growth (12 by
default), a stage fails, or a stage at 10^6 configurations or more peaks above --max-rss-mb
(1024 by default: 10^6 in 1 GB). Below 10^6 the last line says that the budget was not
measured.

    python benchmarks/scale.py                 # 10^4, 10^5, 10^6
    python benchmarks/scale.py --sizes 1e4 1e5 --work /tmp/scale
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

NOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>
/* scale_noop CASE CFG...: one CSV row per CFG; the value is a deterministic hash. */
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: scale_noop CASE CFG...\n"); return 2; }
    unsigned long c = strtoul(argv[1], NULL, 10);
    printf("name,time\n");
    for (int i = 2; i < argc; ++i) {
        unsigned long k = strtoul(argv[i], NULL, 10);
        unsigned long h = (c * 2654435761UL) ^ (k * 40503UL);
        h ^= h >> 13; h *= 0x5bd1e995UL; h ^= h >> 15;
        double v = 1.0 + (double)(k % 97) / 97.0 + (double)(h % 1000) / 100000.0;
        printf("%s,%.6f\n", argv[i], v);
    }
    return 0;
}
"""

PER_CASE = 1000
REPO = Path(__file__).resolve().parents[1]
STAGES = ("plan", "sweep", "re-run", "sensitivity", "generate", "prune")


@dataclass(frozen=True, kw_only=True)
class StageRun:
    """One stage at one size."""

    stage: str
    size: int
    seconds: float
    cpu_seconds: float
    """User + system time of the stage's process and the processes it waited for: what the
    stage cost, unlike wall time, whatever else shares the machine."""
    peak_rss_mb: float
    exit_code: int


def build_noop(work: Path) -> Path:
    """Compile the batched no-op benchmark with the system C compiler."""
    src = work / "scale_noop.c"
    exe = work / "scale_noop"
    src.write_text(NOOP_C, encoding="utf-8")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("scale: no C compiler (cc) found; apt-get install gcc")
    subprocess.run([cc, "-O2", "-o", str(exe), str(src)], check=True)
    return exe


def write_space(path: Path, exe: Path, size: int) -> None:
    """A space of ``size`` configurations: size / 1000 cases, each with its own 1000-value grid."""
    cases = []
    for i in range(size // PER_CASE):
        base = (i * 7) % 997
        grid = [base + j for j in range(PER_CASE)]
        cases.append({"fixed": {"n": 16 * (i + 1)}, "tune": {"cfg": grid}})
    space = {
        "format": 1,
        "version": 1,
        "_comment": "benchmarks/scale.py: a batched no-op benchmark, every case its own grid",
        "spaces": [
            {
                "bench": "noop",
                "exe": str(exe),
                "reader": "csv",
                "metric": "time",
                "direction": "min",
                "arg_spec": ["n", "cfg"],
                "batch": {"param": "cfg", "size": PER_CASE},
                "repeats": 1,
                "timeout_s": 60,
                "cases": cases,
            }
        ],
        "header": {
            "path": str(path.with_suffix(".hh")),
            "namespace": "scale::tuning",
            "env_prefix": "SCALE_TUNE_",
            "bucket_key": "n",
            "constants": [
                {
                    "name": "NOOP_CFG",
                    "type": "int32_t",
                    "sources": [{"bench": "noop", "param": "cfg"}],
                    "fallback": 1,
                }
            ],
        },
    }
    path.write_text(json.dumps(space), encoding="utf-8")


def run_stage(
    argv: list[str], *, cwd: Path, watch_wal: Path | None = None
) -> tuple[float, float, float, int, int]:
    """Run one command; (seconds, CPU seconds, peak RSS in MB, exit code, largest WAL bytes
    seen)."""
    peak_wal = 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal peak_wal
        while not stop.is_set():
            if watch_wal is not None and watch_wal.exists():
                peak_wal = max(peak_wal, watch_wal.stat().st_size)
            stop.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    t0 = time.perf_counter()
    # Run from the working directory (the project the space's header path lies in), with
    # this checkout's benchspace importable.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    stop.set()
    watcher.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0,):
        tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        print(f"  ! {' '.join(argv[2:5])}: exit {proc.returncode}: {' | '.join(tail)}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024.0, proc.returncode, peak_wal


def measure(size: int, work: Path, exe: Path) -> tuple[list[StageRun], int]:
    """Every stage at one size; also the largest WAL seen during the sweep."""
    here = work / f"n{size}"
    if here.exists():
        shutil.rmtree(here)
    here.mkdir(parents=True)
    space = here / "space.json"
    write_space(space, exe, size)
    profile = here / "profile.json"
    store = here / "profile.store.sqlite"
    cli = [sys.executable, "-m", "benchspace.harness.cli"]
    # The space and its header live in the working directory: it is the project root.
    tune = [*cli, "tune", "--space", str(space), "--root", str(here)]
    commands = {
        "plan": [*tune, "--plan", "--max-invocations", "0"],
        "sweep": [*tune, "--out", str(profile), "--quiet", "--max-invocations", "0"],
        "re-run": [*tune, "--out", str(profile), "--quiet", "--max-invocations", "0"],
        "sensitivity": [*cli, "sensitivity", str(profile), "--format", "json"],
        "prune": [
            *cli,
            "sensitivity",
            str(profile),
            "--write-pruned",
            str(here / "pruned.json"),
        ],
        "generate": [
            *cli,
            "generate",
            "--profile",
            str(profile),
            "--space",
            str(space),
            "--out",
            str(space.with_suffix(".hh")),
        ],
    }
    runs: list[StageRun] = []
    wal_peak = 0
    for stage in STAGES:
        wal = Path(str(store) + "-wal") if stage == "sweep" else None
        seconds, cpu, rss, code, peak = run_stage(commands[stage], cwd=here, watch_wal=wal)
        wal_peak = max(wal_peak, peak)
        runs.append(
            StageRun(
                stage=stage,
                size=size,
                seconds=seconds,
                cpu_seconds=cpu,
                peak_rss_mb=rss,
                exit_code=code,
            )
        )
        print(
            f"  {size:>9,} {stage:<12} {seconds:8.2f} s (cpu {cpu:7.2f} s) {rss:8.1f} MB"
            f"  exit {code}"
        )
    return runs, wal_peak


def render(
    runs: list[StageRun],
    sizes: list[int],
    wal: dict[int, int],
    limit: float,
    max_rss_mb: float = 1024.0,
) -> bool:
    """Print the table; True when every stage succeeded and grew at most ``limit`` per 10x.

    Growth is judged on CPU time (the machine may be shared: wall time then says more about
    the neighbours than about benchspace); both are printed."""
    ok = True
    head = (
        "stage        "
        + "".join(f"{f'{s:,} wall / cpu':>24}" for s in sizes)
        + "   growth per 10x (cpu; memory)"
    )
    print()
    print(head)
    for stage in STAGES:
        cells = {r.size: r for r in runs if r.stage == stage}
        line = f"{stage:<12} " + "".join(
            f"{cells[s].seconds:>13.2f} /{cells[s].cpu_seconds:>7.2f} s"
            if s in cells
            else f"{'-':>24}"
            for s in sizes
        )
        growth = []
        for a, b in itertools.pairwise(sizes):
            if a in cells and b in cells:
                factor = (b / a) / 10.0
                t = cells[b].cpu_seconds / max(cells[a].cpu_seconds, 1e-3) / factor
                m = cells[b].peak_rss_mb / max(cells[a].peak_rss_mb, 1e-3) / factor
                growth.append(f"{t:.1f}x; {m:.1f}x")
                # Time near the floor of process start-up says nothing about growth, nor does
                # memory near the interpreter's own.
                if t > limit and cells[b].cpu_seconds > 1.0:
                    ok = False
                if m > limit and cells[b].peak_rss_mb > 100.0:
                    ok = False
        line += "   " + ", ".join(growth)
        print(line)
        ok = ok and all(r.exit_code == 0 for r in cells.values())
    print(
        "peak RSS MB  "
        + "".join(f"{max(r.peak_rss_mb for r in runs if r.size == s):>24.1f}" for s in sizes)
    )
    print("WAL peak MB  " + "".join(f"{wal[s] / 2**20:>24.1f}" for s in sizes))
    print(
        "KB / config  "
        + "".join(
            f"{max(r.peak_rss_mb for r in runs if r.size == s) * 1024 / s:>24.2f}" for s in sizes
        )
    )
    for r in runs:
        if r.size >= 1_000_000 and r.peak_rss_mb > max_rss_mb:
            print(f"{r.stage} at {r.size:,}: peak RSS {r.peak_rss_mb:.0f} MB > {max_rss_mb:g} MB")
            ok = False
    return ok


def main(argv: list[str] | None = None) -> int:
    """Run the scale benchmark; exit 1 if a stage fails or grows faster than allowed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    parser.add_argument("--work", type=Path, help="working directory (default: a temporary one)")
    parser.add_argument("--max-growth", type=float, default=12.0)
    parser.add_argument("--max-rss-mb", type=float, default=1024.0, help="at 10^6 and more")
    args = parser.parse_args(argv)
    sizes = sorted({int(s) // PER_CASE * PER_CASE for s in args.sizes})
    work = args.work or Path(tempfile.mkdtemp(prefix="benchspace-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    exe = build_noop(work)
    runs: list[StageRun] = []
    wal: dict[int, int] = {}
    for size in sizes:
        print(f"{size:,} configurations ({size // PER_CASE} cases x {PER_CASE}):")
        got, wal[size] = measure(size, work, exe)
        runs.extend(got)
    ok = render(runs, sizes, wal, args.max_growth, args.max_rss_mb)
    print(verdict(ok, sizes, args.max_growth, args.max_rss_mb))
    return 0 if ok else 1


def verdict(ok: bool, sizes: list[int], max_growth: float, max_rss_mb: float) -> str:
    """The last line: what was checked, and whether the memory budget was (it applies at 10^6
    configurations and more)."""
    if not ok:
        return (
            f"FAILED: a stage failed, grew more than {max_growth}x per 10x (cpu or memory) or "
            f"peaked above {max_rss_mb:g} MB at 10^6"
        )
    if max(sizes) < 1_000_000:
        return (
            f"ok at these sizes (growth <= {max_growth}x per 10x); the {max_rss_mb:g} MB budget "
            f"at 10^6 was not measured (largest size {max(sizes):,})"
        )
    return f"ok: growth <= {max_growth}x per 10x, every stage at 10^6 <= {max_rss_mb:g} MB"


if __name__ == "__main__":
    sys.exit(main())
