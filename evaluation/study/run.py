"""The selection study on one dataset: train on training groups, judge on held-out exhaustive ones.

Pure given a loaded :class:`~evaluation.cutlass.dataset.Dataset`: prepares candidates, static
features and grades, trains every model on the ``train`` groups, scores the ``eval`` groups
(measured over every compiled kernel, so ``T*`` is the in-catalogue oracle), cross-validates on
the training groups grouped by shape, and runs the correlation and sampling analyses on the
evaluation groups. Rendering lives in :mod:`benchspace.evaluation.study.report`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import (
    Dataset,
    DatasetError,
    candidate_table,
    describe,
    exhaustive_groups,
    kernel_configs,
    same_round_cublas,
)
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.cv import cross_validate
from benchspace.evaluation.selector.encoding import (
    FeatureSpec,
    candidate_features,
    feature_spec,
    group_codes,
)
from benchspace.evaluation.selector.grades import DEFAULT_BANDS, label_groups, relevance
from benchspace.evaluation.selector.metrics import (
    RegretSummary,
    picks,
    random_pick,
    shape_columns,
    summarise,
)
from benchspace.evaluation.selector.mlp import MLPSelector, torch_available
from benchspace.evaluation.selector.models import OBJECTIVES, RidgeSelector, Selector, XGBSelector
from benchspace.evaluation.selector.sampling import static_score
from benchspace.evaluation.study.baselines import baseline_rows, with_cublas
from benchspace.evaluation.study.correlation import correlation_table, regime_table
from benchspace.evaluation.study.repeatability import (
    largest_run_winners,
    oracle_repeatability,
    repeatability_note,
)
from benchspace.evaluation.study.sampling_study import SamplingStudy, sampling_study

DEFAULT_MLP = "mlp lambdarank"
MLP_VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("mlp lambdarank", "lambdarank", "exponential"),
    ("mlp lambdarank-linear", "lambdarank", "linear"),
    ("mlp pairwise", "pairwise", "linear"),
    ("mlp mse", "mse", "linear"),
)
"""Name, loss and gain of each MLP the study trains."""


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """Labelled candidates and their features, row-aligned, with the frozen feature spec."""

    labels: pd.DataFrame
    features: pd.DataFrame
    spec: FeatureSpec
    configs: pd.DataFrame
    cublas: pd.DataFrame
    """cuBLAS timed in the same rounds as the kernels (empty for v1 data)."""


@dataclass(frozen=True, kw_only=True)
class StudyOptions:
    """Knobs of one study run."""

    folds: int = 5
    seed: int = 0
    bands: int = DEFAULT_BANDS
    repetitions: int = 100
    cross_validation: bool = True
    mlp: bool = True
    """Train the MLP variants when PyTorch is installed."""
    mlp_epochs: int = 15
    xgb_params: Mapping[str, Any] = field(default_factory=dict)
    """Overrides of :class:`~evaluation.selector.models.XGBSelector` settings (an HPO winner)."""


@dataclass(frozen=True, kw_only=True)
class StudyResult:
    """Everything the report prints."""

    dataset: str
    hardware: str
    options: StudyOptions
    train_groups: int
    eval_groups: int
    train_rows: int
    eval_rows: int
    held_out: tuple[RegretSummary, ...]
    cross_validated: tuple[RegretSummary, ...]
    oracle_cublas: float | None
    per_group: pd.DataFrame
    """Held-out picks: one row per (model, group)."""
    correlation: pd.DataFrame
    regimes: pd.DataFrame
    sampling: SamplingStudy
    importance: tuple[tuple[str, float], ...]
    notes: tuple[str, ...]
    oracle_cublas_best: float | None = None
    """The oracle against cuBLASLt's best of its top-N (same rounds)."""


def prepare(dataset: Dataset, hw: Hardware, bands: int = DEFAULT_BANDS) -> Prepared:
    """Candidates with grades and features; the level sets come from every candidate."""
    candidates = candidate_table(dataset)
    if candidates.empty:
        raise DatasetError(f"{dataset.path}: no measurement has status ok; nothing to study")
    configs = kernel_configs(dataset)
    labels = label_groups(candidates, bands)
    # Exhaustive groups' T* is the best of every kernel; the others' the best of their sample.
    full = exhaustive_groups(dataset.measurements, len(configs))
    labels["exhaustive"] = labels["group"].isin(full).to_numpy()
    features = candidate_features(candidates, configs, hw)
    return Prepared(
        labels=labels,
        features=features,
        spec=feature_spec(features),
        configs=configs,
        cublas=same_round_cublas(dataset),
    )


def model_factories(spec: FeatureSpec, options: StudyOptions) -> dict[str, Callable[[], Selector]]:
    """Name -> a function making a fresh, unfitted model; MLPs only when PyTorch is present."""
    xgb = dict(options.xgb_params)
    xgb.pop("objective", None)
    factories: dict[str, Callable[[], Selector]] = {}
    for objective in OBJECTIVES:
        factories[f"xgboost {objective}"] = partial(
            XGBSelector, spec=spec, objective=objective, seed=options.seed, **xgb
        )
    factories["ridge"] = partial(RidgeSelector, spec=spec)
    if options.mlp and torch_available():
        for name, loss, gain in MLP_VARIANTS:
            factories[name] = partial(
                MLPSelector,
                spec=spec,
                loss=loss,
                gain=gain,
                seed=options.seed,
                epochs=options.mlp_epochs,
            )
    return factories


def fit_model(model: Selector, features: pd.DataFrame, labels: pd.DataFrame) -> Selector:
    """Fit ``model`` on labelled rows and return it; an XGBoost model with its own ``bands``
    is graded with that many top noise bands."""
    bands = model.bands if isinstance(model, XGBSelector) else None
    rel = labels["rel"] if bands is None else relevance(labels["band"].to_numpy(), bands)
    model.fit(
        features,
        labels["y"].to_numpy(),
        group=group_codes(labels["group"]),
        relevance=np.asarray(rel),
    )
    return model


def _split(prepared: Prepared, split: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    mask = (prepared.labels["split"] == split).to_numpy()
    return prepared.features[mask], prepared.labels[mask]


def run_study(
    dataset: Dataset,
    hw: Hardware,
    options: StudyOptions | None = None,
    progress: Callable[[str], None] | None = None,
) -> StudyResult:
    """Train, evaluate, cross-validate and analyse; see the module docstring.

    ``progress``, when given, is called with a short line before each step.
    """
    options = options or StudyOptions()
    say = progress or (lambda _: None)
    say("preparing candidates, features and grades")
    prepared = prepare(dataset, hw, options.bands)
    x_tr, y_tr = _split(prepared, "train")
    x_ev, y_ev = _split(prepared, "eval")
    if y_ev.empty:
        raise DatasetError(
            f"{dataset.path}: no evaluation groups (split == eval) with ok measurements; "
            "the study judges selectors on exhaustively measured held-out shapes"
        )
    if y_tr["group"].nunique() < 2:
        raise DatasetError(
            f"{dataset.path}: {y_tr['group'].nunique()} training group(s) with ok measurements; "
            "training needs at least 2"
        )
    notes: list[str] = []
    if options.mlp and not torch_available():
        notes.append("MLP skipped: PyTorch is not installed (pip install torch, extra 'mlp').")
    cublas = prepared.cublas
    factories = model_factories(prepared.spec, options)
    held_out, chosen, or_cublas = [], [], []
    importance: tuple[tuple[str, float], ...] = ()
    for step, (name, make) in enumerate(factories.items(), start=1):
        say(f"training {name} ({step}/{len(factories)})")
        model = fit_model(make(), x_tr, y_tr)
        per_group = picks(y_ev, model.score(x_ev))
        held_out.append(summarise(name, per_group, cublas))
        chosen.append(per_group.assign(model=name))
        if not cublas.empty:
            row = with_cublas(name, per_group, picks(y_tr, model.score(x_tr)), y_ev, cublas)
            or_cublas += [row] if row is not None else []
        if isinstance(model, XGBSelector) and model.objective == "rank:ndcg":
            ranked = sorted(model.importance().items(), key=lambda kv: -kv[1])
            importance = tuple(ranked[:15])
    static = static_score(x_ev, hw).to_numpy()
    static_picks = picks(y_ev, static)
    held_out.append(summarise("static score (v1 weights)", static_picks, cublas))
    chosen.append(static_picks.assign(model="static score (v1 weights)"))
    rows, picked, baseline_notes = baseline_rows(x_ev, y_ev, y_tr, hw, cublas)
    held_out += rows
    chosen += picked
    notes += baseline_notes
    rand = random_pick(y_ev).merge(shape_columns(y_ev), on="group")
    held_out.append(summarise("random (expected)", rand, cublas))
    held_out += or_cublas
    oracle = picks(y_ev, y_ev["tflops"].to_numpy())
    oracle_summary = summarise("oracle", oracle, cublas)
    oracle_cublas = oracle_summary.cublas_geomean
    if cublas.empty:
        notes.append(
            "vs cuBLAS: not measured: this dataset has no cuBLAS rows timed in the same rounds "
            "as the kernels (v1's cublas.csv.gz was timed in a separate process at burst clocks "
            "and is not used as a baseline); CUTLASS-or-cuBLAS rows need such rows too"
        )
    notes += _floor_notes(dataset, y_ev)
    sm_count = dataset.provenance.get("sm_count")
    if isinstance(sm_count, int) and sm_count != hw.sms:
        notes.append(
            f"the dataset's GPU has {sm_count} SMs but the {hw.name} descriptor says {hw.sms}; "
            "features divide by the descriptor's capacities"
        )

    cross_validated = []
    if options.cross_validation:
        for name, make in factories.items():
            if name.startswith("mlp") and name != DEFAULT_MLP:
                continue  # the other losses are compared on the held-out groups only
            say(f"cross-validating {name} ({options.folds} folds)")
            cv = cross_validate(make, x_tr, y_tr, options.folds, options.seed)
            cross_validated.append(summarise(f"{name} (cv)", cv.per_group, cublas))
    say("correlation tables and sampling study")
    columns = [c for c in prepared.spec.numeric if x_ev[c].nunique() > 1]
    return StudyResult(
        dataset=describe(dataset),
        hardware=hw.name,
        options=options,
        train_groups=int(y_tr["group"].nunique()),
        eval_groups=int(y_ev["group"].nunique()),
        train_rows=len(y_tr),
        eval_rows=len(y_ev),
        held_out=tuple(held_out),
        cross_validated=tuple(cross_validated),
        oracle_cublas=oracle_cublas,
        per_group=pd.concat(chosen, ignore_index=True),
        correlation=correlation_table(x_ev, y_ev, columns),
        regimes=regime_table(x_ev, y_ev, columns, hw),
        sampling=sampling_study(y_ev, static, options.seed, options.repetitions),
        importance=importance,
        notes=tuple(notes),
        oracle_cublas_best=oracle_summary.cublas_best_geomean,
    )


def _floor_notes(dataset: Dataset, y_ev: pd.DataFrame) -> list[str]:
    """How well the oracle repeats, and the largest run's winner under the pooled ``T*``."""
    repeat = oracle_repeatability(dataset.measurements)
    if repeat is None:
        return []
    winners = largest_run_winners(dataset.measurements).assign(_w=1.0)
    keys = ["group", "kernel", "raster", "swizzle"]
    mark = y_ev[keys].merge(winners, on=keys, how="left")["_w"].fillna(0.0).to_numpy()
    s = summarise("largest run's winner", picks(y_ev, mark))
    return [
        f"{repeatability_note(repeat)}; the largest run's own winner judged against the pooled "
        f"T* (a shape's runs pooled into one candidate set) loses {100 * s.mean:.2f}% mean, "
        f"{100 * s.p95:.2f}% p95, top-1 {100 * s.top1:.0f}%"
    ]


def resolve_hardware_name(dataset: Dataset, available: list[str]) -> str | None:
    """The shipped descriptor a dataset was measured on: its folder name, else its ``gpu``."""
    if dataset.path.name in available:
        return dataset.path.name
    gpu = str(dataset.provenance.get("gpu", "")).lower().replace(" ", "")
    # Longest first: "gh200" must not be read as "h200".
    for name in sorted(available, key=len, reverse=True):
        if name in gpu:
            return name
    return None
