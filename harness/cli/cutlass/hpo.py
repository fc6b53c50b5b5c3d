"""Search XGBoost settings with Optuna TPE on an SQLite study, minimising grouped-CV regret."""

from __future__ import annotations

import argparse

from benchspace.evaluation.selector.hpo import search
from benchspace.evaluation.selector.hpo_format import render_search, settings_document
from benchspace.evaluation.selector.model_file import SHIPPED
from benchspace.evaluation.study.run import prepare
from benchspace.harness.cli.cutlass.dataset_args import add_dataset_arguments, load
from benchspace.harness.errors import UsageError
from benchspace.harness.files import check_output
from benchspace.harness.jsonio import write_json_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset, ``--trials``, ``--storage``, ``--study``, ``--folds``, ``--out``."""
    add_dataset_arguments(parser)
    parser.add_argument("--trials", type=int, default=20, help="trials to add (default: 20)")
    parser.add_argument(
        "--storage",
        default=f"sqlite:///{SHIPPED / 'hpo.sqlite3'}",
        help="Optuna storage URL (default: sqlite:///evaluation/data/models/hpo.sqlite3)",
    )
    parser.add_argument("--study", default="benchspace-xgboost", help="study name")
    parser.add_argument("--folds", type=int, default=5, help="grouped CV folds (default: 5)")
    parser.add_argument("--objective", default=None, help="pin the objective (ablation arm)")
    parser.add_argument("--out", default=None, help="write the winning settings as JSON here")


def run(args: argparse.Namespace) -> int:
    """Run the trials on the training groups; print and optionally save the winner."""
    if args.trials < 1:
        raise UsageError(f"--trials {args.trials} must be at least 1")
    if args.out:
        check_output(args.out, option="--out")
    dataset, hw = load(args)
    prepared = prepare(dataset, hw)
    mask = (prepared.labels["split"] == "train").to_numpy()
    result = search(
        prepared.features[mask],
        prepared.labels[mask],
        prepared.spec,
        args.trials,
        args.storage,
        args.study,
        args.folds,
        args.seed,
        args.objective,
    )
    print("\n".join(render_search(result)))
    if args.out:
        write_json_atomic(args.out, settings_document(result, str(dataset.path)))
        print(f"settings: {args.out}")
    return 0
