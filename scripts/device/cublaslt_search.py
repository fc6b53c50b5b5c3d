#!/usr/bin/env python3
"""Finalists for the cuBLASLt study's later runs, from runs already made.

``--stage search``: per shape, the best of cuBLASLt's top 8 in the selection run (``--rows``,
as its pinned key) and the configurations of cuBLASLt's space (``space.csv.gz``) one attribute
away from it: every custom-option, cluster, split-K, swizzle, stages and inner-shape
neighbour, and ``--tiles`` of its tile neighbours (drawn, seeded by the shape); the shape's
best CUTLASS kernel of the selection run rides along. Run ``c`` times them.

``--stage confirm``: per shape, the picks to confirm in fresh rounds (run ``d``): the best of
the top 8 CUTLASS kernels and cuBLASLt's top 8 (run ``a``), the best of cuBLASLt's top 8 alone
(pinned), the best CUTLASS kernel, and the best of the search (run ``c``); the driver adds
``cublas:heuristic`` and ``cublas:algo0..7``. ``picks.json`` beside ``--out`` says which pick
is which. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

FIELDS = ("id", "tile", "splitk", "reduction", "swizzle", "custom", "stages", "inner", "cluster")


def attributes(text: str) -> tuple[int, ...]:
    return tuple(int(part.split("=", 1)[1]) for part in text.split(":", 1)[1].split(";"))


def medians(path: Path) -> dict[str, dict[str, float]]:
    """shape -> config -> ms_median of the ok rows of a run (the sentinel's copy left out)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["status"] == "ok" and not row["config"].endswith("@last"):
                out[f"{row['M']}x{row['N']}x{row['K']}"][row["config"]] = float(row["ms_median"])
    return out


def best(times: dict[str, float], among: list[str]) -> str:
    timed = [c for c in among if c in times]
    return min(timed, key=lambda c: times[c]) if timed else ""


def selection_picks(entry: dict[str, list[str]], times: dict[str, float]) -> dict[str, str]:
    """The selection run's picks, cuBLASLt ranks turned into pinned keys."""
    top8 = [f"cublas:algo{i}" for i in range(8)]
    pinned = dict(zip(top8, entry["extra"][:8], strict=False))
    kernels = entry["shortlist"][:8]
    both = best(times, kernels + top8)
    return {
        "both": pinned.get(both, both),
        "best8": pinned.get(best(times, top8), ""),
        "cutlass": best(times, kernels),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=["search", "confirm"], required=True)
    p.add_argument("--finalists", type=Path, required=True, help="the selection run's finalists")
    p.add_argument("--rows", type=Path, required=True, help="the selection run's rows (run a)")
    p.add_argument("--space", type=Path, help="space.csv.gz (search)")
    p.add_argument("--search-rows", type=Path, help="run c's rows (confirm)")
    p.add_argument("--tiles", type=int, default=24)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    finalists = json.loads(args.finalists.read_text())
    times = medians(args.rows)
    out: dict[str, dict[str, list[str]]] = {}
    picks: dict[str, dict[str, str]] = {}
    if args.stage == "search":
        space: dict[str, list[str]] = defaultdict(list)
        with gzip.open(args.space, "rt", newline="") as handle:
            for row in csv.DictReader(handle):
                space[row["shape"]].append(row["config"])
        for shape, entry in finalists.items():
            pick = selection_picks(entry, times.get(shape, {}))
            if not pick["best8"]:
                continue
            base = attributes(pick["best8"])
            near, tiles = [], []
            for text in space.get(shape, []):
                diff = [
                    i for i, (x, y) in enumerate(zip(attributes(text), base, strict=True)) if x != y
                ]
                if len(diff) == 1 or diff == [2, 3]:  # split-K changes its reduction scheme
                    (tiles if diff == [1] else near).append(text)
            drawn = random.Random(shape).sample(tiles, min(args.tiles, len(tiles)))
            out[shape] = {"shortlist": [pick["cutlass"]], "extra": [pick["best8"], *near, *drawn]}
    else:
        search = medians(args.search_rows) if args.search_rows else {}
        for shape, entry in finalists.items():
            pick = selection_picks(entry, times.get(shape, {}))
            ctimes = search.get(shape, {})
            found = best(ctimes, [c for c in ctimes if c.startswith("cublaslt:")])
            cut = pick["cutlass"]
            # the search's best over all it timed: the CUTLASS pick and the best of 8 included
            overall = best(ctimes, [c for c in ctimes if c.startswith("cublaslt:") or c == cut])
            pick["search_cublaslt"], pick["search"] = found, overall
            picks[shape] = pick
            chosen = [v for v in pick.values() if v]
            out[shape] = {"shortlist": [], "extra": list(dict.fromkeys(chosen))}
        (args.out.parent / "picks.json").write_text(json.dumps(picks, indent=1, sort_keys=True))
    write_finalists(args.out, out, args.stage)
    return 0


def write_finalists(path: Path, out: dict[str, dict[str, list[str]]], stage: str) -> None:
    """Write finalists for timing_runs.py and say how many configurations they hold."""
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    sizes = [len(e["shortlist"]) + len(e["extra"]) for e in out.values()]
    print(f"{stage}: {len(out)} shapes, {sum(sizes)} configurations (max {max(sizes)})")


if __name__ == "__main__":
    sys.exit(main())
