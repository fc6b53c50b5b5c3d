#!/usr/bin/env python3
"""Finalists of the cuBLASLt study: per v2 evaluation shape, the tune-my-shapes shortlist (the
top 8 CUTLASS kernels of ``spaces/timing_finalists.json``) and, as ``extra``, the pinned keys
(``cublaslt:id=..;...``) of cuBLASLt's heuristic candidates ``cublas:algo0..7`` as recorded in
a timing run of the same cuBLASLt version (their ``cublas_algo`` column). The GPU run adds a
sample of cuBLASLt's configuration space (``cublaslt_space.py``).

    python3 scripts/device/cublaslt_finalists.py \\
        --rows evaluation/data/h200/timing/timing_rows_a_g0.csv.gz \\
        --out spaces/cublaslt_finalists.json
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from pathlib import Path

FIELDS = ("id", "tile", "splitk", "reduction", "swizzle", "custom", "stages", "inner", "cluster")


def pinned_key(cublas_algo: str) -> str:
    fields = dict(part.split("=", 1) for part in cublas_algo.split(";") if "=" in part)
    if not all(fields.get(f, "").isdigit() for f in FIELDS):
        return ""
    return "cublaslt:" + ";".join(f"{f}={int(fields[f])}" for f in FIELDS)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--finalists", type=Path, default=Path("spaces/timing_finalists.json"))
    p.add_argument("--rows", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    base = json.loads(args.finalists.read_text())
    pinned: dict[str, dict[int, str]] = {}
    with gzip.open(args.rows, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            config = row["config"]
            if not config.startswith("cublas:algo") or "@" in config or row["status"] != "ok":
                continue
            key = pinned_key(row["cublas_algo"])
            if key:
                shape = f"{row['M']}x{row['N']}x{row['K']}"
                pinned.setdefault(shape, {})[int(config[len("cublas:algo") :])] = key
    out = {
        shape: {
            "shortlist": entry["shortlist"][:8],
            "extra": list(dict.fromkeys(v for _, v in sorted(pinned.get(shape, {}).items()))),
        }
        for shape, entry in base.items()
    }
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} shapes, {sum(len(e['extra']) for e in out.values())} pinned keys")
    return 0


if __name__ == "__main__":
    sys.exit(main())
