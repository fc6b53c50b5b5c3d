"""Grouped cross-validation never splits a shape (or a group) across folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.selector.cv import cross_validate, grouped_folds, shape_keys
from benchspace.evaluation.selector.models import RidgeSelector
from benchspace.evaluation.study.run import prepare


def _frame() -> pd.DataFrame:
    rows = []
    for s in range(7):
        for layout in ("tnn", "ntn"):
            for c in range(5):
                rows.append(
                    {
                        "M": 64 * (s + 1),
                        "N": 64,
                        "K": 32,
                        "layout": layout,
                        "group": f"{s}_{layout}",
                        "candidate": c,
                    }
                )
    return pd.DataFrame(rows)


def test_folds_keep_shapes_and_groups_whole() -> None:
    frame = _frame()
    folds = grouped_folds(frame, 3, seed=0)
    assert len(folds) == 3
    seen = np.concatenate([test for _, test in folds])
    assert sorted(seen.tolist()) == list(range(len(frame)))
    shapes = shape_keys(frame)
    for train, test in folds:
        assert not set(shapes[train]) & set(shapes[test])
        assert not set(frame["group"].iloc[train]) & set(frame["group"].iloc[test])


def test_folds_are_seeded_and_capped_by_shape_count() -> None:
    frame = _frame()
    a = [t.tolist() for _, t in grouped_folds(frame, 3, seed=1)]
    assert a == [t.tolist() for _, t in grouped_folds(frame, 3, seed=1)]
    assert a != [t.tolist() for _, t in grouped_folds(frame, 3, seed=2)]
    assert len(grouped_folds(frame, 50, seed=0)) == 7
    with pytest.raises(ValueError, match="at least 2 shapes, got 1"):
        grouped_folds(frame[frame["M"] == 64], 3, seed=0)


def test_cross_validate_scores_every_training_group_once() -> None:
    prepared = prepare(load_dataset(FROZEN), load_hardware("h200"))
    mask = (prepared.labels["split"] == "train").to_numpy()
    labels, features = prepared.labels[mask], prepared.features[mask]
    result = cross_validate(lambda: RidgeSelector(spec=prepared.spec), features, labels, 3, 0)
    assert sorted(result.per_group["group"]) == sorted(labels["group"].unique())
    assert len(result.fold_regret) == 3
    assert 0.0 <= result.mean_regret < 1.0
