#!/usr/bin/env python3
"""What ``scripts/device/tune_shapes.sh`` measured on the GPU: per K the summary lines of
``benchspace cutlass header --from-profile`` (its per-shape table left out), each header
written to a scratch folder and dropped.

    python scripts/tune_shapes_summary.py [RUN_DIR ...] [--shortlist CSV ...] [--ks 1 4 8] \
        [--listed]

``--listed`` (a run whose space holds cuBLASLt's listed configurations, ``tune-shapes
--cublaslt-space``): each K twice, with them and without them (``--no-listed``), from the same
rounds. With several runs (the shapes of one space measured in parts), each run's lines, then
the pick figures over all their shapes together. Several shortlists (runs of spaces written
apart) are read as one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import pandas as pd

from benchspace.evaluation.deploy.measured_header import drop_listed, measured_table
from benchspace.evaluation.deploy.pick_figures import (
    pick_figures,
    render_pick_figures,
    selection_medians,
    selection_table,
)
from benchspace.evaluation.deploy.pinned import is_key
from benchspace.evaluation.deploy.store_algos import cublas_algos, store_beside
from benchspace.harness.cli import main as benchspace
from benchspace.harness.profiles.read import load_profile

VARIANTS = (("", ()), (" without the listed configurations", ("--no-listed",)))


def _profile(run: Path) -> Path:
    """The run's profile: ``profile.json``, or ``profile.json.gz`` (kept compressed)."""
    plain = run / "profile.json"
    return plain if plain.is_file() else run / "profile.json.gz"


def _header_lines(run: Path, shortlist: str, k: int, extra: tuple[str, ...]) -> list[str] | None:
    name = f"gemm_kernels_k{k}{'_no_listed' if extra else ''}.hh"
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / name
        argv = ["cutlass", "header", "--from-profile", str(_profile(run)),
                "--shortlist", shortlist, "--topk", str(k), "--out", str(out), *extra]  # fmt: skip
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = benchspace(argv)
        if code != 0:
            return None
        lines = [ln for ln in printed.getvalue().splitlines() if not ln.startswith("|")]
        return [line.replace(str(out), name) for line in lines]


def _combined(runs: list[Path], listed: bool) -> str:
    """The pick figures over every run's shapes (one confirmation, one selection table)."""
    conf, sel = [], []
    for run in runs:
        profile = load_profile(_profile(run))
        store = store_beside(_profile(run))
        algos = cublas_algos(store, next(iter(profile.results))) if store else {}
        table = measured_table(profile, algos=algos)
        table = table if listed else drop_listed(table)
        conf.append(table)
        sel.append(selection_table(table, selection_medians(profile)))
    shapes_of = [set(zip(t["M"], t["N"], t["K"], strict=True)) for t in conf]
    seen: set[tuple[int, int, int]] = set()
    for run, shapes_here in zip(runs, shapes_of, strict=True):
        if both := seen & shapes_here:
            return (
                f"no figures over the runs together: {run} measures {len(both)} shapes an "
                "earlier run measures too (one shape, one pick: name disjoint runs)"
            )
        seen |= shapes_here
    joined = pd.concat(conf, ignore_index=True)
    figures = pick_figures(joined, pd.concat(sel, ignore_index=True))
    text = render_pick_figures(figures, None)
    if not listed:
        return text
    shapes = joined.groupby(["M", "N", "K"])["config"].agg(lambda c: bool(c.map(is_key).any()))
    return f"{text} [listed configurations measured on {int(shapes.sum())} of {len(shapes)} shapes]"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", type=Path,
                   default=[Path("evaluation/data/h200/tune_shapes/llm")])  # fmt: skip
    p.add_argument("--shortlist", nargs="+", default=["spaces/tune_shapes_llm.shortlist.csv"])
    p.add_argument("--ks", type=int, nargs="+", default=[1, 4, 8])
    p.add_argument("--listed", action="store_true")
    args = p.parse_args()
    variants = VARIANTS if args.listed else VARIANTS[:1]
    with tempfile.TemporaryDirectory() as scratch:
        shortlist = _one_shortlist(args.shortlist, Path(scratch))
        return _print(args.runs, shortlist, args.ks, variants)


def _one_shortlist(paths: list[str], scratch: Path) -> str:
    """The shortlists as one file (their rows keyed by M, N, K; each file's own shape index)."""
    if len(paths) == 1:
        return paths[0]
    joined = scratch / "shortlist.csv"
    pd.concat([pd.read_csv(p) for p in paths], ignore_index=True).to_csv(joined, index=False)
    return str(joined)


def _print(
    runs: list[Path],
    shortlist: str,
    ks: list[int],
    variants: tuple[tuple[str, tuple[str, ...]], ...],
) -> int:
    for run in runs:
        if len(runs) > 1:
            print(f"{run}:")
        for k in ks:
            for title, extra in variants:
                lines = _header_lines(run, shortlist, k, extra)
                if lines is None:
                    return 1
                print(f"K={k}{title}:")
                print("\n".join("  " + line for line in lines))
    if len(runs) > 1:
        print(f"all {len(runs)} runs together (the whole shortlist):")
        for _, extra in variants:
            print(f"  {'with' if not extra else 'without'} the listed configurations: "
                  + _combined(runs, not extra))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
