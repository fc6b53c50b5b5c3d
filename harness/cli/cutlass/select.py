"""Pick the kernel for one GEMM shape with a saved selector, and show the top candidates."""

from __future__ import annotations

import argparse

from benchspace.evaluation.deploy.select import cublas_advice, rank_shape
from benchspace.evaluation.deploy.select_format import render_ranking
from benchspace.evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector
from benchspace.evaluation.selector.shipped import shipped_line
from benchspace.harness.errors import UsageError

MAX_DIM = 2**31
"""CUTLASS takes GEMM dimensions as 32-bit integers."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register M, N, K, ``--model``, ``--layout`` and ``--top``."""
    for dim in ("M", "N", "K"):
        parser.add_argument(dim, type=int, help=f"problem dimension {dim}")
    parser.add_argument(
        "--model",
        default=str(SHIPPED_SELECTOR),
        help=f"saved selector (default: the shipped {SHIPPED_SELECTOR.name}, the better on "
        "held-out shapes)",
    )
    parser.add_argument("--layout", default=None, help="operand layout (default: the only one)")
    parser.add_argument("--top", type=int, default=5, help="candidates to list (default: 5)")


def run(args: argparse.Namespace) -> int:
    """Print the chosen kernel, then the top candidates with their scores."""
    for name in ("M", "N", "K"):
        if getattr(args, name) >= MAX_DIM:
            raise UsageError(
                f"{name} = {getattr(args, name)} must be below 2^31 (CUTLASS takes 32-bit "
                "dimensions)"
            )
    if args.top < 1:
        raise UsageError(f"--top: {args.top} must be at least 1")
    selector = load_selector(args.model)
    ranked = rank_shape(selector, args.M, args.N, args.K, args.layout)
    shape = (args.M, args.N, args.K)
    advice = cublas_advice(selector, args.M, args.N, args.K, args.layout)
    lines = render_ranking(shape, ranked, selector.name, args.model, args.top, advice)
    line = shipped_line(args.model)
    print("\n".join([*lines, *([line] if line else [])]))
    return 0
