#!/usr/bin/env python3
"""On the CPU machine: the finalists of the 64 v2 evaluation shapes, for the timing study.

Per shape: the tune-my-shapes shortlist (the selector's top 8, ``--shortlist``), the shape's
``--best`` fastest CUTLASS configurations of its latest dataset-v2 sweep (pass ``y`` where the
shape has one, else ``k``; by ms_median), and cuBLASLt (heuristic, algo0..7, added by the
device script). Writes ``--out`` (JSON: MxNxK -> configurations, shortlist ranks) and
``--kernels`` (the kernels to compile). Standard library only.

    python3 scripts/device/timing_finalists.py --dataset evaluation/data/h200/v2 \\
        --shortlist spaces/tune_shapes_eval.shortlist.csv --out spaces/timing_finalists.json \\
        --kernels spaces/timing_finalists.kernels.txt
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", type=Path, required=True)
    p.add_argument("--shortlist", type=Path, required=True)
    p.add_argument("--best", type=int, default=3)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--kernels", type=Path, required=True)
    args = p.parse_args()
    shortlist: dict[str, list[str]] = {}
    with args.shortlist.open() as handle:
        for row in sorted(csv.DictReader(handle), key=lambda r: int(r["rank"])):
            key = f"{row['M']}x{row['N']}x{row['K']}"
            shortlist.setdefault(key, []).append(row["config"])
    sweeps: dict[str, dict[str, list[tuple[float, str, str]]]] = {}
    for path in sorted(args.dataset.glob("rows_c*_eval.csv.gz")):
        with gzip.open(path, "rt") as handle:
            for row in csv.DictReader(handle):
                if (
                    row["pass"] not in ("k", "y")
                    or row["status"] != "ok"
                    or row["name"] == "cublas"
                ):
                    continue
                key = f"{row['M']}x{row['N']}x{row['K']}"
                sweeps.setdefault(key, {}).setdefault(row["pass"], []).append(
                    (float(row["ms_median"]), row["config"], row["name"])
                )
    out: dict[str, dict[str, list[str]]] = {}
    kernels: set[str] = set()
    for key, ranked in shortlist.items():
        passes = sweeps.get(key, {})
        sweep = passes.get("y") or passes.get("k") or []
        best = [c for _ms, c, _n in sorted(sweep)[: args.best]]
        out[key] = {"shortlist": ranked, "best": best}
        kernels.update(c.split(":")[0] for c in [*ranked, *best])
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    args.kernels.write_text("".join(f"{k}\n" for k in sorted(kernels)))
    print(f"{len(out)} shapes, {len(kernels)} kernels", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
