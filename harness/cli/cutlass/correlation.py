"""Print the within-group Spearman correlation of every model feature with measured throughput."""

from __future__ import annotations

import argparse

from benchspace.evaluation.study.correlation import split_correlation
from benchspace.evaluation.study.correlation_format import render_correlation
from benchspace.evaluation.study.run import prepare
from benchspace.harness.cli.cutlass.dataset_args import add_dataset_arguments, load
from benchspace.harness.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset, ``--split``, ``--exhaustive`` and ``--limit``."""
    add_dataset_arguments(parser)
    parser.add_argument(
        "--split",
        choices=("train", "eval", "all"),
        default="train",
        help="groups to correlate over (default: train)",
    )
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="only groups that measured every kernel at default knobs",
    )
    parser.add_argument("--limit", type=int, default=None, help="print the strongest N features")


def run(args: argparse.Namespace) -> int:
    """Prepare the candidates and features, print the table."""
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} must be at least 1")
    dataset, hw = load(args)
    prepared = prepare(dataset, hw)
    table, groups = split_correlation(
        prepared.features, prepared.labels, prepared.spec.numeric, args.split, args.exhaustive
    )
    kind = "exhaustive " if args.exhaustive else ""
    title = (
        f"{dataset.path}: Spearman correlation with measured TFLOP/s over {groups} {kind}"
        f"{args.split} group(s); rho pools every row, rho_g is within one group (shape)"
    )
    print("\n".join(render_correlation(table, title, args.limit)))
    return 0
