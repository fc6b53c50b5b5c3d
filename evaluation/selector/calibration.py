"""Predicted relative throughput from a ranker's score: a monotone map of the score gap.

A ranking model's scores order a shape's candidates but are not throughputs. To compare two
choices for the same shape (how much is lost by running kernel ``c`` where the selector would
run its argmax), the gap ``d = s(c) - max_c' s(c')`` to the shape's best score is mapped to a
predicted ``y = T / T*`` by isotonic regression fitted on the training groups (non-decreasing
in ``d``, clipped to ``[y_min, 1]``). The map is stored as knots and applied by linear
interpolation, flat beyond the end knots. It is fitted in-sample (on the groups the model was
trained on), so it is an honest ordering but an optimistic scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

MAX_KNOTS = 64
Y_FLOOR = 1e-3
"""Lowest predicted ``y``: keeps logarithms finite."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Calibration:
    """Knots of the non-decreasing map from score gap (<= 0) to predicted ``y``."""

    gap: tuple[float, ...]
    y: tuple[float, ...]
    groups: int = 0
    """Groups the map was fitted on."""

    def predict(self, gap: np.ndarray) -> np.ndarray:
        """Predicted ``y`` for score gaps (linear between knots, flat outside)."""
        return np.interp(np.asarray(gap, dtype=np.float64), self.gap, self.y)

    def to_json(self) -> dict[str, Any]:
        """Knots as JSON-ready lists."""
        return {"gap": list(self.gap), "y": list(self.y), "groups": self.groups}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Calibration:
        """The map written by :meth:`to_json`."""
        gap = tuple(float(v) for v in data["gap"])
        y = tuple(float(v) for v in data["y"])
        if len(gap) != len(y) or not gap or list(gap) != sorted(gap):
            raise ValueError("calibration knots must be non-empty, paired and sorted by gap")
        return Calibration(gap=gap, y=y, groups=int(data.get("groups", 0)))


def score_gaps(group: np.ndarray | pd.Series, score: np.ndarray) -> np.ndarray:
    """``s - max s`` within each group (0 for every group's argmax)."""
    frame = pd.DataFrame({"g": np.asarray(group), "s": np.asarray(score, dtype=np.float64)})
    return (frame["s"] - frame.groupby("g", sort=False)["s"].transform("max")).to_numpy()


def fit_calibration(
    group: np.ndarray | pd.Series, score: np.ndarray, y: np.ndarray, knots: int = MAX_KNOTS
) -> Calibration:
    """Isotonic fit of measured ``y`` on the score gap, reduced to at most ``knots`` knots."""
    from sklearn.isotonic import IsotonicRegression

    gap = score_gaps(group, score)
    target = np.clip(np.asarray(y, dtype=np.float64), Y_FLOOR, 1.0)
    iso = IsotonicRegression(increasing=True, y_min=Y_FLOOR, y_max=1.0, out_of_bounds="clip")
    iso.fit(gap, target)
    # Half the knots over every gap, half over the top decile, where choices are made.
    half = max(knots // 2, 2)
    top = gap[gap >= np.quantile(gap, 0.9)]
    spots = np.linspace(0.0, 1.0, half)
    at = np.unique(np.concatenate([np.quantile(gap, spots), np.quantile(top, spots)]))
    fitted = np.maximum.accumulate(np.asarray(iso.predict(at), dtype=np.float64))
    return Calibration(
        gap=tuple(round(float(v), 6) for v in at),
        y=tuple(round(float(v), 6) for v in fitted),
        groups=int(pd.Series(np.asarray(group)).nunique()),
    )
