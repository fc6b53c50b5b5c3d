"""Write the GPU study's space file: shape sets as cases, compiled non-spilling kernels as grid."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.batch_index import compiled_kernels, load_index
from benchspace.evaluation.cutlass.shape_file import SHIPPED as SHIPPED_SHAPES
from benchspace.evaluation.cutlass.shape_file import parse_shape_sets
from benchspace.evaluation.cutlass.space import build_space
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.files import guard_output, read_json
from benchspace.harness.jsonio import write_json_atomic, write_text_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the inputs (shape sets, build index) and the outputs (space, kernel list)."""
    parser.add_argument(
        "--shapes",
        type=Path,
        default=SHIPPED_SHAPES / "h200.json",
        help="shape-set file (default: the shipped evaluation/data/shapes/h200.json)",
    )
    parser.add_argument(
        "--build-dir", type=Path, default=Path("build/cutlass"), help="holds batches.json"
    )
    parser.add_argument(
        "--kernels-out",
        type=Path,
        default=DATA_DIR / "h200" / "kernels_compiled_tnn.txt",
        help="the compiled, non-spilling kernels (the space's grid file; default: "
        "evaluation/data/h200/kernels_compiled_tnn.txt)",
    )
    parser.add_argument("--out", type=Path, default=Path("spaces/cutlass_sm90_bf16.json"))
    parser.add_argument("--budget", type=int, default=200, help="kernels per training shape")
    parser.add_argument("--alpha", type=float, default=0.75)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, help="at most this many kernels (list order)")


def run(args: argparse.Namespace) -> int:
    """Write the kernel list and the space; print what they hold."""
    if not (0.0 <= args.alpha <= 1.0) or args.budget < 1:
        raise UsageError(f"--alpha {args.alpha} must be in [0, 1] and --budget at least 1")
    inputs = [(args.shapes, "the shape-set file"), (args.build_dir / "batches.json", "the index")]
    listed = (args.kernels_out, "the --kernels-out list")
    guard_output(args.out, option="--out", inputs=[*inputs, listed])
    guard_output(args.kernels_out, option="--kernels-out", inputs=inputs)
    shapes = read_json(args.shapes, kind="shape-set file")
    parse_shape_sets(shapes, str(args.shapes))  # a malformed file is refused here, not later
    index = load_index(args.build_dir)
    kernels, spilled = compiled_kernels(index)
    if args.limit is not None:
        kernels = kernels[: args.limit]
    if not kernels:
        raise BenchspaceError(
            f"{args.build_dir}/batches.json: no compiled kernels; build them first "
            "(benchspace cutlass build)"
        )
    header = [
        "# format: benchspace-kernel-list 1",
        f"# compiled, non-spilling kernels from {args.build_dir}/batches.json "
        f"({spilled} spilling kernels left out)",
    ]
    relative = os.path.relpath(args.kernels_out, args.out.parent)
    space = build_space(
        shapes, relative, len(kernels), budget=args.budget, alpha=args.alpha, seed=args.seed
    )
    write_text_atomic(args.kernels_out, "\n".join(header + kernels) + "\n")
    write_json_atomic(args.out, space)
    print(
        f"{args.out}: {len(shapes['train'])} training shapes (budget {args.budget}), "
        f"{len(shapes['eval'])} evaluation shapes, {len(kernels)} kernels "
        f"({spilled} spilling left out) listed in {args.kernels_out}"
    )
    return 0
