"""Summarise a measured dataset: groups, kernels, failures, best CUTLASS vs cuBLAS per shape.

A dataset with rounds (version 2 on: cuBLASLt timed in the kernels' own rounds) gets the fair
table: per evaluation shape and by class, the oracle (kernel x knobs) against the cuBLASLt
heuristic and against the best of its top-N algorithms, the knobs' gain, and the clock/power
spread. Everything read comes from the library's one dataset reader.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchspace.evaluation.cutlass.dataset_read import (
    DATASET_HELP,
    load_dataset,
    resolve_dataset_path,
)
from benchspace.evaluation.cutlass.shape_file import SHIPPED, load_shape_classes
from benchspace.evaluation.study.summary import summarise
from benchspace.evaluation.study.summary_format import render_summary, summary_title

DEFAULT_SHAPES = SHIPPED / "h200_v2.json"
"""The shipped shape-set file of dataset v2, found through the package (never the cwd)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The dataset folder (and, for data with rounds, the shape-set file naming the classes)."""
    parser.add_argument("dataset", type=Path, help=DATASET_HELP)
    parser.add_argument(
        "--shapes",
        type=Path,
        default=None,
        help="shape-set file with the shapes' classes, for data with rounds (v2 on); default: "
        f"the shipped {DEFAULT_SHAPES.name} ({DEFAULT_SHAPES})",
    )


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    folder = resolve_dataset_path(args.dataset)
    if any(folder.glob("timing_rows_*.csv.gz")):
        # The timing-protocol runs (position sentinel, timing modes, confirmed K curve).
        from benchspace.evaluation.study.timing_summary import timing_summary

        print(timing_summary(folder))
        return 0
    dataset = load_dataset(args.dataset)
    classes = None
    if dataset.has_rounds:
        shapes = args.shapes
        if shapes is None and DEFAULT_SHAPES.is_file():
            shapes = DEFAULT_SHAPES
        classes = load_shape_classes(shapes) if shapes is not None else None
    print(render_summary(summarise(dataset, classes), summary_title(dataset)))
    return 0
