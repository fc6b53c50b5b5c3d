"""Arguments and loading shared by the selector actions (dataset folder, hardware, settings)."""

from __future__ import annotations

import argparse
from typing import Any

from evaluation.cutlass.dataset import Dataset
from evaluation.cutlass.hardware import Hardware, available_hardware, load_hardware
from evaluation.cutlass.same_round import load_study_dataset
from evaluation.study.run import resolve_hardware_name
from harness.errors import UsageError
from harness.files import read_json


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset folder, ``--hardware`` and ``--seed``."""
    parser.add_argument(
        "dataset",
        help="dataset folder (version 1 or 2), e.g. evaluation/data/h200 or .../h200/v2",
    )
    parser.add_argument(
        "--hardware",
        default=None,
        help="hardware descriptor (name or path); default: the folder's name or the "
        "provenance's gpu",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")


def load(args: argparse.Namespace) -> tuple[Dataset, Hardware]:
    """The dataset and the descriptor its features divide by."""
    dataset = load_study_dataset(args.dataset)
    name = args.hardware or resolve_hardware_name(dataset, available_hardware())
    if name is None:
        raise UsageError(
            f"{args.dataset}: cannot tell which GPU measured it; pass --hardware "
            f"({', '.join(available_hardware())} or a descriptor path)"
        )
    return dataset, load_hardware(name)


def read_params(path: str | None) -> dict[str, Any]:
    """Settings from a ``benchspace cutlass hpo --out`` file (``best_params``), or none."""
    if path is None:
        return {}
    data = read_json(path, error=UsageError, kind="settings file (`cutlass hpo --out`)")
    params = data.get("best_params") if isinstance(data, dict) else None
    if not isinstance(params, dict):
        raise UsageError(f"{path}: $.best_params: missing; rerun 'benchspace cutlass hpo --out'")
    return params
