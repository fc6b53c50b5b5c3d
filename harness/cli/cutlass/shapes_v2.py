"""Build dataset v2's shape sets: the v1 constructions plus layer shapes, none seen before."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.cutlass.shape_file import load_shape_sets, write_shape_sets
from benchspace.evaluation.cutlass.shapes_v2 import build_v2_sets


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--hardware``, ``--previous``, ``--train``, ``--seed`` and ``--out``."""
    parser.add_argument("--hardware", default="h200", help="hardware descriptor (default: h200)")
    parser.add_argument(
        "--previous",
        type=Path,
        action="append",
        default=[],
        help="an earlier shape-set file whose shapes are left out (repeatable)",
    )
    parser.add_argument("--train", type=int, default=240, help="mixed training draws (240)")
    parser.add_argument("--seed", type=int, default=2, help="random seed (default: 2)")
    parser.add_argument("--out", type=Path, required=True, help="shape-set file to write")


def run(args: argparse.Namespace) -> int:
    """Write the v2 shape-set file."""
    hw = load_hardware(args.hardware)
    sets = build_v2_sets(hw, [load_shape_sets(p) for p in args.previous], args.train, args.seed)
    write_shape_sets(args.out, sets)
    print(f"{args.out}: {len(sets.train)} training, {len(sets.eval)} evaluation shapes")
    return 0
