"""Sampling policies (determinism, limits), the static score and sample_grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.features import features_for_pairs
from benchspace.evaluation.selector.sampling import (
    SamplingPolicy,
    biased_diverse,
    parse_sample,
    sample_grid,
    static_score,
    static_top,
    uniform,
)
from benchspace.harness.errors import SpaceError

POOL = [f"k{i:03d}" for i in range(200)]
SCORES = [float((i * 37) % 200) for i in range(200)]  # a permutation of 0..199


def test_uniform_is_deterministic_for_a_seed() -> None:
    first = uniform(POOL, 50, seed=7)
    assert first == uniform(POOL, 50, seed=7)
    assert first != uniform(POOL, 50, seed=8)
    assert len(set(first)) == 50 and set(first) <= set(POOL)
    assert first == [name for name in POOL if name in set(first)]  # pool order


def test_biased_diverse_is_deterministic_for_a_seed() -> None:
    first = biased_diverse(POOL, 40, SCORES, alpha=0.5, seed=3)
    assert first == biased_diverse(POOL, 40, SCORES, alpha=0.5, seed=3)
    assert first != biased_diverse(POOL, 40, SCORES, alpha=0.5, seed=4)


@pytest.mark.parametrize("budget", [200, 201, 10_000])
def test_budget_at_least_the_pool_returns_the_pool(budget: int) -> None:
    assert uniform(POOL, budget, seed=1) == POOL
    assert static_top(POOL, budget, SCORES) == POOL
    assert biased_diverse(POOL, budget, SCORES, alpha=0.75, seed=1) == POOL


def test_static_top_takes_the_highest_scores() -> None:
    top = static_top(POOL, 10, SCORES)
    assert sorted(SCORES[POOL.index(n)] for n in top) == [float(s) for s in range(190, 200)]
    # Ties keep pool order; a mapping of scores works as well as a list.
    assert static_top(["a", "b", "c"], 2, {"a": 1.0, "b": 2.0, "c": 1.0}) == ["a", "b"]


def test_alpha_one_is_static_top() -> None:
    assert biased_diverse(POOL, 30, SCORES, alpha=1.0, seed=5) == static_top(POOL, 30, SCORES)


def test_alpha_zero_is_uniform() -> None:
    assert biased_diverse(POOL, 30, SCORES, alpha=0.0, seed=5) == uniform(POOL, 30, seed=5)


def test_biased_diverse_mixes_top_and_rest() -> None:
    chosen = biased_diverse(POOL, 40, SCORES, alpha=0.75, seed=2)
    assert len(set(chosen)) == 40
    top30 = set(static_top(POOL, 30, SCORES))
    assert top30 <= set(chosen)
    rest = set(chosen) - top30
    assert len(rest) == 10
    assert all(SCORES[POOL.index(n)] < 170 for n in rest)  # drawn outside the top 30


def test_invalid_policy_arguments() -> None:
    with pytest.raises(ValueError, match=r"alpha 1\.5 must lie in \[0, 1\]"):
        biased_diverse(POOL, 10, SCORES, alpha=1.5)
    with pytest.raises(ValueError, match=r"3 scores for a pool of 200"):
        static_top(POOL, 10, [1.0, 2.0, 3.0])


def test_static_score_by_hand(h200: Hardware) -> None:
    name = (
        "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x256x64_1x2x1_0_tnn_align8"
        "_warpspecialized_cooperative_epi_tma"
    )
    pairs = records_frame([parse_kernel_name(name)]).assign(M=4096, N=4096, K=4096)
    score = static_score(features_for_pairs(pairs, h200), h200).iloc[0]
    # n_c = 32 * ceil(16/2) = 256 clusters; 132 // 2 = 66 at once; W = ceil(256/66) = 4;
    # fill 256 / (4*66); every CTA owns a tile; 4 stages; tile intensity 128*256/384.
    expected = 256 / 264 * 1.0 + 0.2 * 4 / 8 + 0.2 * (128 * 256 / 384) / 128
    assert score == pytest.approx(expected)


def test_static_score_ranks_spilling_kernels_last(catalogue: pd.DataFrame, h200: Hardware) -> None:
    pairs = catalogue.assign(M=4096, N=4096, K=4096)
    features = features_for_pairs(pairs, h200)
    scores = static_score(features, h200)
    spilling = features["spill_risk"] == 1
    assert spilling.any()
    assert scores[spilling].max() < scores[~spilling].min()
    unpenalised = static_score(features, h200, penalise_spill=False)
    assert (unpenalised[spilling] - scores[spilling]).eq(1.0).all()


def test_sample_grid(catalogue: pd.DataFrame, h200: Hardware) -> None:
    names = list(catalogue[catalogue["layout"] == "tnn"]["name"])
    case = {"M": 4096, "N": 4096, "K": 4096}
    sample = {"policy": "biased_diverse", "budget": 20, "alpha": 0.75, "seed": 1}
    chosen = sample_grid(names, case, sample, h200)
    assert len(chosen) == 20 and set(chosen) <= set(names)
    assert chosen == [n for n in names if n in set(chosen)]  # grid order
    assert chosen == sample_grid(names, case, sample, h200)
    other_case = sample_grid(names, {"m": 256, "n": 8192, "k": 8192}, sample, h200)
    assert other_case != chosen
    top = sample_grid(names, case, {"policy": "static_top", "budget": 20}, h200)
    spills = {n for n in names if parse_kernel_name(n).tm * parse_kernel_name(n).tn >= 256 * 256}
    assert not spills & set(top)
    assert sample_grid(names, case, SamplingPolicy(policy="uniform", budget=500), h200) == names


@pytest.mark.parametrize(
    ("case", "sample", "message"),
    [
        ({"M": 1, "N": 1, "K": 1}, {"policy": "best", "budget": 5},
         r"^s\.json: \$\.cases\[0\]\.sample\.policy: 'best' is not one of uniform, static_top"),
        ({"M": 1, "N": 1, "K": 1}, {"policy": "uniform", "budget": 0},
         r"\.sample\.budget: 0 must be a positive integer"),
        ({"M": 1, "N": 1, "K": 1}, {"policy": "uniform", "budget": 5, "alfa": 1},
         r"\.sample: unknown key\(s\) \['alfa'\]"),
        ({"M": 1, "N": 1}, {"policy": "uniform", "budget": 5},
         r"^s\.json: \$\.cases\[0\]\.fixed: no K \(or k\); a sampled CUTLASS grid needs"),
        ({"M": 1, "N": 1, "K": "x"}, {"policy": "uniform", "budget": 5},
         r"^s\.json: \$\.cases\[0\]\.fixed\.K: 'x' must be a positive integer$"),
    ],
)  # fmt: skip
def test_sample_grid_errors(
    case: dict[str, object], sample: dict[str, object], message: str, h200: Hardware
) -> None:
    with pytest.raises(SpaceError, match=message):
        sample_grid(["a", "b"], case, sample, h200, where="s.json: $.cases[0]")  # type: ignore[arg-type]


def test_sample_grid_names_a_bad_kernel(h200: Hardware) -> None:
    sample = {"policy": "static_top", "budget": 1}
    with pytest.raises(
        SpaceError, match=r"^s\.json: \$\.cases\[0\]: grid value 'bogus' is not an SM90"
    ):
        sample_grid(
            ["bogus", "x"], {"M": 1, "N": 1, "K": 1}, sample, h200, where="s.json: $.cases[0]"
        )


def test_parse_sample_defaults() -> None:
    spec = parse_sample({"policy": "biased_diverse", "budget": 2000})
    assert spec == SamplingPolicy(policy="biased_diverse", budget=2000, alpha=0.75, seed=0)
    assert np.isclose(spec.alpha, 0.75)
