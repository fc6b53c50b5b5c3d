#!/usr/bin/env python3
"""On the GPU machine: time the finalists of each shape in fresh driver runs, per timing mode.

One *run* = every shape of ``--finalists`` once (shapes in an order drawn per run), one driver
process per shape, with the shape's configurations (its shortlist, its earlier best, and
cuBLASLt: ``cublas:heuristic`` and ``cublas:algo0..7``); the driver draws the list order per
process (``--order-seed``, recorded in every row) and times the first-drawn configuration a
second time at the last position (the position sentinel). Modes (``--modes``, comma
separated, each ``NAME=driver options``):

* ``g3``  CUDA graphs of 3 launches, 5 rounds (dataset v2's protocol)
* ``g0``  no graphs: 10 launches per sample behind the spin-held stream, 5 rounds
* ``g20`` CUDA graphs of 20 launches, 5 rounds
* ``r15`` CUDA graphs of 3 launches, 15 rounds
* ``g0r10`` no graphs: 10 launches per sample behind the spin-held stream, 10 rounds
* ``s3r2`` no graphs: 3 launches per sample, 2 rounds (a screen of many configurations)
* ``g2ms`` CUDA graphs of as many launches as a 2 ms sample takes (``--sample-ms 2``, driver v4),
  10 rounds

A finalists entry may hold ``extra``: more configurations of the shape (pinned cuBLASLt
configurations ``cublaslt:...``, a sample of cuBLASLt's configuration space), timed after the
shortlist in the same process.

Writes ``timing_rows_<tag>.csv.gz`` (one row per configuration and process, failures and the
sentinel's ``@last`` row included) and ``timing_rounds_<tag>.csv.gz`` under ``--out``, one gzip
member per shape, so a run stopped at ``--deadline-s`` keeps every finished shape. Standard
library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import subprocess
import sys
import time
from pathlib import Path

MODES = {
    "g3": ["--graph", "1", "--iters", "3", "--rounds", "5"],
    "g0": ["--graph", "0", "--iters", "10", "--rounds", "5"],
    "g20": ["--graph", "1", "--iters", "20", "--rounds", "5"],
    "r15": ["--graph", "1", "--iters", "3", "--rounds", "15"],
    "g0r10": ["--graph", "0", "--iters", "10", "--rounds", "10"],
    "s3r2": ["--graph", "0", "--iters", "3", "--rounds", "2"],
    "g2ms": ["--graph", "1", "--iters", "1", "--sample-ms", "2", "--rounds", "10"],
}


def configs_of(entry: dict[str, list[str]], algos: int) -> list[str]:
    cublas = ["cublas:heuristic", *(f"cublas:algo{i}" for i in range(algos))]
    extra = entry.get("extra", [])
    return list(dict.fromkeys([*entry["shortlist"], *entry.get("best", []), *cublas, *extra]))


def append(path: Path, rows: list[dict[str, str]], fields: list[str]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore")
    if not path.exists():
        writer.writeheader()
    writer.writerows(rows)
    with gzip.open(path, "at", encoding="utf-8") as handle:
        handle.write(buffer.getvalue())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", type=Path, required=True)
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument("--finalists", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--runs", required=True, help="comma separated RUN:MODE, e.g. a:g3,a:g0")
    p.add_argument("--deadline-s", type=float, default=480.0)
    p.add_argument("--cublas-lib", default="")
    p.add_argument("--heat-s", type=float, default=0.5)
    p.add_argument("--warmups", type=int, default=2)
    args = p.parse_args()
    started = time.monotonic()
    finalists = json.loads(args.finalists.read_text())
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path("/tmp/timing_runs")
    work.mkdir(exist_ok=True)
    for spec in args.runs.split(","):
        run, mode = spec.split(":")
        tag = f"{run}_{mode}"
        keys = sorted(finalists)
        random.Random(tag).shuffle(keys)
        t0 = time.monotonic()
        done = 0
        for key in keys:
            if time.monotonic() - started > args.deadline_s:
                print(f"{tag}: deadline after {done} shapes", flush=True)
                break
            shape = key.split("x")
            cfg = work / "configs.txt"
            cfg.write_text("\n".join(configs_of(finalists[key], 8)) + "\n")
            rounds_path = work / "rounds.csv"
            rounds_path.unlink(missing_ok=True)
            lib = ["--cublas-lib", args.cublas_lib] if args.cublas_lib else []
            cmd = [str(args.bench), "--lib-dir", str(args.build_dir), "--configs", str(cfg),
                   "--rounds-csv", str(rounds_path), "--warmups", str(args.warmups),
                   "--heat-s", str(args.heat_s), "--cublas-algos", "8", *MODES[mode],
                   *lib, *shape]  # fmt: skip
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                out, rc = proc.stdout, proc.returncode
            except subprocess.TimeoutExpired as exc:
                out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
                rc = -9
            lines = [ln for ln in out.splitlines() if ln.strip()]
            rows = list(csv.DictReader(lines)) if lines and lines[0].startswith("config,") else []
            extra = {"run": run, "mode": mode, "rc": str(rc)}
            for r in rows:
                r.update(extra)
            if rows:
                append(args.out / f"timing_rows_{tag}.csv.gz", rows,
                       ["run", "mode", "rc", *lines[0].split(",")])  # fmt: skip
            if rounds_path.exists():
                with rounds_path.open() as handle:
                    reader = csv.DictReader(handle)
                    header = list(reader.fieldnames or [])
                    rr = [r for r in reader if r.get("t_s")]
                for r in rr:
                    r.update(extra)
                if rr:
                    append(args.out / f"timing_rounds_{tag}.csv.gz", rr, ["run", "mode", *header])
            done += 1
            if rc != 0:
                print(f"{tag} {key}: rc={rc}, {len(rows)} rows", flush=True)
        print(f"{tag}: {done} shapes in {time.monotonic() - t0:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
