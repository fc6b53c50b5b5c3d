"""Generate the GEMM kernel header (a dispatch tree over M, N, K derived from the selector)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from evaluation.deploy.kernel_header import (
    GemmHeaderSpec,
    choose_dispatch,
    render_gemm_header,
    spec_from_space,
)
from evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector
from harness.errors import UsageError
from harness.files import check_output
from harness.jsonio import write_text_atomic
from harness.project_paths import add_root_arguments, find_project_root, inside_project
from harness.spaces.load import load_space

DEFAULTS = GemmHeaderSpec()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the selector, space, output, size budget, sample and ``--check`` options."""
    parser.add_argument(
        "--model",
        default=str(SHIPPED_SELECTOR),
        help="saved selector (default: the shipped evaluation/data/models/h200_selector.json)",
    )
    parser.add_argument(
        "--space",
        default=None,
        help="space file whose header section sets path, namespace, env_prefix and guard",
    )
    parser.add_argument("--out", default=None, help="header path (default: the spec's path)")
    parser.add_argument("--layout", default=None, help="operand layout (default: the only one)")
    parser.add_argument(
        "--runners-up",
        type=int,
        default=0,
        help="next-best kernels per leaf to list for the override (default: 0)",
    )
    parser.add_argument(
        "--leaves",
        type=int,
        default=None,
        help="size budget: leaves of the dispatch tree (default: the space's header.leaves, "
        f"else {DEFAULTS.max_leaves})",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=DEFAULTS.samples,
        help=f"shapes the tree is grown on (default: {DEFAULTS.samples})",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="also report the header's regret against select on a fresh sample (writes "
        "nothing unless --out is given)",
    )
    parser.add_argument(
        "--check-samples", type=int, default=2000, help="fresh shapes for --check (default: 2000)"
    )
    parser.add_argument(
        "--check-seed", type=int, default=1, help="seed of the fresh sample (default: 1)"
    )
    parser.add_argument(
        "--dataset",
        default=None,
        help="with --check: a dataset folder whose exhaustive groups give measured regret",
    )
    add_root_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Grow the tree, write the header (unless only checking), optionally check it."""
    if (args.leaves is not None and args.leaves < 1) or args.samples < 1 or args.check_samples < 1:
        raise UsageError("--leaves, --samples and --check-samples must be at least 1")
    space = load_space(args.space) if args.space else None
    spec = spec_from_space(space) if space is not None else GemmHeaderSpec()
    spec = dataclasses.replace(
        spec, max_leaves=args.leaves or spec.max_leaves, samples=args.samples
    )
    out: str | Path | None = None
    if not args.check or args.out:
        out = args.out or spec.path
        if space is not None and not args.out:
            # The space's header.path: inside the space's project, never through a symlink.
            out = inside_project(
                Path(spec.path),
                args.root or find_project_root(space.path.parent) or Path.cwd(),
                where=f"{space.path}: $.header.path",
                allow_outside=args.allow_outside_root,
            )
        check_output(out, option="--out")  # before the tree is grown
    selector = load_selector(args.model)
    dispatch = choose_dispatch(selector, spec, args.layout, max(args.runners_up, 0))
    leaves = len(dispatch.tree.leaves)
    if out is not None:
        write_text_atomic(out, render_gemm_header(dispatch))
        chosen = len({dispatch.choices[n.choice].kernel for n in dispatch.tree.leaves})
        print(
            f"{out}: {leaves} leaves, {chosen} distinct kernels chosen "
            f"({dispatch.cublas_leaves} leaves cublas), {len(dispatch.kernels)} in the enum; "
            f"override with {spec.env_var}=<kernel name>"
        )
    if args.check:
        from evaluation.deploy.header_check import check_header
        from evaluation.deploy.header_check_format import render_check

        exhaustive = None
        if args.dataset:
            from evaluation.cutlass.dataset import candidate_table
            from evaluation.cutlass.same_round import load_study_dataset

            table = candidate_table(load_study_dataset(args.dataset))
            exhaustive = table[table["split"] == "eval"]
        check = check_header(
            selector, dispatch, args.check_samples, args.check_seed, args.layout, exhaustive
        )
        print(render_check(check, leaves))
    return 0
