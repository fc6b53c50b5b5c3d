"""Cross-validation grouped by problem shape: a shape's groups (every layout) share one fold.

Splitting inside a group would let the model see a problem's candidates in training and
rank the same problem's other candidates in validation; splitting a shape's layouts apart
would leak nearly the same ranking. Folds come from scikit-learn's ``GroupKFold`` with the
shape ``MxNxK`` as the group, shuffled with an explicit seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.encoding import group_codes
from benchspace.evaluation.selector.metrics import picks
from benchspace.evaluation.selector.models import Selector


@dataclass(frozen=True, kw_only=True)
class CVResult:
    """Held-out picks of every training group, and the mean regret of each fold."""

    per_group: pd.DataFrame
    fold_regret: tuple[float, ...]

    @property
    def mean_regret(self) -> float:
        """Mean regret over all held-out groups."""
        return float(self.per_group["regret"].mean())


def shape_keys(frame: pd.DataFrame) -> np.ndarray:
    """The ``MxNxK`` of each row."""
    return (
        frame["M"].astype(str) + "x" + frame["N"].astype(str) + "x" + frame["K"].astype(str)
    ).to_numpy()


def grouped_folds(
    frame: pd.DataFrame, n_splits: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) per fold; never more folds than shapes, at least 2."""
    from sklearn.model_selection import GroupKFold

    shapes = shape_keys(frame)
    n_shapes = len(set(shapes))
    if n_shapes < 2:
        raise ValueError(f"cross-validation needs at least 2 shapes, got {n_shapes}")
    splitter = GroupKFold(n_splits=min(max(n_splits, 2), n_shapes), shuffle=True, random_state=seed)
    return [
        (np.asarray(tr), np.asarray(te))
        for tr, te in splitter.split(np.zeros(len(frame)), groups=shapes)
    ]


def cross_validate(
    make_model: Callable[[], Selector],
    features: pd.DataFrame,
    labels: pd.DataFrame,
    n_splits: int = 5,
    seed: int = 0,
) -> CVResult:
    """Fit a fresh model per fold on the other folds; collect regret on the held-out groups.

    ``labels`` is row-aligned with ``features`` and holds group, M, N, K, layout, kernel,
    tflops, y and rel (:func:`benchspace.evaluation.selector.grades.label_groups` output).
    """
    chosen, fold_regret = [], []
    for train, test in grouped_folds(labels, n_splits, seed):
        tr = labels.iloc[train]
        model = make_model()
        model.fit(
            features.iloc[train],
            tr["y"].to_numpy(),
            group=group_codes(tr["group"]),
            relevance=tr["rel"].to_numpy(),
        )
        per_group = picks(labels.iloc[test], model.score(features.iloc[test]))
        fold_regret.append(float(per_group["regret"].mean()))
        chosen.append(per_group)
    per_group = pd.concat(chosen, ignore_index=True).sort_values("group", ignore_index=True)
    return CVResult(per_group=per_group, fold_regret=tuple(fold_regret))
