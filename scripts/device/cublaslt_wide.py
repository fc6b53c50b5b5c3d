#!/usr/bin/env python3
"""Finalists for the wide cuBLASLt study: cuBLASLt's whole listed space screened per shape,
then a selection run over the screen's best beside the K = 8 CUTLASS shortlist, then a
confirmation run of the selection's picks. Three runs, each in fresh driver processes, and no
figure is read from the run that chose what it is about.

``--stage screen``: per shape, every configuration of cuBLASLt's space (``--space``
``space.csv.gz``, what ``cutlass_bench --cublas-space`` accepted) for run ``s``, a cheap mode;
the driver adds ``cublas:heuristic`` and ``cublas:algo0..7``.

``--stage select``: per shape, the K = 8 CUTLASS shortlist (``--shortlist``), cuBLASLt's top 8
as pinned keys (read from run ``s``'s ``cublas_algo`` column: the attributes the driver ran
for each rank), and the ``--top`` fastest configurations of the screen that are not among
them, for run ``a`` (selection).

``--stage confirm``: per shape, the picks of run ``a`` (``picks.json`` beside ``--out`` says
which is which) for run ``d``, which re-times them beside ``cublas:heuristic`` and
``cublas:algo0..7`` in fresh rounds:

* ``both``: the best of the K = 8 CUTLASS shortlist and cuBLASLt's top 8;
* ``best8``: the best of cuBLASLt's top 8 alone (pinned);
* ``cutlass``: the best of the shortlist alone;
* ``wide_cublaslt``: the best cuBLASLt configuration timed (top 8 and the screen's best);
* ``wide``: the best of everything timed (shortlist, top 8 and the screen's best).

Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

from cublaslt_search import best, medians, write_finalists

TOP8 = tuple(f"cublas:algo{i}" for i in range(8))


def pinned_ranks(path: Path) -> dict[str, dict[str, str]]:
    """shape -> cublas:algo<i> -> its pinned key, from the ``cublas_algo`` column of a run's
    ok rows (the attributes the driver rebuilt the rank from)."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    with gzip.open(path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            config, attrs = row["config"], row.get("cublas_algo", "")
            if row["status"] == "ok" and config in TOP8 and attrs:
                shape = f"{row['M']}x{row['N']}x{row['K']}"
                out[shape][config] = "cublaslt:" + attrs.split(";ws=")[0]
    return out


def screen(space_path: Path) -> dict[str, dict[str, list[str]]]:
    space: dict[str, list[str]] = defaultdict(list)
    with gzip.open(space_path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            space[row["shape"]].append(row["config"])
    return {shape: {"shortlist": [], "extra": configs} for shape, configs in space.items()}


def select(
    shortlist: dict[str, dict[str, list[str]]], rows: Path, top: int
) -> dict[str, dict[str, list[str]]]:
    """Run a's finalists; ``top8`` keeps cuBLASLt's ranks as pinned keys (fewer where the
    heuristic offers fewer)."""
    times, ranks = medians(rows), pinned_ranks(rows)
    out = {}
    for shape, entry in shortlist.items():
        if shape not in times:
            print(f"select: {shape} was not screened (the screen's deadline): left out")
            continue
        t, pinned = times[shape], ranks.get(shape, {})
        top8 = [pinned[r] for r in TOP8 if r in pinned]
        timed = sorted((c for c in t if c.startswith("cublaslt:")), key=lambda c: t[c])
        fresh = [c for c in timed if c not in top8][:top]
        out[shape] = {"shortlist": entry["shortlist"][:8], "top8": top8, "extra": [*top8, *fresh]}
    return out


def picks_of(entry: dict[str, list[str]], times: dict[str, float]) -> dict[str, str]:
    kernels = entry["shortlist"][:8]
    top8 = entry.get("top8", [])
    cublaslt = [c for c in entry["extra"] if c.startswith("cublaslt:")]
    return {
        "both": best(times, kernels + top8),
        "best8": best(times, top8),
        "cutlass": best(times, kernels),
        "wide_cublaslt": best(times, cublaslt),
        "wide": best(times, kernels + cublaslt),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=["screen", "select", "confirm"], required=True)
    p.add_argument("--space", type=Path, help="space.csv.gz (screen)")
    p.add_argument("--shortlist", type=Path, help="finalists with the K = 8 shortlist (select)")
    p.add_argument("--finalists", type=Path, help="the selection run's finalists (confirm)")
    p.add_argument("--rows", type=Path, help="the screen's rows (select), run a's (confirm)")
    p.add_argument("--top", type=int, default=8)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    if args.stage == "screen":
        out = screen(args.space)
    elif args.stage == "select":
        out = select(json.loads(args.shortlist.read_text()), args.rows, args.top)
    else:
        finalists = json.loads(args.finalists.read_text())
        times = medians(args.rows)
        picks = {s: picks_of(e, times.get(s, {})) for s, e in finalists.items()}
        picks = {s: {k: v for k, v in chosen.items() if v} for s, chosen in picks.items()}
        (args.out.parent / "picks.json").write_text(json.dumps(picks, indent=1, sort_keys=True))
        out = {
            s: {"shortlist": [], "extra": list(dict.fromkeys(c.values()))} for s, c in picks.items()
        }
    write_finalists(args.out, out, args.stage)
    return 0


if __name__ == "__main__":
    sys.exit(main())
