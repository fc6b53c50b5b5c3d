"""The score-gap -> predicted T/T* calibration."""

from __future__ import annotations

import numpy as np
import pytest

from benchspace.evaluation.selector.calibration import Calibration, fit_calibration, score_gaps


def test_gaps_are_relative_to_each_groups_best() -> None:
    gaps = score_gaps(np.array(["a", "a", "b", "b"]), np.array([1.0, 3.0, -1.0, -2.0]))
    assert gaps.tolist() == [-2.0, 0.0, 0.0, -1.0]


def test_fit_is_monotone_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    group = np.repeat(np.arange(20), 30)
    score = rng.normal(size=len(group))
    y = np.clip(1.0 + 0.2 * (score - 2.0) + rng.normal(0, 0.02, len(group)), 0.01, 1.0)
    cal = fit_calibration(group, score, y, knots=16)
    assert len(cal.gap) <= 16 and list(cal.gap) == sorted(cal.gap)
    assert all(b >= a for a, b in zip(cal.y, cal.y[1:], strict=False))
    assert cal.groups == 20 and cal.y[-1] <= 1.0
    again = Calibration.from_json(cal.to_json())
    np.testing.assert_array_equal(
        again.predict(np.array([-3.0, -0.5])), cal.predict(np.array([-3.0, -0.5]))
    )


def test_predict_interpolates_and_clamps() -> None:
    cal = Calibration(gap=(-2.0, 0.0), y=(0.5, 0.9))
    assert cal.predict(np.array([-4.0, -1.0, 1.0])).tolist() == pytest.approx([0.5, 0.7, 0.9])
    with pytest.raises(ValueError, match="sorted by gap"):
        Calibration.from_json({"gap": [0.0, -1.0], "y": [1.0, 0.5]})
