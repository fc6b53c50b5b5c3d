"""Model A (XGBoost, three objectives) and the ridge baseline on a learnable synthetic target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.selector.encoding import (
    FeatureSpec,
    category_codes,
    design,
    feature_spec,
    fit_scaler,
    numeric_matrix,
    one_hot,
)
from benchspace.evaluation.selector.grades import label_groups
from benchspace.evaluation.selector.metrics import picks
from benchspace.evaluation.selector.models import OBJECTIVES, RidgeSelector, XGBSelector, xgb_matrix
from benchspace.evaluation.study.run import Prepared, fit_model, prepare


@pytest.fixture(scope="module")
def prepared() -> Prepared:
    return prepare(load_dataset(FROZEN), load_hardware("h200"))


@pytest.fixture(scope="module")
def learnable(prepared: Prepared) -> Prepared:
    """The same candidates with a throughput that is a clean function of two features."""
    f = prepared.features
    tflops = 100.0 * f["tile_intensity"] / 128.0 + 20.0 * f["wave_efficiency"]
    labels = label_groups(prepared.labels.assign(tflops=tflops.to_numpy(), tflops_sd=0.0))
    return Prepared(
        labels=labels,
        features=f,
        spec=prepared.spec,
        configs=prepared.configs,
        cublas=prepared.cublas,
    )


def _held_out_regret(model: object, data: Prepared) -> float:
    train = (data.labels["split"] == "train").to_numpy()
    fitted = fit_model(model, data.features[train], data.labels[train])  # type: ignore[arg-type]
    per_group = picks(data.labels[~train], fitted.score(data.features[~train]))
    return float(per_group["regret"].mean())


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_xgboost_learns_each_objective(learnable: Prepared, objective: str) -> None:
    model = XGBSelector(spec=learnable.spec, objective=objective, n_estimators=60, seed=1)
    assert model.booster_ is None
    assert _held_out_regret(model, learnable) < 0.05
    assert model.booster_ is not None
    assert set(model.importance()) <= {
        *learnable.spec.numeric,
        *(f for f, _ in learnable.spec.categorical),
    }


def test_xgboost_is_deterministic_for_a_seed(prepared: Prepared) -> None:
    train = (prepared.labels["split"] == "train").to_numpy()
    scores = [
        fit_model(
            XGBSelector(spec=prepared.spec, n_estimators=20, seed=4),
            prepared.features[train],
            prepared.labels[train],
        ).score(prepared.features)  # type: ignore[attr-defined]
        for _ in range(2)
    ]
    np.testing.assert_array_equal(scores[0], scores[1])


def test_ridge_learns_and_matches_scikit_learn(learnable: Prepared) -> None:
    from sklearn.linear_model import Ridge

    assert _held_out_regret(RidgeSelector(spec=learnable.spec, alpha=1e-3), learnable) < 0.05
    X, y = learnable.features, learnable.labels["y"].to_numpy()
    ours = RidgeSelector(spec=learnable.spec, alpha=2.0).fit(X, y, group=np.zeros(len(y)))
    assert ours.scaler_ is not None and ours.coef_ is not None
    theirs = Ridge(alpha=2.0).fit(design(X, learnable.spec, ours.scaler_), y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-8)
    assert ours.intercept_ == pytest.approx(theirs.intercept_)


def test_ridge_without_shrinkage_survives_constant_columns(prepared: Prepared) -> None:
    y = prepared.labels["y"].to_numpy()
    model = RidgeSelector(spec=prepared.spec, alpha=0.0).fit(
        prepared.features, y, group=np.zeros(len(y))
    )
    assert np.isfinite(model.score(prepared.features)).all()
    with pytest.raises(ValueError, match="alpha -1 must not be negative"):
        RidgeSelector(spec=prepared.spec, alpha=-1).fit(
            prepared.features, y, group=np.zeros(len(y))
        )


def test_frozen_levels_code_unknown_values_as_missing(prepared: Prepared) -> None:
    spec = prepared.spec
    fields = dict(spec.categorical)
    assert fields["layout"] == ("tnn",) and fields["raster"] == ("H",)
    rows = prepared.features.head(3).copy()
    rows["raster"] = ["H", "M", "zzz"]  # levels never seen in training
    codes = category_codes(rows, spec)
    j = [f for f, _ in spec.categorical].index("raster")
    assert codes[0, j] == 0.0 and np.isnan(codes[1:, j]).all()
    hot = one_hot(rows, spec)
    start = sum(len(levels) for _, levels in spec.categorical[:j])
    assert hot[:, start].tolist() == [1.0, 0.0, 0.0]
    matrix, names, types = xgb_matrix(rows, spec)
    assert names[-len(spec.categorical) :] == [f for f, _ in spec.categorical]
    assert types.count("c") == len(spec.categorical) and matrix.shape[1] == len(names)


def test_feature_spec_round_trips_and_scaler_maps_non_finite_to_zero(prepared: Prepared) -> None:
    spec = prepared.spec
    assert FeatureSpec.from_json(spec.to_json()) == spec
    assert "swizzle" in spec.numeric and "ptxas_regs" in spec.numeric
    assert "name" not in spec.numeric and "raster" not in spec.numeric
    assert feature_spec(prepared.features) == spec
    x = np.array([[1.0, np.nan], [3.0, np.inf], [5.0, 2.0]])
    scaler = fit_scaler(x)
    assert scaler.mean == pytest.approx((3.0, 2 / 3))
    assert scaler.transform(x)[:, 0] == pytest.approx([-1.2247449, 0.0, 1.2247449])
    assert np.isfinite(scaler.transform(x)).all()
    const = fit_scaler(np.ones((4, 1)))
    assert const.scale == (1.0,)
    assert numeric_matrix(prepared.features, spec).shape == (
        len(prepared.features),
        len(spec.numeric),
    )


def test_invalid_objective(prepared: Prepared) -> None:
    with pytest.raises(ValueError, match="objective 'rank:map' is not one of"):
        XGBSelector(spec=prepared.spec, objective="rank:map").params()
    with pytest.raises(ValueError, match="rank:ndcg needs relevance labels"):
        XGBSelector(spec=prepared.spec).fit(
            prepared.features,
            np.zeros(len(prepared.features)),
            group=np.zeros(len(prepared.features)),
        )
    with pytest.raises(RuntimeError, match="not fitted"):
        RidgeSelector(spec=prepared.spec).score(pd.DataFrame())


@pytest.mark.parametrize("pair_method", ["topk", "mean"])
def test_linear_grades_need_no_relevance(learnable: Prepared, pair_method: str) -> None:
    model = XGBSelector(
        spec=learnable.spec,
        n_estimators=60,
        seed=1,
        grading="linear",
        grade_levels=16,
        grade_floor=0.5,
        pair_method=pair_method,
    )
    assert model.params()["lambdarank_pair_method"] == pair_method
    train = (learnable.labels["split"] == "train").to_numpy()
    labels = learnable.labels[train]
    model.fit(
        learnable.features[train],
        labels["y"].to_numpy(),
        group=labels["group"].factorize()[0],
        relevance=None,
    )
    per_group = picks(learnable.labels[~train], model.score(learnable.features[~train]))
    assert float(per_group["regret"].mean()) < 0.05


def test_unknown_grading_and_pair_method(prepared: Prepared) -> None:
    with pytest.raises(ValueError, match="grading 'top' is not one of bands, linear"):
        XGBSelector(spec=prepared.spec, grading="top").params()
    with pytest.raises(ValueError, match="pair_method 'all' is not one of"):
        XGBSelector(spec=prepared.spec, pair_method="all").params()


def test_a_model_with_its_own_bands_is_graded_with_them(prepared: Prepared) -> None:
    from benchspace.evaluation.selector.grades import relevance

    labels, features = prepared.labels, prepared.features
    own = fit_model(XGBSelector(spec=prepared.spec, n_estimators=20, bands=1), features, labels)
    by_hand = XGBSelector(spec=prepared.spec, n_estimators=20).fit(
        features,
        labels["y"].to_numpy(),
        group=labels["group"].factorize()[0],
        relevance=relevance(labels["band"].to_numpy(), 1),
    )
    assert own.score(features) == pytest.approx(by_hand.score(features))
    default = fit_model(XGBSelector(spec=prepared.spec, n_estimators=20), features, labels)
    assert default.score(features) != pytest.approx(own.score(features))
