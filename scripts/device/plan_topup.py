#!/usr/bin/env python3
"""On the CPU machine: what a top-up of dataset v2's evaluation shapes must time.

Writes JSON ``{MxNxK: {"measured": [...], "top": [...]}}`` for ``measure_passes.py --topup``: per
evaluation shape, the kernels its latest ``x`` pass (and any ``y`` pass) measured and its
``--top`` fastest of them at default knobs (the anchors timed again beside the new kernels).

    python3 scripts/device/plan_topup.py evaluation/data/h200/v2 --out .devcarry/topup.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.dataset_runs import per_config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    table = per_config(load_dataset(args.dataset).rounds)
    ev = table[(table["split"] == "eval") & table["pass"].isin(["x", "y"]) & ~table["cublas"]]
    plan: dict[str, dict[str, list[str]]] = {}
    for (m, n, k), frame in ev.groupby(["M", "N", "K"]):
        x = frame[frame["pass"] == "x"]
        latest = frame[(frame["pass"] == "y") | (frame["call"] == x["call"].max())]
        best = latest[latest["default_knobs"]].groupby("kernel")["ms"].min().sort_values()
        plan[f"{m}x{n}x{k}"] = {
            "measured": sorted(set(latest["kernel"])),
            "top": list(best.index[: args.top]),
        }
    args.out.write_text(json.dumps(plan, indent=1, sort_keys=True) + "\n")
    sizes = {len(v["measured"]) for v in plan.values()}
    print(f"{args.out}: {len(plan)} shapes, {sorted(sizes)} kernels measured each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
