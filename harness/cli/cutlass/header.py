"""Generate the GEMM kernel header (a dispatch tree over M, N, K derived from the selector)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchspace.evaluation.deploy.kernel_header import (
    GemmHeaderSpec,
    choose_dispatch,
    render_gemm_header,
    spec_from_space,
)
from benchspace.evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector
from benchspace.evaluation.selector.shipped import shipped_line
from benchspace.harness.cli.cutlass.header_profile import from_profile, profile_arguments
from benchspace.harness.cli.cutlass.header_study import from_study
from benchspace.harness.cli.cutlass.progress import progress
from benchspace.harness.errors import UsageError
from benchspace.harness.files import guard_output
from benchspace.harness.jsonio import write_text_atomic
from benchspace.harness.project_paths import find_project_root, inside_project
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space

DEFAULTS = GemmHeaderSpec()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the selector, space, output, size budget, sample and ``--check`` options."""
    _tree_arguments(parser)
    _leaf_arguments(parser)
    _check_arguments(parser)
    profile_arguments(parser)


def _tree_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default=str(SHIPPED_SELECTOR),
        help=f"saved selector (default: the shipped {SHIPPED_SELECTOR.name}, the better on "
        "held-out shapes)",
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
        "--pilot",
        type=int,
        default=DEFAULTS.pilot,
        help="of those, the first shapes scored over every candidate to narrow the rest "
        f"(default: {DEFAULTS.pilot}; fewer for a selector with thousands of candidates)",
    )
    parser.add_argument(
        "--narrow",
        type=int,
        default=DEFAULTS.narrow,
        help="candidates kept: the union of each pilot shape's best this many "
        f"(default: {DEFAULTS.narrow})",
    )


def _leaf_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--evidence",
        default=None,
        metavar="DATASET",
        help="decide which leaves call cublas or a pinned cuBLASLt configuration on this v2 "
        "dataset's training shapes (CUTLASS, the heuristic and cuBLASLt's top 8 timed in the "
        "same runs) instead of the selector's own cuBLAS evidence",
    )
    parser.add_argument(
        "--leaf-policy",
        choices=("cutlass", "heuristic", "pinned"),
        default="pinned",
        help="with --evidence: cutlass (no cublas leaf), heuristic (a leaf keeps CUTLASS only "
        "where it was reliably ahead, else cublas), pinned (also cuBLASLt configurations "
        "reliably ahead of the heuristic; default)",
    )


def _check_arguments(parser: argparse.ArgumentParser) -> None:
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


def _output(args: argparse.Namespace, spec: GemmHeaderSpec, space: Space | None) -> str | Path:
    """``--out``, else the spec's path (a space's: kept inside its project)."""
    if args.out or space is None:
        return str(args.out or spec.path)
    return inside_project(
        Path(spec.path),
        args.root or find_project_root(space.path.parent) or Path.cwd(),
        where=f"{space.path}: $.header.path",
        allow_outside=args.allow_outside_root,
    )


def run(args: argparse.Namespace) -> int:
    """Grow the tree, write the header (unless only checking), optionally check it."""
    counts = (args.samples, args.pilot, args.narrow, args.check_samples)
    if (args.leaves is not None and args.leaves < 1) or min(counts) < 1:
        raise UsageError(
            "--leaves, --samples, --pilot, --narrow and --check-samples must be at least 1"
        )
    space = load_space(args.space) if args.space else None
    spec = spec_from_space(space) if space is not None else GemmHeaderSpec()
    spec = dataclasses.replace(
        spec,
        max_leaves=args.leaves or spec.max_leaves,
        samples=args.samples,
        pilot=args.pilot,
        narrow=args.narrow,
    )
    if args.from_study:
        return from_study(args, spec)
    if args.from_profile:
        if args.check:
            raise UsageError("--check judges a selector's header; leave out --from-profile")
        return from_profile(args, spec, _output(args, spec, space))
    out: str | Path | None = None
    if not args.check or args.out:
        # A space's header.path: inside the space's project, never through a symlink.
        out = _output(args, spec, space)
        guard_output(
            out, option="--out", inputs=[(args.space, "the space"), (args.model, "the selector")]
        )
    say, done = progress("cutlass header")  # its first line after the inputs load: an input
    selector = load_selector(args.model)  # error stays the command's one line
    line = shipped_line(args.model)
    if line:
        print(line)
    say(f"growing the tree ({spec.samples} shapes, pilot {spec.pilot}, narrow {spec.narrow})")
    dispatch = _grow(args, selector, spec)
    leaves = len(dispatch.tree.leaves)
    if out is not None:
        write_text_atomic(out, render_gemm_header(dispatch))
        chosen = len({dispatch.choices[n.choice].kernel for n in dispatch.tree.leaves})
        print(
            f"{out}: {leaves} leaves, {chosen} distinct kernels chosen "
            f"({dispatch.cublas_leaves} leaves cublas, {len(dispatch.pinned)} pinned cuBLASLt "
            f"entries), {len(dispatch.kernels)} in the enum; "
            f"override with {spec.env_var}=<kernel name>"
        )
    if args.check:
        _check(args, selector, dispatch, leaves, say)
    done()
    return 0


def _grow(args: argparse.Namespace, selector: Any, spec: GemmHeaderSpec) -> Any:
    """The selector's tree, its leaves decided by --evidence and --leaf-policy when given."""
    evidence = None
    if args.evidence:
        from benchspace.evaluation.cutlass.dataset_read import load_dataset
        from benchspace.evaluation.deploy.cublas_evidence import cublas_evidence

        evidence = cublas_evidence(load_dataset(args.evidence), "train")
    dispatch = choose_dispatch(
        selector, spec, args.layout, max(args.runners_up, 0), cublas_leaves=evidence is None
    )
    if evidence is not None:
        from benchspace.evaluation.deploy import leaf_policy

        rule = leaf_policy.LeafRule(policy=args.leaf_policy)
        print(leaf_policy.leave_one_out(dispatch, evidence, rule).line(rule))
        dispatch = leaf_policy.policy_dispatch(dispatch, evidence, args.leaf_policy, rule)
    return dispatch


def _check(
    args: argparse.Namespace, selector: Any, dispatch: Any, leaves: int, say: Callable[[str], None]
) -> None:
    """--check: the header's regret against select on a fresh sample (and --dataset's)."""
    from benchspace.evaluation.deploy.header_check import check_header, render_check

    exhaustive = None
    if args.dataset:
        from benchspace.evaluation.cutlass.dataset import candidate_table
        from benchspace.evaluation.cutlass.dataset_read import load_dataset

        table = candidate_table(load_dataset(args.dataset))
        exhaustive = table[table["split"] == "eval"]
        say(f"check: {args.dataset} loaded")
    say(f"check: scoring every candidate at {args.check_samples} fresh shapes")
    check = check_header(
        selector, dispatch, args.check_samples, args.check_seed, args.layout, exhaustive
    )
    print(render_check(check, leaves))
