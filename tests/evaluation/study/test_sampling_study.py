"""Sampling regret and discovery by policy and budget on hand-built exhaustive groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.study.sampling_study import (
    SEED_CATALOGUE,
    SEED_P05,
    SEED_REGRET,
    sampling_study,
    scaled_budget,
)


def _groups(n: int = 60, groups: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    frames, scores = [], []
    for g in range(groups):
        t = rng.uniform(10, 100, n)
        t[g] = 200.0  # one needle per group
        frames.append(pd.DataFrame({"group": f"g{g}", "tflops": t}))
        s = -np.arange(n, dtype=float)
        s[g] = 1e9  # the static score knows the needle
        scores.append(s)
    return pd.concat(frames, ignore_index=True), np.concatenate(scores)


def test_scaled_budget() -> None:
    assert scaled_budget(2000, SEED_CATALOGUE) == 2000
    assert scaled_budget(2000, 600) == 79
    assert scaled_budget(1000, 10) == 1


def test_seed_numbers_are_the_studys() -> None:
    assert SEED_REGRET["uniform"][2000] == 0.085
    assert SEED_REGRET["static_top"][2000] == 0.006
    assert SEED_REGRET["biased_diverse"][2000] == 0.009
    assert (SEED_P05["uniform"][2000], SEED_P05["static_top"][2000]) == (0.256, 0.971)
    assert SEED_P05["biased_diverse"][2000] == 0.913


def test_policies_budgets_and_alpha() -> None:
    frame, scores = _groups()
    study = sampling_study(frame, scores, seed=0, repetitions=20, absolute_budgets=(1, 5, 100))
    assert study.catalogue_size == 60 and study.groups == 3
    curves = study.curves.set_index(["policy", "budget"])
    # Budgets: the absolute ones below the pool size, plus 1000/2000/3000 of 15132 scaled to 60.
    assert sorted({b for _, b in curves.index}) == [1, 4, 5, 8, 12]
    assert curves.loc[("uniform", 8), "seed_budget"] == 2000
    # The static score ranks each needle first: static top-B never misses it.
    for b in (1, 4, 5, 8, 12):
        assert curves.loc[("static_top", b), "regret"] == 0.0
        assert curves.loc[("static_top", b), "p01"] == 1.0
    # Uniform with one draw: regret is the mean loss, around a half here; it shrinks with B.
    assert curves.loc[("uniform", 1), "regret"] > curves.loc[("uniform", 12), "regret"]
    assert 0.0 <= curves.loc[("uniform", 12), "p05"] < 1.0
    # Biased-diverse at alpha 0.75 takes the top round(0.75 B): from B = 2 on it finds the needle.
    assert curves.loc[("biased_diverse", 4), "regret"] == 0.0
    alpha = study.alpha.set_index("alpha")
    assert study.alpha_budget == 8
    assert alpha.loc[1.0, "regret"] == 0.0 and alpha.loc[0.0, "regret"] > 0.0
    comp = study.competitive.set_index("epsilon")
    assert comp.loc[0.01, "mean"] == pytest.approx(1 / 60)


def test_repeatable_for_a_seed() -> None:
    frame, scores = _groups()
    a = sampling_study(frame, scores, seed=3, repetitions=10)
    b = sampling_study(frame, scores, seed=3, repetitions=10)
    pd.testing.assert_frame_equal(a.curves, b.curves)
    pd.testing.assert_frame_equal(a.alpha, b.alpha)


def test_empty_frame_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one exhaustively measured group"):
        sampling_study(pd.DataFrame({"group": [], "tflops": []}), np.array([]))
