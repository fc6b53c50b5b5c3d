"""Train one selector for deployment and save it as JSON (loads later without training)."""

from __future__ import annotations

import argparse

from benchspace.evaluation.deploy.select import DEFAULT_MODEL, train_selector
from benchspace.evaluation.selector.hpo import selector_settings
from benchspace.evaluation.selector.model_file import SHIPPED_SELECTOR, save_selector
from benchspace.harness.cli.cutlass.dataset_args import (
    add_dataset_arguments,
    add_params_argument,
    load,
    resolve_params,
)
from benchspace.harness.files import check_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset, ``--out``, ``--model``, ``--split`` and ``--params``."""
    add_dataset_arguments(parser)
    parser.add_argument(
        "--out",
        default=str(SHIPPED_SELECTOR),
        help="sidecar path (default: the shipped evaluation/data/models/h200_selector.json)",
    )
    parser.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        help=f"'xgboost <objective>', 'ridge' or 'mlp <loss>' (default: {DEFAULT_MODEL})",
    )
    parser.add_argument(
        "--split",
        choices=("all", "train"),
        default="all",
        help="train on every group (all, for shipping) or the training groups only",
    )
    add_params_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Fit, save, and say what was written."""
    check_output(args.out, option="--out")
    dataset, hw = load(args)
    params = resolve_params(args.params, dataset)
    settings, bands = selector_settings(params)
    if "bands" in params:
        settings["bands"] = bands  # the search's relevance bands, applied by fit_model
    splits = ("train", "eval") if args.split == "all" else ("train",)
    selector = train_selector(dataset, hw, args.model, splits, args.seed, settings)
    written = save_selector(selector, args.out)
    t = selector.trained_on
    print(
        f"{args.out}: {selector.name} trained on {t['groups']} groups ({t['rows']} rows) of "
        f"{t['dataset']}; {len(selector.candidates)} candidates; "
        f"files: {', '.join(str(p) for p in written)}"
    )
    return 0
