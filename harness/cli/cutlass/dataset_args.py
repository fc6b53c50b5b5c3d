"""Arguments and loading shared by the selector actions (dataset folder, hardware, settings)."""

from __future__ import annotations

import argparse
from typing import Any

from benchspace.evaluation.cutlass.dataset import Dataset
from benchspace.evaluation.cutlass.dataset_read import DATASET_HELP, load_dataset
from benchspace.evaluation.cutlass.hardware import Hardware, available_hardware, load_hardware
from benchspace.evaluation.study.run import resolve_hardware_name
from benchspace.harness.errors import UsageError
from benchspace.harness.files import read_json


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the dataset folder, ``--hardware`` and ``--seed``."""
    parser.add_argument("dataset", help=DATASET_HELP)
    parser.add_argument(
        "--hardware",
        default=None,
        help="hardware descriptor (name or path); default: the folder's name or the "
        "provenance's gpu",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")


def load(args: argparse.Namespace) -> tuple[Dataset, Hardware]:
    """The dataset and the descriptor its features divide by."""
    dataset = load_dataset(args.dataset)
    name = args.hardware or resolve_hardware_name(dataset, available_hardware())
    if name is None:
        raise UsageError(
            f"{args.dataset}: cannot tell which GPU measured it; pass --hardware "
            f"({', '.join(available_hardware())} or a descriptor path)"
        )
    return dataset, load_hardware(name)


SHIPPED_SETTINGS: dict[int, str] = {2: "hpo_h200_v2.json"}
"""The search winner each dataset version's selectors train with by default (under
``evaluation/data/models``): v2's beat the class defaults on the held-out v2 shapes; v1 keeps
the class defaults (its search's winner lost on its held-out shapes)."""
AUTO, NONE = "auto", "none"


def add_params_argument(parser: argparse.ArgumentParser) -> None:
    """Register ``--params`` (default ``auto``: the shipped settings of the dataset's version)."""
    parser.add_argument(
        "--params",
        default=AUTO,
        help="XGBoost settings from 'benchspace cutlass hpo --out'; 'auto' (default): the "
        "shipped winner for the dataset's version (v2: evaluation/data/models/hpo_h200_v2.json), "
        "'none': the built-in defaults",
    )


def resolve_params(value: str | None, dataset: Dataset) -> dict[str, Any]:
    """The settings ``--params`` names: a file, ``auto`` or ``none``."""
    if value is None or value == NONE:
        return {}
    if value == AUTO:
        from benchspace.evaluation.selector.model_file import SHIPPED

        name = SHIPPED_SETTINGS.get(dataset.version)
        return read_params(str(SHIPPED / name)) if name else {}
    return read_params(value)


def read_params(path: str | None) -> dict[str, Any]:
    """Settings from a ``benchspace cutlass hpo --out`` file (``best_params``), or none."""
    if path is None:
        return {}
    data = read_json(path, error=UsageError, kind="settings file (`cutlass hpo --out`)")
    params = data.get("best_params") if isinstance(data, dict) else None
    if not isinstance(params, dict):
        raise UsageError(f"{path}: $.best_params: missing; rerun 'benchspace cutlass hpo --out'")
    return params
