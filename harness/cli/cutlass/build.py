"""Emit and compile CUTLASS kernels into batch libraries and the driver (skips what is built)."""

from __future__ import annotations

import argparse

from evaluation import cutlass_build


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Everything after ``build`` goes to ``python -m evaluation.cutlass_build``."""
    parser.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        help="--kernels FILE [--build-dir D] [--per-tu N] [--jobs J] [--limit B] [--no-driver]",
    )


def run(args: argparse.Namespace) -> int:
    """Build."""
    return cutlass_build.main(args.options)
