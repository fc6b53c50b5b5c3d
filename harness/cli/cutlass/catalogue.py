"""Enumerate the SM90 bf16 GEMM catalogue and print its counts by field (or its names)."""

from __future__ import annotations

import argparse
import json

from benchspace.evaluation.cutlass.catalogue import D_TYPES, LAYOUTS, field_counts, load_catalogue
from benchspace.evaluation.cutlass.catalogue_format import counts_document, render_counts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--level``, ``--layouts``, ``--d-type``, ``--names`` and ``--json``."""
    parser.add_argument(
        "--level",
        default="default",
        help="cutlass_library instantiation level: default, max or four digits (default: default)",
    )
    parser.add_argument(
        "--layouts",
        default=",".join(LAYOUTS),
        help=f"comma-separated A/B/C layouts (default: {','.join(LAYOUTS)})",
    )
    parser.add_argument(
        "--d-type", default="bf16", choices=D_TYPES, help="type of D (default: bf16)"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--names", action="store_true", help="print the kernel names, one a line")
    output.add_argument("--json", action="store_true", help="print the counts as JSON")


def run(args: argparse.Namespace) -> int:
    """Print the counts (text or JSON) or the names."""
    layouts = [lay.strip() for lay in args.layouts.split(",") if lay.strip()]
    catalogue = load_catalogue(args.level, layouts, args.d_type)
    if args.names:
        print("\n".join(catalogue["name"]))
        return 0
    counts = field_counts(catalogue)
    if args.json:
        document = counts_document(args.level, counts, len(catalogue))
        print(json.dumps(document, indent=2, sort_keys=True))
        return 0
    print("\n".join(render_counts(args.level, counts, len(catalogue))))
    return 0
