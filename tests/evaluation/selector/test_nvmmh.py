"""nvMatmulHeuristics as a ranking baseline (skipped when the optional package is absent)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.selector.nvmmh import rank_scores


def _candidates() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "tm": [128, 128, 256, 64],
            "tn": [256, 256, 128, 64],
            "tk": [64, 64, 64, 64],
            "cm": [2, 2, 1, 1],
            "cn": [1, 1, 2, 1],
            "schedule": ["cooperative", "pingpong", "cooperative", "pingpong"],
            "is_stream_k": [0, 0, 0, 0],
            "epilogue": ["tma_cooperative", "tma", "tma_cooperative", "nosmem"],
        }
    )


def test_the_ranking_maps_by_tile_and_cluster_then_schedule() -> None:
    ranked = [(256, 128, 64, 1, 2), (128, 256, 64, 2, 1), (64, 64, 64, 2, 1)]
    scores = rank_scores(_candidates(), ranked)
    order = np.argsort(-scores, kind="stable").tolist()
    # 256x128 cluster 1x2 first; 128x256 2x1 next, ping-pong before cooperative; 64x64 with
    # cluster 1x1 matches only by tile, so it comes last.
    assert order == [2, 1, 0, 3]


def test_the_library_ranks_a_large_problem() -> None:
    pytest.importorskip("nvMatmulHeuristics")
    from benchspace.evaluation.selector.nvmmh import ranked_configs

    ranked = ranked_configs(4096, 4096, 4096, "tnn", "h200", count=8)
    assert 1 <= len(ranked) <= 8 and all(len(c) == 5 for c in ranked)
    with pytest.raises(ValueError, match="no mapping for 'a100'"):
        ranked_configs(64, 64, 64, "tnn", "a100")
