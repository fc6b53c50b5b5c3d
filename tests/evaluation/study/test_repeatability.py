"""The oracle re-timed in a second run of its shape (CRAFTED measurements, nothing measured)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.dataset import exhaustive_groups
from benchspace.evaluation.study.repeatability import (
    largest_run_winners,
    oracle_repeatability,
    repeatability_note,
)


def _rows(group: str, run: str, tflops: dict[str, float], split: str = "eval") -> list[dict]:
    return [
        {"group": group, "run": run, "split": split, "status": "ok", "kernel": k,
         "raster": "H", "swizzle": 1, "tflops": t}
        for k, t in tflops.items()
    ]  # fmt: skip


def test_the_pick_of_the_largest_run_is_timed_again() -> None:
    rows = [
        # Group a: k1 wins the 3-candidate run at 100, then runs at 90 where k2 reaches 100.
        *_rows("a", "x", {"k1": 100.0, "k2": 95.0, "k3": 50.0}),
        *_rows("a", "k", {"k1": 90.0, "k2": 100.0}),
        # Group b: the winner repeats: no loss.
        *_rows("b", "x", {"k1": 10.0, "k2": 20.0, "k3": 5.0}),
        *_rows("b", "k", {"k2": 18.0, "k1": 9.0}),
        # Group c has one run; group d is training data.
        *_rows("c", "x", {"k1": 1.0}),
        *_rows("d", "x", {"k1": 1.0, "k2": 2.0}, "train"),
        *_rows("d", "k", {"k2": 1.0, "k1": 2.0}, "train"),
    ]
    r = oracle_repeatability(pd.DataFrame(rows))
    assert r is not None
    assert r.groups == 2
    assert (r.mean, r.max) == (pytest.approx(0.05), pytest.approx(0.1))
    assert repeatability_note(r).startswith(
        "noise floor: the oracle's pick of one run, timed again in a second run of its shape "
        "(2 groups), loses 5.00% mean"
    )
    train = oracle_repeatability(pd.DataFrame(rows), "train")
    assert train is not None and train.mean == pytest.approx(0.5)
    assert oracle_repeatability(pd.DataFrame(rows).drop(columns=["run"])) is None
    assert oracle_repeatability(pd.DataFrame(_rows("c", "x", {"k1": 1.0}))) is None
    winners = largest_run_winners(pd.DataFrame(rows))
    assert winners.to_dict(orient="list") == {
        "group": ["a", "b", "c"], "kernel": ["k1", "k2", "k1"], "raster": ["H"] * 3,
        "swizzle": [1] * 3,
    }  # fmt: skip
    assert largest_run_winners(pd.DataFrame(rows).drop(columns=["run"])).empty


def test_exhaustive_groups_cover_the_kernels_at_default_knobs() -> None:
    frame = pd.DataFrame(
        {
            "group": ["a"] * 3 + ["b"] * 3,
            "kernel": ["k1", "k2", "k1", "k1", "k1", "k1"],
            "raster": ["H", "H", "M", "H", "M", "N"],
            "swizzle": [1, 1, 2, 1, 2, 4],
            "status": "ok",
        }
    )
    assert exhaustive_groups(frame, 2) == {"a"}
    assert exhaustive_groups(frame, 1) == {"a", "b"}
    assert exhaustive_groups(frame, 40) == set()


def test_a_run_is_exhaustive_over_the_kernels_of_its_call() -> None:
    rows = [
        # Call c1 had k1..k3: run x timed all of them, run t two; c2 had only k1 and k2.
        *_rows("a", "c1/x", {"k1": 1.0, "k2": 1.0, "k3": 1.0}),
        *_rows("b", "c1/t", {"k1": 1.0, "k2": 1.0}),
        *_rows("c", "c2/t", {"k1": 1.0, "k2": 1.0}),
        *_rows("d", "c2/t2", {"k2": 1.0}),
    ]
    assert exhaustive_groups(pd.DataFrame(rows), 3) == {"a", "c"}
