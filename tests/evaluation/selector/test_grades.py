"""Noise bands, grades and top-focused relevance, checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.selector.grades import (
    G_MAX,
    band_indices,
    label_groups,
    relevance,
    within_fraction,
)


def test_adjacent_candidates_within_twice_the_pooled_spread_share_a_band() -> None:
    # Sorted: 100, 99, 90, 89.5, 50. Pooled sd of (1, 1) is 1: 100-99 = 1 < 2 merges;
    # 99-90 = 9 splits; 90-89.5 merges; 89.5-50 splits.
    t = np.array([90.0, 100.0, 50.0, 99.0, 89.5])
    s = np.ones(5)
    assert band_indices(t, s).tolist() == [1, 0, 2, 0, 1]


def test_pooled_spread_is_the_root_mean_square() -> None:
    # sd 0 and 2: pooled sqrt((0 + 4) / 2) = 1.414; the gap 2.5 < 2.83 merges, 3 does not.
    assert band_indices(np.array([10.0, 7.5]), np.array([0.0, 2.0])).tolist() == [0, 0]
    assert band_indices(np.array([10.0, 7.0]), np.array([0.0, 2.0])).tolist() == [0, 1]


def test_bands_chain_and_missing_spread_only_merges_ties() -> None:
    # A chain of small steps is one band even though its ends are far apart.
    t = np.array([10.0, 9.0, 8.0, 7.0])
    assert band_indices(t, np.ones(4)).tolist() == [0, 0, 0, 0]
    assert band_indices(t, np.full(4, np.nan)).tolist() == [0, 1, 2, 3]
    assert band_indices(np.array([5.0, 5.0, 4.0]), np.zeros(3)).tolist() == [0, 0, 1]
    assert band_indices(np.array([]), np.array([])).tolist() == []


def test_relevance_is_top_focused() -> None:
    bands = np.array([0, 1, 2, 5])
    assert relevance(bands, 2).tolist() == [2, 1, 0, 0]
    assert relevance(bands, 1).tolist() == [1, 0, 0, 0]
    assert relevance(bands, 3).tolist() == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="bands 0 must be at least 1"):
        relevance(bands, 0)


def test_label_groups_per_group() -> None:
    frame = pd.DataFrame(
        {
            "group": ["a", "a", "a", "b", "b"],
            "tflops": [50.0, 100.0, 99.5, 10.0, 40.0],
            "tflops_sd": [0.1, 0.5, 0.5, 0.0, 0.0],
        },
        index=[7, 8, 9, 10, 11],
    )
    out = label_groups(frame)
    assert out.index.tolist() == [7, 8, 9, 10, 11]
    assert out["y"].tolist() == pytest.approx([0.5, 1.0, 0.995, 0.25, 1.0])
    assert out["band"].tolist() == [1, 0, 0, 1, 0]
    assert out["grade"].tolist() == [G_MAX - 1, G_MAX, G_MAX, G_MAX - 1, G_MAX]
    assert out["rel"].tolist() == [1, 2, 2, 1, 2]


def test_grades_clip_at_zero() -> None:
    frame = pd.DataFrame({"group": "g", "tflops": np.arange(40.0, 0.0, -1.0), "tflops_sd": 0.0})
    out = label_groups(frame)
    assert out["band"].max() == 39 and out["grade"].min() == 0


def test_within_fraction() -> None:
    assert within_fraction(np.array([1.0, 0.995, 0.95, 0.5]), 0.01) == 0.5
    assert within_fraction(np.array([1.0, 0.995, 0.95, 0.5]), 0.05) == 0.75


def test_linear_grades_follow_throughput_above_the_floor() -> None:
    from benchspace.evaluation.selector.grades import linear_grades

    y = np.array([1.0, 0.97, 0.85, 0.7, 0.2])
    # floor 0.7, 10 levels: (y - 0.7) / 0.3 * 10 -> 10, 9, 5, 0, 0.
    assert linear_grades(y, 10, 0.7).tolist() == [10, 9, 5, 0, 0]
    assert linear_grades(y).max() == 31
    with pytest.raises(ValueError, match=r"levels 32 must be in 1\.\.31"):
        linear_grades(y, 32)
    with pytest.raises(ValueError, match=r"floor 1\.0 must be in"):
        linear_grades(y, 10, 1.0)
