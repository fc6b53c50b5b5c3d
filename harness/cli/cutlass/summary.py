"""Summarise a measured dataset: groups, kernels, failures, best CUTLASS vs cuBLAS per shape."""

from __future__ import annotations

import argparse
from pathlib import Path

from evaluation.cutlass.dataset import describe, load_dataset
from evaluation.study.summary import summarise_dataset
from evaluation.study.summary_format import render_summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The dataset folder."""
    parser.add_argument("dataset", type=Path, help="e.g. evaluation/data/h200")


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    dataset = load_dataset(args.dataset)
    print(render_summary(summarise_dataset(dataset), describe(dataset)))
    return 0
