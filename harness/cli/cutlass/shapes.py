"""Build training and evaluation GEMM shape sets for a GPU and write them as a JSON file.

``--layers`` builds dataset v2's sets: the same constructions plus transformer layer shapes,
none in the ``--previous`` sets. ``cutlass shapes-v2`` is the old spelling of ``shapes
--layers`` (its defaults: 240 training draws, seed 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchspace.evaluation.cutlass.hardware import available_hardware, load_hardware
from benchspace.evaluation.cutlass.shape_draw import build_layer_sets, build_shape_sets
from benchspace.evaluation.cutlass.shape_file import load_shape_sets, write_shape_sets
from benchspace.evaluation.cutlass.shapes import MAX_VOLUME
from benchspace.evaluation.cutlass.shapes_format import render_shape_sets
from benchspace.harness.errors import UsageError
from benchspace.harness.files import guard_output

LAYERS_ALIAS = "shapes-v2"
"""The action name that means ``shapes --layers``."""
DEFAULTS = {False: {"train": 60, "seed": 0}, True: {"train": 240, "seed": 2}}
"""``--train`` and ``--seed`` defaults without and with ``--layers``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--gpu``, ``--layers``, ``--previous``, the counts, ``--seed`` and ``--out``."""
    parser.add_argument(
        "--gpu",
        "--hardware",
        dest="gpu",
        default="h200",
        help=f"hardware descriptor: {', '.join(available_hardware())} or a path (default: h200)",
    )
    parser.add_argument(
        "--layers",
        action="store_true",
        help="dataset v2's sets: add transformer layer shapes (M tokens x common (N, K)) and "
        "leave out every shape of --previous",
    )
    parser.add_argument(
        "--previous",
        type=Path,
        action="append",
        default=[],
        help="with --layers: an earlier shape-set file whose shapes are left out (repeatable)",
    )
    parser.add_argument(
        "--train", type=int, default=None, help="training shapes (default: 60; --layers: 240)"
    )
    parser.add_argument(
        "--eval",
        type=int,
        default=16,
        help="evaluation shapes (default: 16; --layers draws its own 64 strata, transitions "
        "and layer shapes)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed (default: 0; --layers: 2)")
    parser.add_argument(
        "--max-volume",
        type=int,
        default=MAX_VOLUME,
        help=f"largest M*N*K kept, without --layers (default: {MAX_VOLUME} = 16384*16384*4096)",
    )
    parser.add_argument("--out", required=True, help="shape-set JSON file to write")


def run(args: argparse.Namespace) -> int:
    """Write the file and print how many shapes of each class it holds."""
    layers = bool(args.layers) or getattr(args, "action", None) == LAYERS_ALIAS
    train = DEFAULTS[layers]["train"] if args.train is None else args.train
    seed = DEFAULTS[layers]["seed"] if args.seed is None else args.seed
    if train < 0 or args.eval < 0:
        raise UsageError(f"--train {train} / --eval {args.eval}: counts must not be negative")
    if args.previous and not layers:
        raise UsageError("--previous leaves earlier shapes out of --layers sets; add --layers")
    guard_output(
        args.out, option="--out", inputs=[(p, "a --previous shape-set file") for p in args.previous]
    )
    hw = load_hardware(args.gpu)
    if layers:
        sets = build_layer_sets(hw, [load_shape_sets(p) for p in args.previous], train, seed)
    else:
        sets = build_shape_sets(hw, train, args.eval, seed, args.max_volume)
    write_shape_sets(args.out, sets)
    print("\n".join(render_shape_sets(args.out, sets, hw)))
    return 0
