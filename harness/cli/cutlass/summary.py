"""Summarise a measured dataset: groups, kernels, failures, best CUTLASS vs cuBLAS per shape.

A v2 folder (per-round timings with cuBLASLt in the same rounds) gets the fair table: per
evaluation shape and by class, the oracle (kernel x knobs) against the cuBLASLt heuristic and
against the best of its top-N algorithms, the knobs' gain, and the clock/power spread.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_SHAPES = Path("evaluation") / "data" / "shapes" / "h200_v2.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The dataset folder (and, for v2, the shape-set file that names the classes)."""
    parser.add_argument("dataset", type=Path, help="e.g. evaluation/data/h200 or .../h200/v2")
    parser.add_argument(
        "--shapes",
        type=Path,
        default=DEFAULT_SHAPES,
        help="v2 only: shape-set file with the shapes' classes (default: %(default)s)",
    )


def _is_v2(folder: Path) -> bool:
    return any(folder.glob("rounds_*.csv.gz"))


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    if any(args.dataset.glob("timing_rows_*.csv.gz")):
        from benchspace.evaluation.study.timing_summary import timing_summary

        print(timing_summary(args.dataset))
        return 0
    if _is_v2(args.dataset):
        from benchspace.evaluation.cutlass.dataset_v2 import load_dataset_v2
        from benchspace.evaluation.study.summary_v2 import summarise_v2
        from benchspace.evaluation.study.summary_v2_format import render_summary_v2

        v2 = load_dataset_v2(args.dataset)
        p = v2.provenance
        title = (
            f"{args.dataset}: {p.get('gpu', '?')}, driver {p.get('driver', '?')}, cuBLASLt "
            f"{p.get('cublaslt_version', '?')}, CUTLASS {p.get('cutlass_version', '?')}"
        )
        print(render_summary_v2(summarise_v2(v2, args.shapes), title))
        return 0
    from benchspace.evaluation.cutlass.dataset import describe, load_dataset
    from benchspace.evaluation.study.summary import summarise_dataset
    from benchspace.evaluation.study.summary_format import render_summary

    dataset = load_dataset(args.dataset)
    print(render_summary(summarise_dataset(dataset), describe(dataset)))
    return 0
