"""Pooled vs within-group Spearman correlation, and the split by size, geometry and regime."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.study.correlation import (
    correlation_table,
    regime_table,
    regime_tags,
    within_group_rho,
)


def _simpson() -> tuple[pd.DataFrame, pd.DataFrame]:
    # Within each group more "work" means slower; across groups bigger problems are faster.
    labels = pd.DataFrame(
        {
            "group": ["s"] * 4 + ["l"] * 4,
            "M": [256] * 4 + [8192] * 4,
            "N": [256] * 4 + [8192] * 4,
            "K": [256] * 4 + [8192] * 4,
            "tflops": [40.0, 30.0, 20.0, 10.0, 400.0, 300.0, 200.0, 100.0],
        }
    )
    features = pd.DataFrame(
        {
            "work": [1.0, 2.0, 3.0, 4.0, 101.0, 102.0, 103.0, 104.0],
            "flat": [5.0] * 4 + [7.0] * 4,  # constant within each group
            "good": [4.0, 3.0, 2.0, np.inf, 4.0, 3.0, 2.0, 1.0],
        }
    )
    return features, labels


def test_within_group_rho_by_hand() -> None:
    features, labels = _simpson()
    rho = within_group_rho(features, labels, ["work", "flat", "good"])
    assert rho.index.tolist() == ["l", "s"]
    assert rho["work"].tolist() == pytest.approx([-1.0, -1.0])
    assert rho["flat"].isna().all()  # not computable: the feature does not vary
    # inf ranks above every finite value: ranks 3, 2, 1, 4 against 4, 3, 2, 1 give
    # 1 - 6 * 12 / (4 * 15) = -0.2.
    assert rho.loc["s", "good"] == pytest.approx(-0.2)
    assert rho.loc["l", "good"] == pytest.approx(1.0)


def test_table_contrasts_pooled_and_within_group() -> None:
    features, labels = _simpson()
    table = correlation_table(features, labels, ["work", "flat", "good"]).set_index("feature")
    assert table.loc["work", "global_rho"] > 0.5  # pooled: looks like a good predictor
    assert table.loc["work", "mean_rho_g"] == pytest.approx(-1.0)
    assert table.loc["work", "share_positive"] == 0.0
    assert table.loc["good", "share_positive"] == 0.5
    assert table.loc["flat", "groups"] == 0 and np.isnan(table.loc["flat", "mean_rho_g"])
    # Sorted by |mean rho_g|, non-computable last.
    assert table.index.tolist() == ["work", "good", "flat"]


def test_regime_tags(h200: Hardware) -> None:
    assert regime_tags(256, 256, 256, h200) == ["small", "square", "memory_bound"]
    assert regime_tags(8192, 8192, 8192, h200) == ["large", "square", "compute_bound"]
    assert regime_tags(16384, 512, 64, h200) == ["small", "tall", "skinny_k", "memory_bound"]


def test_regime_table(h200: Hardware) -> None:
    features, labels = _simpson()
    table = regime_table(features, labels, ["work", "good"], h200)
    assert table.loc["groups"].to_dict() == {
        "small": 1,
        "large": 1,
        "square": 2,
        "compute_bound": 1,
        "memory_bound": 1,
    }
    assert table.loc["work", "square"] == pytest.approx(-1.0)
    assert table.loc["good", "large"] == pytest.approx(1.0)
    assert table.loc["good", "small"] == pytest.approx(-0.2)


def test_split_correlation_chooses_groups() -> None:
    from benchspace.evaluation.study.correlation import split_correlation

    features, labels = _simpson()
    labels = labels.assign(split=["train"] * 4 + ["eval"] * 4, exhaustive=[False] * 4 + [True] * 4)
    table, groups = split_correlation(features, labels, ["work", "flat", "good"], "train")
    assert groups == 1 and table["feature"].tolist() == ["work", "good"]  # flat is constant
    assert table["mean_rho_g"].tolist() == pytest.approx([-1.0, -0.2])
    _, groups = split_correlation(features, labels, ["work"], "all", exhaustive_only=True)
    assert groups == 1
    _, groups = split_correlation(features, labels, ["work"], "all")
    assert groups == 2
    with pytest.raises(ValueError, match="split 'test' is not one of train, eval, all"):
        split_correlation(features, labels, ["work"], "test")


def test_the_correlation_command(capsys: pytest.CaptureFixture[str]) -> None:
    from selector_data import FROZEN

    from benchspace.harness.cli import main

    assert main(["cutlass", "correlation", str(FROZEN), "--hardware", "h200", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Spearman correlation with measured TFLOP/s over" in lines[0]
    assert lines[1].split() == ["feature", "rho", "mean", "rho_g", "median", "rho_g", "rho_g", ">",
                                "0", "groups"]  # fmt: skip
    assert len(lines) == 5
