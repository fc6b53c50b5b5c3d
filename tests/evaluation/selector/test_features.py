"""Static features checked against hand-computed values for chosen (shape, config) pairs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.features import (
    CATEGORICAL_FEATURES,
    compute_features,
    cross_pairs,
    features_for_pairs,
    numeric_feature_names,
)

PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_"
STREAM_K = (
    f"{PREFIX}void_bf16_128x256x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_tma"
)
OVERSHOOT = (
    f"{PREFIX}bf16_bf16_256x128x64_2x1x1_0_tnn_align8_warpspecialized_cooperative_epi_nosmem"
)
PINGPONG = f"{PREFIX}bf16_bf16_64x256x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"


def features(name: str, m: int, n: int, k: int, hw: Hardware, beta: float = 0.0) -> pd.Series:
    pairs = records_frame([parse_kernel_name(name)]).assign(M=m, N=n, K=k, beta=beta)
    return features_for_pairs(pairs, hw).iloc[0]


def test_the_kernels_are_in_the_catalogue(catalogue: pd.DataFrame) -> None:
    assert {STREAM_K, OVERSHOOT, PINGPONG} <= set(catalogue["name"])


def test_stream_k_square(h200: Hardware) -> None:
    f = features(STREAM_K, 4096, 4096, 4096, h200)
    # Grid: 4096/128 = 32 row tiles, 4096/256 = 16 column tiles, 4096/64 = 64 k-iterations.
    assert (f["n_m"], f["n_n"], f["tiles"], f["k_iters"]) == (32, 16, 512, 64)
    assert (f["waste_m"], f["waste_n"], f["waste_k"]) == (0.0, 0.0, 0.0)
    # Stages: stage (128+256)*64*2 + 16 = 49168 bytes; cooperative TMA epilogue with void C:
    # 128x32 epilogue tile, 2 D buffers of 8192 B -> 17408 (1 KiB aligned) + 4 C-stage
    # barriers -> 18432 carve-out; (232448 - 18432) // 49168 = 4.
    assert f["smem_epilogue"] == 18432
    assert f["stages_resolved"] == 4
    assert f["smem_per_stage"] == 49152
    # Total: 4*49152 + 17408 + barriers (4*16 + 4*16 + 160) = 214304 -> 215040 (nvcc: 215040).
    assert f["smem_total"] == 215040
    assert f["f_smem"] == pytest.approx(215040 / 233472)
    assert f["stages_x_f_smem"] == pytest.approx(4 * 215040 / 233472)
    # Residency: 233472 // (215040 + 1024) = 1; registers 65536 // (384 * 168) = 1.
    assert (f["b_smem"], f["b_reg"], f["b_res"]) == (1, 1, 1)
    assert f["acc_per_thread"] == 128  # 128*256 / 256 threads of two consumer warpgroups
    # Waves: ceil(512 / 132) = 4; efficiency 512 / (4*132) = 0.9697; Stream-K proxy 0.0303.
    assert f["waves"] == 4
    assert f["wave_efficiency"] == pytest.approx(512 / 528)
    assert f["stream_k_proxy"] == pytest.approx(16 / 528)
    assert f["is_stream_k"] == 1
    assert f["stream_k_gain"] == pytest.approx(16 / 528)
    # Clusters 1x2: 32 * ceil(16/2) = 256 clusters, no idle CTA, no overshoot.
    assert (f["clusters"], f["cluster_waste"], f["cluster_overshoot"]) == (256, 0.0, 0)
    # Intensity: 2*4096^3 / (2*4096^2 * 2 (A, B) + 2*4096^2 (D)) = 4096/3.
    assert f["arithmetic_intensity"] == pytest.approx(4096 / 3)
    assert f["ai_over_ridge"] == pytest.approx(4096 / 3 / (989.4e12 / 4.8e12))
    assert f["tile_intensity"] == pytest.approx(128 * 256 / (128 + 256))
    # Re-streaming: A read 16 times, B 32 times: 2*4096^2*(16+32) bytes, factor 24.
    assert f["restream_bytes"] == 2 * 4096**2 * 48
    assert f["restream_factor"] == 24
    assert f["working_set_over_llc"] == pytest.approx(3 * 2 * 4096**2 / 62914560)
    # Producer 49152 B / 126.72 GB/s; consumer 2*128*256*64 flop / (2 * 3.748 TFLOP/s).
    t_producer = 49152 / 1.2672e11
    t_consumer = 2 * 128 * 256 * 64 / (2 * 3.748e12)
    assert f["producer_consumer_ratio"] == pytest.approx(t_consumer / t_producer)
    assert f["pipeline_fill"] == 64 / 4
    assert f["stage_amortisation"] == 64 * 4 / 4  # persistent: 4 tiles per CTA
    assert f["spill_risk"] == 0
    assert (f["schedule"], f["epilogue"]) == ("cooperative", "tma_cooperative")


def test_tile_and_cluster_overshoot_the_grid(h200: Hardware) -> None:
    f = features(OVERSHOOT, 100, 300, 1000, h200)
    # One 256-row tile covers M = 100; cluster 2x1 needs two: overshoot.
    assert (f["n_m"], f["n_n"], f["tiles"], f["k_iters"]) == (1, 3, 3, 16)
    assert f["waste_m"] == pytest.approx((256 - 100) / 256)
    assert f["waste_n"] == pytest.approx((384 - 300) / 384)
    assert f["waste_k"] == pytest.approx((1024 - 1000) / 1024)
    assert f["useful_fraction"] == pytest.approx(100 * 300 * 1000 / (256 * 384 * 1024))
    assert f["cluster_overshoot"] == 1
    assert f["cluster_fill_m"] == 0.5
    # ceil(1/2) * ceil(3/1) = 3 clusters of 2 CTAs for 3 tiles: half idle.
    assert (f["clusters"], f["cluster_waste"]) == (3, 0.5)
    # One wave of 3 tiles on 132 SMs.
    assert (f["waves"], f["wave_efficiency"]) == (1, pytest.approx(3 / 132))
    # No-smem epilogue: carve-out 128; (232448 - 128) // ((256+128)*64*2 + 16) = 4 stages;
    # total 4*49152 + 4*16 + 160 = 196832 -> 196864 (nvcc: 196864).
    assert (f["stages_resolved"], f["smem_total"]) == (4, 196864)
    # beta = 0: C is not read although the kernel has a bf16 C.
    flops = 2 * 100 * 300 * 1000
    assert f["c_read"] == 0
    assert f["arithmetic_intensity"] == pytest.approx(
        flops / (2 * (100 * 1000 + 1000 * 300) + 2 * 100 * 300)
    )
    with_c = features(OVERSHOOT, 100, 300, 1000, h200, beta=1.0)
    assert with_c["c_read"] == 1
    assert with_c["arithmetic_intensity"] == pytest.approx(
        flops / (2 * (100 * 1000 + 1000 * 300) + 2 * 2 * 100 * 300)
    )
    assert f["pipeline_fill"] == 16 / 4


def test_pingpong_with_edges(h200: Hardware) -> None:
    f = features(PINGPONG, 2048, 1000, 520, h200, beta=1.0)
    # 2048/64 = 32, ceil(1000/256) = 4, ceil(520/64) = 9 k-iterations (576 deep, 56 wasted).
    assert (f["n_m"], f["n_n"], f["tiles"], f["k_iters"]) == (32, 4, 128, 9)
    assert f["waste_k"] == pytest.approx(56 / 576)
    # Ping-pong TMA epilogue, bf16 C reuses D's buffers: 64x32 tile, 8 epilogue tiles,
    # max(min(8, 4), 3) = 4 C stages: 64*32*4*2 = 16384 -> 17408 + 64 -> 18432 carve-out;
    # (232448 - 18432) // ((64+256)*64*2 + 16 = 40976) = 5 stages (nvcc: 5).
    assert (f["smem_epilogue"], f["stages_resolved"]) == (18432, 5)
    # 5*40960 + 17408 + (5*16 + 64 + 224) = 222576 -> 223232 (nvcc: 223232).
    assert f["smem_total"] == 223232
    assert f["acc_per_thread"] == 64 * 256 // 128
    assert (f["waves"], f["wave_efficiency"]) == (1, pytest.approx(128 / 132))
    assert (f["clusters"], f["cluster_waste"]) == (32 * 2, 0.0)
    # Ping-pong: one consumer warpgroup per tile.
    t_producer = (64 + 256) * 64 * 2 / 1.2672e11
    t_consumer = 2 * 64 * 256 * 64 / 3.748e12
    assert f["producer_consumer_ratio"] == pytest.approx(t_consumer / t_producer)
    assert f["pipeline_fill"] == pytest.approx(9 / 5)
    assert f["c_read"] == 1


def test_cross_join_pairs_matching_layouts(catalogue: pd.DataFrame, h200: Hardware) -> None:
    problems = pd.DataFrame({"M": [4096, 256], "N": [4096, 8192], "K": [4096, 8192],
                             "layout": ["tnn", "nnn"]})  # fmt: skip
    out = compute_features(problems, catalogue, h200)
    assert len(out) == 2 * 118
    assert set(out[out["problem"] == 1]["layout"]) == {"nnn"}
    assert list(out["problem"]) == [0] * 118 + [1] * 118
    without_layout = cross_pairs(problems[["M", "N", "K"]], catalogue)
    assert len(without_layout) == 2 * 472


def test_features_are_finite_and_typed(catalogue: pd.DataFrame, h200: Hardware) -> None:
    problems = pd.DataFrame({"M": [32, 16384], "N": [16384, 32], "K": [16384, 32]})
    out = compute_features(problems, catalogue, h200)
    numeric = numeric_feature_names(out)
    assert not set(numeric) & set(CATEGORICAL_FEATURES)
    values = out[numeric].to_numpy(dtype=float)
    assert all(math.isfinite(v) for v in values.ravel())
    assert (out["b_res"] >= 1).all()
    assert (out["stages_resolved"] >= 2).all()


def test_missing_columns_are_named(h200: Hardware) -> None:
    with pytest.raises(ValueError, match=r"pairs lack column\(s\) \['M'"):
        features_for_pairs(pd.DataFrame({"name": ["x"]}), h200)
