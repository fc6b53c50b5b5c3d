"""Generate the bucketed GEMM kernel header (shape buckets -> chosen kernel, env override)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evaluation.deploy.kernel_header import (
    GemmHeaderSpec,
    choose_table,
    render_gemm_header,
    spec_from_space,
)
from evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector
from harness.jsonio import write_text_atomic
from harness.project_paths import add_root_arguments, find_project_root, inside_project
from harness.spaces.load import load_space


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--model``, ``--space``, ``--out``, ``--layout`` and ``--runners-up``."""
    parser.add_argument(
        "--model",
        default=str(SHIPPED_SELECTOR),
        help="saved selector (default: the shipped evaluation/data/models/h200_selector.json)",
    )
    parser.add_argument(
        "--space",
        default=None,
        help="space file whose header section sets path, namespace, env_prefix and buckets",
    )
    parser.add_argument("--out", default=None, help="header path (default: the spec's path)")
    parser.add_argument("--layout", default=None, help="operand layout (default: the only one)")
    parser.add_argument(
        "--runners-up",
        type=int,
        default=0,
        help="next-best kernels per bucket to list for the override (default: 0)",
    )
    add_root_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Choose every bucket's kernel and write the header."""
    space = load_space(args.space) if args.space else None
    spec = spec_from_space(space) if space is not None else GemmHeaderSpec()
    out: str | Path = args.out or spec.path
    if space is not None and not args.out:
        # The space's header.path: inside the space's project, never through a symbolic link.
        out = inside_project(
            Path(spec.path),
            args.root or find_project_root(space.path.parent) or Path.cwd(),
            where=f"{space.path}: $.header.path",
            allow_outside=args.allow_outside_root,
        )
    selector = load_selector(args.model)
    table = choose_table(selector, spec, args.layout, max(args.runners_up, 0))
    write_text_atomic(out, render_gemm_header(table))
    chosen = len({c.kernel for c in table.cells})
    print(
        f"{out}: {len(table.cells)} buckets, {chosen} distinct kernels chosen, "
        f"{len(table.kernels)} in the table; override with {spec.env_var}=<kernel name>"
    )
    return 0
