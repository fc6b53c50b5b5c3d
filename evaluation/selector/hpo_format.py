"""A finished search as the lines ``benchspace cutlass hpo`` prints, and its settings file."""

from __future__ import annotations

from typing import Any

from benchspace.evaluation.selector.hpo import SearchResult

SETTINGS_FORMAT = "benchspace-cutlass-hpo"
SETTINGS_VERSION = 1


def render_search(result: SearchResult) -> list[str]:
    """The study, its finished trials and best CV regret, then the winning settings."""
    finished = int((result.trials["state"] == "COMPLETE").sum())
    lines = [
        f"study {result.study_name} ({result.storage}): {finished} finished trials; best CV "
        f"regret {100 * result.best_regret:.2f}%"
    ]
    lines.extend(f"  {key} = {value}" for key, value in sorted(result.best_params.items()))
    return lines


def settings_document(result: SearchResult, dataset: str) -> dict[str, Any]:
    """The ``--out`` file: the winning settings (``best_params``) and where they come from."""
    return {
        "format": SETTINGS_FORMAT,
        "version": SETTINGS_VERSION,
        "study": result.study_name,
        "storage": result.storage,
        "best_params": dict(result.best_params),
        "best_cv_regret": result.best_regret,
        "dataset": dataset,
    }
