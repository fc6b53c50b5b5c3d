"""Train the kernel selectors and judge them on held-out exhaustive shapes (regret, cuBLAS)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from benchspace.evaluation.selector.hpo import selector_settings
from benchspace.evaluation.study.report import render_text, write_report
from benchspace.evaluation.study.run import StudyOptions, run_study
from benchspace.harness.cli.cutlass.dataset_args import (
    add_dataset_arguments,
    add_params_argument,
    load,
    resolve_params,
)
from benchspace.harness.cli.cutlass.progress import progress
from benchspace.harness.errors import UsageError
from benchspace.harness.files import check_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset, ``--out``, ``--folds``, ``--seed`` and the optional switches."""
    add_dataset_arguments(parser)
    parser.add_argument("--out", default=None, help="write report.md and figures here")
    parser.add_argument("--folds", type=int, default=5, help="grouped CV folds (default: 5)")
    parser.add_argument(
        "--repetitions",
        type=int,
        default=100,
        help="repetitions of the random sampling policies (default: 100)",
    )
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation")
    parser.add_argument("--no-mlp", action="store_true", help="skip the MLP even with PyTorch")
    parser.add_argument(
        "--no-header",
        action="store_true",
        help="skip the header-vs-select rows (they grow a dispatch tree: one to two minutes)",
    )
    add_params_argument(parser)
    parser.add_argument(
        "--shipped",
        nargs="+",
        default=None,
        metavar="MODEL",
        help="instead of the study: judge these saved selectors (trained without the dataset's "
        "evaluation split) and their headers (CUTLASS-only, or cublas, or pinned cuBLASLt; "
        "leaves decided on the training split) on the evaluation split of a v2 dataset, and "
        "say which to ship",
    )
    parser.add_argument(
        "--pilot", type=int, default=1000, help="with --shipped: the headers' pilot shapes"
    )
    parser.add_argument(
        "--narrow", type=int, default=4, help="with --shipped: candidates kept per pilot shape"
    )


def _shipped(args: argparse.Namespace) -> int:
    from benchspace.evaluation.cutlass.dataset_read import load_dataset
    from benchspace.evaluation.deploy.cublas_evidence import cublas_evidence
    from benchspace.evaluation.deploy.gemm_dispatch import GemmHeaderSpec
    from benchspace.evaluation.deploy.shipped_run import decide, label_of, study_selector
    from benchspace.evaluation.deploy.shipped_study import render_rows
    from benchspace.evaluation.selector.model_file import load_selector

    if args.pilot < 1 or args.narrow < 1:
        raise UsageError("--pilot and --narrow must be at least 1")
    dataset = load_dataset(args.dataset)
    say, done = progress("cutlass evaluate")
    say(f"{args.dataset}: loaded; judging the selectors")
    train, held_out = cublas_evidence(dataset, "train"), cublas_evidence(dataset, "eval")
    spec = GemmHeaderSpec(pilot=args.pilot, narrow=args.narrow)
    studies = []
    for path in args.shipped:
        selector = load_selector(path)
        studies.append(
            study_selector(label_of(path), selector, spec, train, held_out, str(args.dataset), say)
        )
    rows = [r for s in studies for r in (s.select, *s.headers)]
    title = (
        f"On the {len(held_out.shapes)} evaluation shapes of {args.dataset} (recorded, "
        "cuBLASLt heuristic timed in the same runs; headers: samples "
        f"{spec.samples}, pilot {spec.pilot}, narrow {spec.narrow}, leaves decided on the "
        f"{len(train.shapes)} training shapes)"
    )
    done()
    print("\n".join(render_rows(rows, title)))
    print(decide(studies)[1])
    return 0


def run(args: argparse.Namespace) -> int:
    """Print the tables; write the report when ``--out`` is given."""
    if args.folds < 2:
        raise UsageError(f"--folds {args.folds}: grouped cross-validation needs at least 2")
    if args.repetitions < 1:
        raise UsageError(f"--repetitions {args.repetitions} must be at least 1")
    if args.shipped:
        return _shipped(args)
    if args.out:
        check_output(Path(args.out) / "report.md", option="--out")
    dataset, hw = load(args)
    params = resolve_params(args.params, dataset)
    say, done = progress("cutlass evaluate")
    say(f"{args.dataset}: loaded; the study starts")
    settings, bands = selector_settings(params) if params else ({}, 2)
    options = StudyOptions(
        folds=args.folds,
        seed=args.seed,
        bands=bands,
        repetitions=args.repetitions,
        cross_validation=not args.no_cv,
        mlp=not args.no_mlp,
        xgb_params=settings,
    )
    result = run_study(dataset, hw, options, say)
    if not args.no_header:
        from benchspace.evaluation.deploy.header_study import header_rows

        say("header vs select: training the deployed model, growing its tree")
        rows = header_rows(dataset, hw, seed=args.seed)
        result = dataclasses.replace(result, held_out=(*result.held_out, *rows))
    done()
    print(render_text(result))
    if args.out:
        written = write_report(result, args.out, params or None)
        print(f"report: {written[0]} ({len(written) - 2} figures)")
    return 0
