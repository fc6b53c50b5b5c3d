"""Hyperparameter search for Model A: Optuna TPE on an SQLite study, minimising CV regret.

Each trial draws XGBoost settings and, unless the objective is pinned, the training loss
(``rank:ndcg``, ``rank:pairwise`` or ``reg:squarederror``) as a categorical choice, so TPE
spends its budget on the better family. Conditional knobs apply to ranking objectives only:
the pair construction (``topk`` with its truncation level, or ``mean``) and pairs per sample,
and the labels: top noise bands (their number ``B``) or linear grades of ``y = T/T*`` (their
levels and floor, :func:`evaluation.selector.grades.linear_grades`). The value is the mean
regret over the held-out groups of a shape-grouped cross-validation of the training groups. The
study lives in SQLite (``sqlite:///file``) so that an interrupted search resumes and several
processes can share it. Optuna is an optional dependency (extra ``hpo``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from benchspace.evaluation.selector.cv import cross_validate
from benchspace.evaluation.selector.encoding import FeatureSpec
from benchspace.evaluation.selector.grades import GRADINGS, relevance
from benchspace.evaluation.selector.models import OBJECTIVES, PAIR_METHODS, RANKING, XGBSelector
from benchspace.harness.errors import UsageError

SEARCH_SPACE: Mapping[str, str] = {
    "objective": "categorical over OBJECTIVES (unless pinned)",
    "n_estimators": "int 40..300, log",
    "max_depth": "int 3..10",
    "learning_rate": "float 0.02..0.3, log",
    "min_child_weight": "float 0.5..20, log",
    "subsample": "float 0.5..1",
    "colsample_bytree": "float 0.4..1",
    "reg_lambda": "float 1e-3..10, log",
    "pair_method": "topk or mean, ranking objectives only",
    "pairs_per_sample": "int 1..32, log, ranking objectives only (topk: the truncation level)",
    "grading": "bands or linear, ranking objectives only",
    "bands": "int 1..4, grading bands only",
    "grade_levels": "int 4..31, grading linear only",
    "grade_floor": "float 0.3..0.9, grading linear only",
}
"""The searched ranges, as the report prints them."""


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """The winning settings, their CV regret and every finished trial."""

    best_params: Mapping[str, Any]
    best_regret: float
    trials: pd.DataFrame
    study_name: str
    storage: str


def optuna_available() -> bool:
    """True when Optuna can be imported (the ``hpo`` extra is installed)."""
    return importlib.util.find_spec("optuna") is not None


def _suggest(trial: Any, pinned: str | None) -> dict[str, Any]:
    objective = pinned or trial.suggest_categorical("objective", list(OBJECTIVES))
    params: dict[str, Any] = {
        "objective": objective,
        "n_estimators": trial.suggest_int("n_estimators", 40, 300, log=True),
        "max_depth": trial.suggest_int("max_depth", 3, 10),
        "learning_rate": trial.suggest_float("learning_rate", 0.02, 0.3, log=True),
        "min_child_weight": trial.suggest_float("min_child_weight", 0.5, 20.0, log=True),
        "subsample": trial.suggest_float("subsample", 0.5, 1.0),
        "colsample_bytree": trial.suggest_float("colsample_bytree", 0.4, 1.0),
        "reg_lambda": trial.suggest_float("reg_lambda", 1e-3, 10.0, log=True),
    }
    if objective in RANKING:
        params["pair_method"] = trial.suggest_categorical("pair_method", list(PAIR_METHODS))
        params["pairs_per_sample"] = trial.suggest_int("pairs_per_sample", 1, 32, log=True)
        params["grading"] = trial.suggest_categorical("grading", list(GRADINGS))
        if params["grading"] == "bands":
            params["bands"] = trial.suggest_int("bands", 1, 4)
        else:
            params["grade_levels"] = trial.suggest_int("grade_levels", 4, 31)
            params["grade_floor"] = trial.suggest_float("grade_floor", 0.3, 0.9)
    return params


def search(
    features: pd.DataFrame,
    labels: pd.DataFrame,
    spec: FeatureSpec,
    trials: int,
    storage: str,
    study_name: str = "benchspace-xgboost",
    folds: int = 5,
    seed: int = 0,
    objective: str | None = None,
) -> SearchResult:
    """Run ``trials`` more TPE trials on the study (created or resumed) and return the best.

    ``labels`` must carry ``band`` (from :func:`evaluation.selector.grades.label_groups`) so
    that each trial can relabel relevance with its own number of bands.
    """
    if not optuna_available():
        raise UsageError("hyperparameter search needs Optuna: pip install 'benchspace[hpo]'")
    if objective is not None and objective not in OBJECTIVES:
        raise UsageError(f"objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(
        study_name=study_name,
        storage=storage,
        sampler=sampler,
        direction="minimize",
        load_if_exists=True,
    )
    band = labels["band"].to_numpy()

    def run_trial(trial: Any) -> float:
        params = _suggest(trial, objective)
        bands = int(params.pop("bands", 2))
        relabelled = labels.assign(rel=relevance(band, bands))
        result = cross_validate(
            lambda: XGBSelector(spec=spec, seed=seed, **params),
            features,
            relabelled,
            folds,
            seed,
        )
        return result.mean_regret

    study.optimize(run_trial, n_trials=trials)
    best = dict(study.best_params)
    if objective is not None:
        best["objective"] = objective
    frame = study.trials_dataframe(attrs=("number", "value", "params", "state"))
    return SearchResult(
        best_params=best,
        best_regret=float(study.best_value),
        trials=frame,
        study_name=study_name,
        storage=storage,
    )


def selector_settings(best_params: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """Split a search winner into XGBSelector settings and the relevance band count."""
    settings = {k: v for k, v in best_params.items() if k != "bands"}
    return settings, int(best_params.get("bands", 2))
