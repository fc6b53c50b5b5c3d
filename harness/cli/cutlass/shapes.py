"""Build training and evaluation GEMM shape sets for a GPU and write them as a JSON file."""

from __future__ import annotations

import argparse

from benchspace.evaluation.cutlass.hardware import available_hardware, load_hardware
from benchspace.evaluation.cutlass.shape_draw import build_shape_sets
from benchspace.evaluation.cutlass.shape_file import write_shape_sets
from benchspace.evaluation.cutlass.shapes import MAX_VOLUME
from benchspace.evaluation.cutlass.shapes_format import render_shape_sets
from benchspace.harness.errors import UsageError
from benchspace.harness.files import check_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--gpu``, ``--train``, ``--eval``, ``--seed``, ``--max-volume`` and ``--out``."""
    parser.add_argument(
        "--gpu",
        default="h200",
        help=f"hardware descriptor: {', '.join(available_hardware())} or a path (default: h200)",
    )
    parser.add_argument("--train", type=int, default=60, help="training shapes (default: 60)")
    parser.add_argument("--eval", type=int, default=16, help="evaluation shapes (default: 16)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--max-volume",
        type=int,
        default=MAX_VOLUME,
        help=f"largest M*N*K kept (default: {MAX_VOLUME} = 16384*16384*4096)",
    )
    parser.add_argument("--out", required=True, help="shape-set JSON file to write")


def run(args: argparse.Namespace) -> int:
    """Write the file and print how many shapes of each class it holds."""
    if args.train < 0 or args.eval < 0:
        raise UsageError(f"--train {args.train} / --eval {args.eval}: counts must not be negative")
    check_output(args.out, option="--out")
    hw = load_hardware(args.gpu)
    sets = build_shape_sets(hw, args.train, args.eval, args.seed, args.max_volume)
    write_shape_sets(args.out, sets)
    print("\n".join(render_shape_sets(args.out, sets, hw)))
    return 0
