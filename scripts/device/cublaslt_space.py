#!/usr/bin/env python3
"""On the GPU machine: cuBLASLt's configuration space per shape, and finalists that hold a
sample of it.

For every shape of ``--finalists``, ``cutlass_bench --cublas-space`` lists the configurations
near the heuristic (each of its candidates with one attribute changed) and a seeded random
draw over every algorithm id that ``cublasLtMatmulAlgoCheck`` accepts; ``--sample`` of them
(seeded by the shape, none equal to a heuristic candidate's pinned key) join the shape's
``extra`` configurations. Writes ``--out`` (the finalists with ``extra``),
``space_counts.csv`` (shape, accepted, checked) and ``space.csv.gz`` (every accepted
configuration) beside it. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", type=Path, required=True)
    p.add_argument("--finalists", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--sample", type=int, default=8)
    p.add_argument("--tries", type=int, default=4000)
    p.add_argument("--cublas-lib", default="")
    args = p.parse_args()
    finalists = json.loads(args.finalists.read_text())
    counts: list[dict[str, str]] = []
    accepted_rows: list[tuple[str, str]] = []
    lib = ["--cublas-lib", args.cublas_lib] if args.cublas_lib else []
    for key in sorted(finalists):
        cmd = [str(args.bench), "--cublas-space", "--cublas-space-tries", str(args.tries),
               "--order-seed", "1", *lib, *key.split("x")]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        space = [ln for ln in proc.stdout.splitlines() if ln.startswith("cublaslt:")]
        found = re.search(r"(\d+) of (\d+) configurations accepted", proc.stderr)
        checked = found.group(2) if found else ""
        counts.append(
            {
                "shape": key,
                "accepted": str(len(space)),
                "checked": checked,
                "rc": str(proc.returncode),
            }
        )
        accepted_rows += [(key, text) for text in space]
        entry = finalists[key]
        known = set(entry.get("extra", []))
        pool = [text for text in space if text not in known]
        pick = random.Random(key).sample(pool, min(args.sample, len(pool)))
        entry["extra"] = [*entry.get("extra", []), *pick]
        print(f"{key}: {len(space)} accepted of {counts[-1]['checked']}", flush=True)
    args.out.write_text(json.dumps(finalists, indent=1, sort_keys=True) + "\n")
    with (args.out.parent / "space_counts.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["shape", "accepted", "checked", "rc"])
        writer.writeheader()
        writer.writerows(counts)
    with gzip.open(args.out.parent / "space.csv.gz", "wt", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["shape", "config"])
        out.writerows(accepted_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
