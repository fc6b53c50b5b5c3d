"""Deployment: train a selector for shipping, and rank a saved selector's candidates for a shape.

The decision rule is the study's: score every candidate for the problem ``(M, N, K, layout)``
and take the argmax; nothing is measured. The candidates are those of the training data
(every compiled kernel and knob setting that ran correctly at least once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS
from benchspace.evaluation.cutlass.dataset import (
    CANDIDATE_KEY,
    PTXAS_COLUMNS,
    Dataset,
    same_round_cublas,
)
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.calibration import fit_calibration
from benchspace.evaluation.selector.encoding import candidate_features
from benchspace.evaluation.selector.metrics import picks
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.evaluation.selector.sampling import static_score
from benchspace.evaluation.study.run import StudyOptions, fit_model, model_factories, prepare
from benchspace.harness.errors import UsageError

DEFAULT_MODEL = "xgboost rank:ndcg"


def candidate_catalogue(labels: pd.DataFrame, configs: pd.DataFrame) -> pd.DataFrame:
    """Distinct candidates of a labelled table with their catalogue fields and ptxas facts."""
    keys = labels[list(CANDIDATE_KEY)].drop_duplicates().sort_values(list(CANDIDATE_KEY))
    merged = keys.merge(
        configs[[*FIELDS, *PTXAS_COLUMNS]], left_on="kernel", right_on="name", how="left"
    )
    return merged.drop(columns=["name"]).reset_index(drop=True)


def train_selector(
    dataset: Dataset,
    hw: Hardware,
    model_name: str = DEFAULT_MODEL,
    splits: Sequence[str] = ("train", "eval"),
    seed: int = 0,
    settings: Mapping[str, Any] | None = None,
) -> DeployedSelector:
    """Fit ``model_name`` on the groups of ``splits`` and bundle it for deployment."""
    options = StudyOptions(seed=seed, xgb_params=dict(settings or {}))
    prepared = prepare(dataset, hw, options.bands)
    factories = model_factories(prepared.spec, options)
    if model_name not in factories:
        raise UsageError(
            f"model {model_name!r} is not available; choose one of {', '.join(factories)}"
        )
    mask = prepared.labels["split"].isin(list(splits)).to_numpy()
    labels = prepared.labels[mask]
    if labels.empty:
        raise UsageError(f"no groups in split(s) {', '.join(splits)}; use --split all")
    model = fit_model(factories[model_name](), prepared.features[mask], labels)
    scores = model.score(prepared.features[mask])
    calibration = fit_calibration(labels["group"], scores, labels["y"].to_numpy())
    evidence = cublas_evidence(labels, scores, same_round_cublas(dataset))
    p = dataset.provenance
    trained_on = {
        "dataset": str(dataset.path),
        "gpu": p.get("gpu"),
        "date": p.get("date"),
        "benchspace_commit": p.get("benchspace_commit"),
        "splits": list(splits),
        "groups": int(labels["group"].nunique()),
        "rows": len(labels),
        "seed": seed,
    }
    return DeployedSelector(
        name=model_name,
        model=model,
        spec=prepared.spec,
        hardware=hw,
        candidates=candidate_catalogue(prepared.labels, prepared.configs),
        trained_on=trained_on,
        calibration=calibration,
        cublas=evidence if not evidence.empty else None,
    )


def cublas_evidence(labels: pd.DataFrame, scores: np.ndarray, cublas: pd.DataFrame) -> pd.DataFrame:
    """Per measured shape with same-round cuBLAS: cuBLAS's throughput, the pick and its own.

    Columns M, N, K, layout, cublas_tflops, pick, pick_tflops, best_tflops (the measured best
    candidate of the shape); empty when there is no same-round cuBLAS row.
    """
    columns = ["M", "N", "K", "layout", "cublas_tflops", "pick", "pick_tflops", "best_tflops"]
    if cublas.empty:
        return pd.DataFrame(columns=columns)
    chosen = picks(labels, scores)
    joined = chosen.merge(cublas, on=["M", "N", "K", "layout"], how="inner")
    joined = joined.rename(columns={"kernel": "pick", "tflops": "pick_tflops"})
    return joined[columns].sort_values(["M", "N", "K", "layout"]).reset_index(drop=True)


def _check_shape(m: int, n: int, k: int) -> None:
    for name, value in (("M", m), ("N", n), ("K", k)):
        if value < 1:
            raise UsageError(f"{name} = {value} must be a positive integer")


def candidate_pool(selector: DeployedSelector, layout: str | None = None) -> pd.DataFrame:
    """The selector's candidates of ``layout`` (default: the only layout it has)."""
    pool = selector.candidates
    layouts = sorted(set(pool["layout"].astype(str)))
    chosen = layout if layout is not None else (layouts[0] if len(layouts) == 1 else None)
    if chosen is None or chosen not in layouts:
        raise UsageError(
            f"layout {layout!r} has no candidates in this selector; choose one of "
            f"{', '.join(layouts)} with --layout"
        )
    return pool[pool["layout"].astype(str) == chosen].reset_index(drop=True)


def _scored(
    selector: DeployedSelector, pool: pd.DataFrame, shapes: Sequence[tuple[int, int, int]]
) -> pd.DataFrame:
    for m, n, k in shapes:
        _check_shape(m, n, k)
    # The pool repeated once per shape, then the shape's columns (one copy, not one per shape).
    size = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
    rows = pool.iloc[np.tile(np.arange(len(pool)), len(size))].reset_index(drop=True)
    rows = rows.assign(
        shape=np.repeat(np.arange(len(size)), len(pool)),
        M=np.repeat(size[:, 0], len(pool)),
        N=np.repeat(size[:, 1], len(pool)),
        K=np.repeat(size[:, 2], len(pool)),
    )
    configs = pool.assign(name=pool["kernel"])
    configs = configs[[*FIELDS, *(c for c in PTXAS_COLUMNS if c in pool)]].drop_duplicates("name")
    features = candidate_features(rows, configs, selector.hardware)
    rows["score"] = selector.model.score(features)
    rows["static_score"] = static_score(features, selector.hardware).to_numpy()
    return rows


def rank_shapes(
    selector: DeployedSelector, shapes: Sequence[tuple[int, int, int]], layout: str | None = None
) -> pd.DataFrame:
    """Every candidate of ``layout`` scored for each shape: columns shape (index into
    ``shapes``), M, N, K, kernel, raster, swizzle, score, static_score; best first per shape."""
    rows = _scored(selector, candidate_pool(selector, layout), shapes)
    rows = rows.sort_values(["shape", "score"], ascending=[True, False], kind="stable")
    keep = ["shape", "M", "N", "K", "kernel", "raster", "swizzle", "score", "static_score"]
    return rows[keep].reset_index(drop=True)


CHUNK_ROWS = 256 * 650
"""(shape, candidate) rows scored at a time: 256 shapes of the v1 selector's 650 candidates,
about 20 of a v2 selector's 8,126, so that the feature frame stays small either way."""


def score_matrix(
    selector: DeployedSelector,
    shapes: Sequence[tuple[int, int, int]],
    layout: str | None = None,
    chunk_rows: int = CHUNK_ROWS,
    columns: Sequence[int] | np.ndarray | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The candidate pool and its scores, one row per shape and one column per candidate.

    ``columns``: score only these candidates of the pool (the matrix has one column each, in
    that order; the pool returned is still the whole pool). Each candidate's score depends on
    its own features only, so a column scores the same alone as among all.
    """
    pool = candidate_pool(selector, layout)
    scored = pool if columns is None else pool.iloc[np.asarray(columns)].reset_index(drop=True)
    step = max(1, chunk_rows // max(len(scored), 1))
    out = np.empty((len(shapes), len(scored)), dtype=np.float64)
    for start in range(0, len(shapes), step):
        part = list(shapes[start : start + step])
        rows = _scored(selector, scored, part)
        out[start : start + len(part)] = rows["score"].to_numpy().reshape(len(part), len(scored))
    return pool, out


def rank_shape(
    selector: DeployedSelector, m: int, n: int, k: int, layout: str | None = None
) -> pd.DataFrame:
    """All candidates for one shape, best first."""
    return rank_shapes(selector, [(m, n, k)], layout).drop(columns=["shape"])


@dataclass(frozen=True, kw_only=True, slots=True)
class CublasAdvice:
    """What the same-round cuBLAS evidence nearest to a shape says."""

    use: bool
    """True: cuBLAS beat the selector's pick at the evidence shape."""
    at: tuple[int, int, int]
    distance: float
    """Euclidean distance in log2 (M, N, K) from the asked shape to ``at``."""
    cublas_tflops: float
    pick_tflops: float


CUBLAS_RADIUS = 1.0
"""Evidence farther than this (one octave in one dimension) says nothing about a shape."""


def cublas_advice(
    selector: DeployedSelector, m: int, n: int, k: int, layout: str | None = None
) -> CublasAdvice | None:
    """The ``cublas`` pseudo-kernel's case for a shape: the nearest same-round evidence within
    :data:`CUBLAS_RADIUS`; None when the selector carries none there."""
    evidence = selector.cublas
    if evidence is None or evidence.empty:
        return None
    chosen = str(candidate_pool(selector, layout)["layout"].iloc[0])
    rows = evidence[evidence["layout"].astype(str) == chosen]
    if rows.empty:
        return None
    dims = np.log2(rows[["M", "N", "K"]].to_numpy(dtype=np.float64))
    distance = np.sqrt(((dims - np.log2([m, n, k])) ** 2).sum(axis=1))
    at = int(np.argmin(distance))
    if distance[at] > CUBLAS_RADIUS:
        return None
    row = rows.iloc[at]
    return CublasAdvice(
        use=bool(row["cublas_tflops"] > row["pick_tflops"]),
        at=(int(row["M"]), int(row["N"]), int(row["K"])),
        distance=float(distance[at]),
        cublas_tflops=float(row["cublas_tflops"]),
        pick_tflops=float(row["pick_tflops"]),
    )


def top_choices(ranked: pd.DataFrame, count: int) -> pd.DataFrame:
    """The first ``count`` rows of each shape of a :func:`rank_shapes` result."""
    if "shape" not in ranked:
        return ranked.head(count)
    return ranked.groupby("shape", sort=True).head(count).reset_index(drop=True)
