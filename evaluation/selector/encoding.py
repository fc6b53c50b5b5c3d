"""The selector's feature matrix: static features of candidates, frozen categorical levels, scaling.

Every model reads the same columns: the static features ``phi(p, c, h)`` of
:func:`evaluation.selector.features.features_for_pairs`, the runtime knobs of the candidate (raster
order, max swizzle) and the kernel's ptxas facts (compile-time, so still known before
execution). Stream-K's split count and decomposition mode are knobs too (``splits``, default 1;
``decomposition``, default ``H``, heuristic), so that knob settings are ranked with the kernel.
Categorical fields are encoded with level sets frozen once from the whole
candidate catalogue and stored with a saved model, so training, validation and deployment
agree on every code; a level never seen maps to "missing" (XGBoost) or to an all-zero
one-hot block (ridge, MLP).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import PTXAS_COLUMNS
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.features import (
    CATEGORICAL_FEATURES,
    FEATURE_VERSION,
    features_for_pairs,
    numeric_feature_names,
)

KNOB_CATEGORICAL: tuple[str, ...] = ("raster", "decomposition")
KNOB_NUMERIC: tuple[str, ...] = ("swizzle", "splits")
KNOB_DEFAULTS: dict[str, Any] = {"raster": "H", "swizzle": 1, "splits": 1, "decomposition": "H"}
"""The value of a knob a candidate row does not name."""
PTXAS_FEATURES: tuple[str, ...] = tuple(f"ptxas_{c}" for c in PTXAS_COLUMNS)
CATEGORICAL: tuple[str, ...] = (*CATEGORICAL_FEATURES, *KNOB_CATEGORICAL)
_NOT_FEATURES = {"name", "problem", "kernel", *CATEGORICAL}


@dataclass(frozen=True, kw_only=True, slots=True)
class FeatureSpec:
    """Which columns a model reads, and the frozen level set of each categorical column."""

    numeric: tuple[str, ...]
    categorical: tuple[tuple[str, tuple[str, ...]], ...]
    version: int = 1
    """The feature set it was built from (:data:`~evaluation.selector.features.FEATURE_VERSION`;
    files written before the field existed read as 1)."""

    @property
    def names(self) -> list[str]:
        """Numeric names, then one ``field=level`` name per one-hot column."""
        return [*self.numeric, *(f"{f}={lv}" for f, levels in self.categorical for lv in levels)]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready mapping (stored in a saved model's sidecar)."""
        # A list of [field, levels] pairs: the column order survives sorted-key JSON writers.
        return {
            "numeric": list(self.numeric),
            "categorical": [[f, list(levels)] for f, levels in self.categorical],
            "version": self.version,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> FeatureSpec:
        """The inverse of :meth:`to_json`."""
        return FeatureSpec(
            numeric=tuple(str(n) for n in data["numeric"]),
            categorical=tuple(
                (str(f), tuple(str(v) for v in levels)) for f, levels in data["categorical"]
            ),
            version=int(data.get("version", 1)),
        )


def candidate_features(
    candidates: pd.DataFrame, configs: pd.DataFrame, hw: Hardware
) -> pd.DataFrame:
    """Static features of each candidate row (M, N, K, kernel[, knobs]); keeps the index.

    ``configs`` has one row per kernel name with the catalogue fields and optional ptxas
    columns (:func:`benchspace.evaluation.cutlass.dataset.kernel_configs`).
    """
    keep = ["M", "N", "K", "kernel"]
    left = candidates[keep].copy()
    for knob, default in KNOB_DEFAULTS.items():
        given = candidates[knob] if knob in candidates else pd.Series(default, candidates.index)
        left[knob] = given.fillna(default).to_numpy()
    pairs = left.merge(configs, left_on="kernel", right_on="name", how="left", sort=False)
    unknown = pairs["name"].isna()
    if unknown.any():
        raise ValueError(f"kernel {pairs['kernel'][unknown].iloc[0]!r} has no catalogue record")
    pairs.index = candidates.index
    out = features_for_pairs(pairs, hw)
    for knob in KNOB_CATEGORICAL:
        out[knob] = pairs[knob].astype(str).to_numpy()
    for knob in KNOB_NUMERIC:
        out[knob] = pd.to_numeric(pairs[knob]).astype(np.float64).to_numpy()
    for col, feature in zip(PTXAS_COLUMNS, PTXAS_FEATURES, strict=True):
        out[feature] = (
            pd.to_numeric(pairs[col]).astype(np.float64).to_numpy() if col in pairs else np.nan
        )
    return out


def feature_spec(features: pd.DataFrame) -> FeatureSpec:
    """Numeric columns and sorted level sets of a feature frame (build it from every candidate)."""
    numeric = [c for c in numeric_feature_names(features) if c not in _NOT_FEATURES]
    categorical = tuple(
        (c, tuple(sorted({str(v) for v in features[c].dropna()})))
        for c in CATEGORICAL
        if c in features.columns
    )
    return FeatureSpec(numeric=tuple(numeric), categorical=categorical, version=FEATURE_VERSION)


def numeric_matrix(features: pd.DataFrame, spec: FeatureSpec, extra_columns: int = 0) -> np.ndarray:
    """The numeric columns as float64, non-finite values kept; ``extra_columns`` more columns
    after them are left for the caller to fill (one allocation of the whole matrix)."""
    missing = [c for c in spec.numeric if c not in features.columns]
    if missing:
        raise ValueError(f"feature frame lacks column(s) {missing[:3]}; rebuild the features")
    # Filled a column at a time into column-major memory (a row-major stack is many times slower).
    width = len(spec.numeric) + extra_columns
    out = np.empty((len(features), width), dtype=np.float64, order="F")
    for j, c in enumerate(spec.numeric):
        out[:, j] = pd.to_numeric(features[c]).to_numpy(dtype=np.float64)
    return out


def category_codes(features: pd.DataFrame, spec: FeatureSpec) -> np.ndarray:
    """Each categorical column as its position in the frozen level set; unknown levels are NaN."""
    columns = []
    for field, levels in spec.categorical:
        if field not in features:
            columns.append(np.full(len(features), np.nan))
            continue
        # Each distinct value looked up once (a column holds a handful of them).
        found, distinct = pd.factorize(features[field].astype(str), use_na_sentinel=False)
        level = pd.Index(list(levels)).get_indexer(pd.Index(distinct))
        codes = level[found]
        columns.append(np.where(codes >= 0, codes, np.nan).astype(np.float64))
    return np.column_stack(columns) if columns else np.zeros((len(features), 0))


def one_hot(features: pd.DataFrame, spec: FeatureSpec) -> np.ndarray:
    """One indicator column per frozen level; an unknown level gives an all-zero block."""
    codes = category_codes(features, spec)
    blocks = []
    for j, (_, levels) in enumerate(spec.categorical):
        block = np.zeros((len(features), len(levels)))
        known = np.isfinite(codes[:, j])
        block[np.flatnonzero(known), codes[known, j].astype(np.int64)] = 1.0
        blocks.append(block)
    return np.hstack(blocks) if blocks else np.zeros((len(features), 0))


@dataclass(frozen=True, kw_only=True, slots=True)
class Scaler:
    """Per-column standardisation of numeric features: ``(finite(x) - mean) / scale``."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def transform(self, x: np.ndarray) -> np.ndarray:
        """Map non-finite values to 0, then standardise."""
        finite = np.where(np.isfinite(x), x, 0.0)
        return np.asarray((finite - np.asarray(self.mean)) / np.asarray(self.scale))


def fit_scaler(x: np.ndarray) -> Scaler:
    """Mean and standard deviation of each column after mapping NaN/inf to 0 (zero spread: 1)."""
    finite = np.where(np.isfinite(x), x, 0.0)
    mean = finite.mean(axis=0) if len(finite) else np.zeros(x.shape[1])
    std = finite.std(axis=0) if len(finite) else np.ones(x.shape[1])
    std = np.where(std > 0, std, 1.0)
    return Scaler(mean=tuple(float(v) for v in mean), scale=tuple(float(v) for v in std))


def design(features: pd.DataFrame, spec: FeatureSpec, scaler: Scaler) -> np.ndarray:
    """The transformed matrix of ridge and MLP: scaled numeric columns, then one-hot blocks."""
    return np.hstack([scaler.transform(numeric_matrix(features, spec)), one_hot(features, spec)])


def group_codes(groups: Sequence[Any] | pd.Series) -> np.ndarray:
    """Integer code of each row's group, in order of first appearance."""
    codes, _ = pd.factorize(
        pd.Series(list(groups) if not isinstance(groups, pd.Series) else groups)
    )
    return np.asarray(codes, dtype=np.int64)
