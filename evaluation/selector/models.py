"""Model A (XGBoost ranking / regression) and the ridge baseline, scikit-learn style.

Both score raw feature frames (:func:`evaluation.selector.encoding.candidate_features`); the
deployed rule is always the argmax of the score within a problem's candidates. ``fit`` returns the
model, learned attributes end in ``_``, seeds are explicit.

* XGBoost, objective ``rank:ndcg`` (default; listwise surrogate of NDCG over the whole group,
  labels = top-focused relevance), ``rank:pairwise`` (same labels) or ``reg:squarederror``
  (the pointwise ablation: labels ``y = T / T*``). Numeric features enter splits directly
  (NaN/inf as missing); categorical fields use native categorical splits on codes of the
  frozen level sets. ``grading`` picks the ranking labels: ``bands`` takes the relevance
  given to :meth:`XGBSelector.fit` (top noise bands), ``linear`` grades ``y`` itself
  (:func:`benchspace.evaluation.selector.grades.linear_grades`, ``grade_levels`` levels above
  ``grade_floor``). ``pair_method`` ``topk`` builds LambdaMART pairs from the top
  ``pairs_per_sample`` of each group (the NDCG truncation level), ``mean`` samples that many
  pairs per document.
* Ridge: ``w = argmin ||y - X'w - b||^2 + lambda ||w||^2`` on the standardised numeric and
  one-hot categorical matrix ``X'``, solved in closed form after centring ``X'`` and ``y``:
  ``w = (X_c' X_c + lambda I)^-1 X_c' y_c``, ``b = mean(y) - mean(X') w``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.encoding import (
    FeatureSpec,
    Scaler,
    category_codes,
    design,
    fit_scaler,
    numeric_matrix,
)
from benchspace.evaluation.selector.grades import (
    DEFAULT_FLOOR,
    DEFAULT_LEVELS,
    GRADINGS,
    linear_grades,
)

OBJECTIVES = ("rank:ndcg", "rank:pairwise", "reg:squarederror")
RANKING = frozenset({"rank:ndcg", "rank:pairwise"})
PAIR_METHODS = ("topk", "mean")


class Selector(Protocol):
    """What every model offers: fit on labelled groups, score raw feature rows."""

    def fit(
        self,
        X: pd.DataFrame,
        y: np.ndarray,
        *,
        group: np.ndarray,
        relevance: np.ndarray | None = None,
    ) -> Any:
        """Train; returns the model."""

    def score(self, X: pd.DataFrame) -> np.ndarray:
        """Scores, higher is better within a group."""


def _group_order(group: np.ndarray) -> np.ndarray:
    """A stable permutation that makes each group's rows contiguous (XGBoost needs sorted qid)."""
    return np.argsort(np.asarray(group), kind="stable")


def xgb_matrix(
    features: pd.DataFrame, spec: FeatureSpec
) -> tuple[np.ndarray, list[str], list[str]]:
    """Numeric columns (non-finite -> NaN) and categorical codes, with names and XGBoost types."""
    numeric = len(spec.numeric)
    matrix = numeric_matrix(features, spec, extra_columns=len(spec.categorical))
    x = matrix[:, :numeric]
    x[~np.isfinite(x)] = np.nan
    matrix[:, numeric:] = category_codes(features, spec)
    names = [*spec.numeric, *(f for f, _ in spec.categorical)]
    types = ["q"] * numeric + ["c"] * len(spec.categorical)
    return matrix, names, types


@dataclass(kw_only=True)
class XGBSelector:
    """Model A: gradient-boosted trees ranking a group's candidates."""

    spec: FeatureSpec
    objective: str = "rank:ndcg"
    n_estimators: int = 100
    max_depth: int = 6
    learning_rate: float = 0.1
    min_child_weight: float = 1.0
    subsample: float = 0.8
    colsample_bytree: float = 0.8
    reg_lambda: float = 1.0
    pairs_per_sample: int = 8
    """``lambdarank_num_pair_per_sample`` of the ranking objectives."""
    pair_method: str = "topk"
    """``lambdarank_pair_method``: ``topk`` (truncation at ``pairs_per_sample``) or ``mean``."""
    grading: str = "bands"
    """Ranking labels: the given top-band relevance, or ``linear`` grades of ``y``."""
    grade_levels: int = DEFAULT_LEVELS
    grade_floor: float = DEFAULT_FLOOR
    bands: int | None = None
    """Top noise bands graded by :func:`evaluation.study.run.fit_model` (``grading`` bands);
    None: the study's own (``StudyOptions.bands``). A saved model records its search's value."""
    max_bin: int = 64
    n_jobs: int = 1
    seed: int = 0
    booster_: Any = field(default=None, init=False, repr=False)

    def params(self) -> dict[str, Any]:
        """The booster parameters (what a saved model records)."""
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective {self.objective!r} is not one of {', '.join(OBJECTIVES)}")
        params: dict[str, Any] = {
            "objective": self.objective,
            "max_depth": self.max_depth,
            "eta": self.learning_rate,
            "min_child_weight": self.min_child_weight,
            "subsample": self.subsample,
            "colsample_bytree": self.colsample_bytree,
            "lambda": self.reg_lambda,
            "tree_method": "hist",
            "max_bin": self.max_bin,
            "nthread": self.n_jobs,
            "seed": self.seed,
            "verbosity": 0,
        }
        if self.pair_method not in PAIR_METHODS:
            raise ValueError(f"pair_method {self.pair_method!r} is not one of {PAIR_METHODS}")
        if self.grading not in GRADINGS:
            raise ValueError(f"grading {self.grading!r} is not one of {', '.join(GRADINGS)}")
        if self.objective in RANKING:
            params["lambdarank_num_pair_per_sample"] = self.pairs_per_sample
            params["lambdarank_pair_method"] = self.pair_method
            params["eval_metric"] = "ndcg"
        return params

    def fit(
        self,
        X: pd.DataFrame,
        y: np.ndarray,
        *,
        group: np.ndarray,
        relevance: np.ndarray | None = None,
    ) -> Self:
        """Train on the rows of ``X``; ranking objectives need ``relevance``, regression ``y``."""
        import xgboost as xgb

        params = self.params()
        if self.objective in RANKING and self.grading == "linear":
            relevance = linear_grades(y, self.grade_levels, self.grade_floor)
        if self.objective in RANKING and relevance is None:
            raise ValueError(f"{self.objective} needs relevance labels")
        label = np.asarray(relevance if self.objective in RANKING else y, dtype=np.float64)
        order = _group_order(group)
        matrix, names, types = xgb_matrix(X.iloc[order], self.spec)
        dtrain = xgb.DMatrix(
            matrix,
            label=label[order],
            feature_names=names,
            feature_types=types,
            enable_categorical=True,
            nthread=self.n_jobs,
            **({"qid": np.asarray(group)[order]} if self.objective in RANKING else {}),
        )
        self.booster_ = xgb.train(params, dtrain, num_boost_round=self.n_estimators)
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        """Higher is better within a group."""
        import xgboost as xgb

        if self.booster_ is None:
            raise RuntimeError("XGBSelector is not fitted; call fit() first")
        matrix, names, types = xgb_matrix(X, self.spec)
        booster = self.booster_
        known = (list(booster.feature_names or ()), list(booster.feature_types or ()))
        if known == (names, types):
            # The booster knows its features' names and types: predict from the array itself
            # (the same float32 values a DMatrix would hold, without building one).
            return np.asarray(booster.inplace_predict(matrix), dtype=np.float64)
        data = xgb.DMatrix(
            matrix,
            feature_names=names,
            feature_types=types,
            enable_categorical=True,
            nthread=self.n_jobs,
        )
        return np.asarray(self.booster_.predict(data), dtype=np.float64)

    def importance(self) -> dict[str, float]:
        """Total gain of each feature over all splits."""
        if self.booster_ is None:
            raise RuntimeError("XGBSelector is not fitted; call fit() first")
        gains = self.booster_.get_score(importance_type="total_gain")
        return {str(k): float(v) for k, v in gains.items()}


@dataclass(kw_only=True)
class RidgeSelector:
    """The linear baseline: closed-form ridge regression of ``y = T/T*`` on ``X'``."""

    spec: FeatureSpec
    alpha: float = 1.0
    scaler_: Scaler | None = field(default=None, init=False, repr=False)
    coef_: np.ndarray | None = field(default=None, init=False, repr=False)
    intercept_: float = field(default=0.0, init=False)

    def fit(
        self,
        X: pd.DataFrame,
        y: np.ndarray,
        *,
        group: np.ndarray,
        relevance: np.ndarray | None = None,
    ) -> Self:
        """Solve the normal equations; ``group`` and ``relevance`` are accepted and unused."""
        del group, relevance
        if self.alpha < 0:
            raise ValueError(f"alpha {self.alpha!r} must not be negative")
        self.scaler_ = fit_scaler(numeric_matrix(X, self.spec))
        x = design(X, self.spec, self.scaler_)
        target = np.asarray(y, dtype=np.float64)
        x_mean, y_mean = x.mean(axis=0), float(target.mean())
        xc, yc = x - x_mean, target - y_mean
        gram = xc.T @ xc + self.alpha * np.eye(x.shape[1])
        # lstsq rather than solve: with alpha = 0 constant columns make the system singular.
        self.coef_ = np.linalg.lstsq(gram, xc.T @ yc, rcond=None)[0]
        self.intercept_ = y_mean - float(x_mean @ self.coef_)
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted ``y``; higher is better."""
        if self.scaler_ is None or self.coef_ is None:
            raise RuntimeError("RidgeSelector is not fitted; call fit() first")
        return np.asarray(design(X, self.spec, self.scaler_) @ self.coef_ + self.intercept_)

    def to_json(self) -> dict[str, Any]:
        """Scaler, coefficients and intercept as JSON-ready values."""
        if self.scaler_ is None or self.coef_ is None:
            raise RuntimeError("RidgeSelector is not fitted; call fit() first")
        return {
            "alpha": self.alpha,
            "mean": list(self.scaler_.mean),
            "scale": list(self.scaler_.scale),
            "coef": [float(v) for v in self.coef_],
            "intercept": self.intercept_,
        }

    @staticmethod
    def from_json(spec: FeatureSpec, data: Mapping[str, Any]) -> RidgeSelector:
        """A fitted ridge model from :meth:`to_json`'s output."""
        model = RidgeSelector(spec=spec, alpha=float(data["alpha"]))
        model.scaler_ = Scaler(
            mean=tuple(float(v) for v in data["mean"]), scale=tuple(float(v) for v in data["scale"])
        )
        model.coef_ = np.asarray(data["coef"], dtype=np.float64)
        model.intercept_ = float(data["intercept"])
        return model


def load_booster(path: str) -> Any:
    """An XGBoost booster from ``save_model`` JSON (read through the file layer)."""
    import xgboost as xgb

    from benchspace.harness.files import read_bytes

    booster = xgb.Booster()
    booster.load_model(bytearray(read_bytes(path, kind="XGBoost model")))
    return booster
