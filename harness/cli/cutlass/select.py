"""Pick the kernel for one GEMM shape with a saved selector, and show the top candidates."""

from __future__ import annotations

import argparse

from evaluation.commands.train import DEFAULT_OUT
from evaluation.select import rank_shape
from evaluation.selector_file import load_selector


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register M, N, K, ``--model``, ``--layout`` and ``--top``."""
    for dim in ("M", "N", "K"):
        parser.add_argument(dim, type=int, help=f"problem dimension {dim}")
    parser.add_argument(
        "--model", default=DEFAULT_OUT, help=f"saved selector (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--layout", default=None, help="operand layout (default: the only one)")
    parser.add_argument("--top", type=int, default=5, help="candidates to list (default: 5)")


def run(args: argparse.Namespace) -> int:
    """Print the chosen kernel, then the top candidates with their scores."""
    selector = load_selector(args.model)
    ranked = rank_shape(selector, args.M, args.N, args.K, args.layout)
    best = ranked.iloc[0]
    print(
        f"{args.M}x{args.N}x{args.K}: {best['kernel']} (raster {best['raster']}, swizzle "
        f"{best['swizzle']}) by {selector.name} of {args.model}"
    )
    width = len(str(max(args.top, 1)))
    for i, row in enumerate(ranked.head(max(args.top, 1)).itertuples(index=False), start=1):
        print(
            f"  {i:>{width}}. {row.score:+.4f}  {row.kernel}  raster {row.raster} swizzle "
            f"{row.swizzle}  (static score {row.static_score:.3f})"
        )
    return 0
