"""The H200 static time score and the fixed-kernel baseline."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.features import compute_features
from benchspace.evaluation.selector.static_time import (
    WEIGHTS,
    estimated_time_ns,
    fixed_kernel,
    time_score,
    time_terms,
)

PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
BIG = PREFIX + "128x256x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"
SMALL = PREFIX + "64x16x64_1x1x1_0_tnn_align8_warpspecialized_epi_nosmem"
PING = PREFIX + "128x128x64_1x1x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"


def _features(h200: Hardware, shape: tuple[int, int, int]) -> pd.DataFrame:
    configs = records_frame(parse_kernel_name(n) for n in (BIG, SMALL, PING))
    configs = configs.assign(regs=np.nan, spill_stores=0, spill_loads=0, smem_bytes=np.nan)
    problems = pd.DataFrame([{"M": shape[0], "N": shape[1], "K": shape[2]}])
    return compute_features(problems, configs, h200).set_index("name")


def test_large_problems_prefer_large_tiles_over_full_waves(h200: Hardware) -> None:
    # The v1 score's wave-fill term preferred the small tile here; the time estimate does not.
    f = _features(h200, (8192, 8192, 8192))
    score = time_score(f, h200)
    assert score[BIG] > score[SMALL] and score[PING] > score[SMALL]
    assert estimated_time_ns(f, h200)[list(f.index).index(SMALL)] > estimated_time_ns(f, h200)[0]


def test_the_score_is_the_weighted_sum_of_its_terms(h200: Hardware) -> None:
    f = _features(h200, (1024, 512, 4096))
    terms = time_terms(f, h200)
    assert list(terms.columns) == list(WEIGHTS)
    expected = terms.to_numpy() @ np.array(list(WEIGHTS.values())) - f["spill_risk"].to_numpy()
    np.testing.assert_allclose(time_score(f, h200).to_numpy(), expected)
    assert terms.loc[PING, "pingpong"] == 1 and terms.loc[BIG, "cooperative"] == 1


def test_fixed_kernel_is_the_best_geometric_mean() -> None:
    labels = pd.DataFrame(
        {
            "group": ["a", "a", "b", "b", "c"],
            "kernel": ["k1", "k2", "k1", "k2", "k3"],
            "raster": "H",
            "swizzle": 1,
            "y": [1.0, 0.9, 0.5, 1.0, 1.0],
        }
    )
    # Among kernels in 2 groups: sqrt(1.0 * 0.9) > sqrt(0.5 * 1.0), so k2.
    assert fixed_kernel(labels, min_groups=2) == "k2"
    assert fixed_kernel(labels) == "k3"  # a third of 3 groups is 1: k3's one group counts
    with pytest.raises(ValueError, match="no kernel was measured in 4 of 3 groups"):
        fixed_kernel(labels, min_groups=4)
