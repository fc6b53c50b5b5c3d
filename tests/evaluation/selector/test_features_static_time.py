"""Feature set 2: the static time estimate, quantisation and the knob columns, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.encoding import candidate_features, feature_spec
from benchspace.evaluation.selector.features import FEATURE_VERSION, features_for_pairs
from benchspace.evaluation.selector.static_time import estimated_time_ns

PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_"
STREAM_K = (
    f"{PREFIX}void_bf16_128x256x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_tma"
)
PINGPONG = f"{PREFIX}bf16_bf16_64x256x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"


def features(name: str, m: int, n: int, k: int, hw: Hardware) -> pd.Series:
    pairs = records_frame([parse_kernel_name(name)]).assign(M=m, N=n, K=k)
    return features_for_pairs(pairs, hw).iloc[0]


def test_static_time_features_of_a_square_stream_k_gemm(h200: Hardware) -> None:
    f = features(STREAM_K, 4096, 4096, 4096, h200)
    # Cluster 1x2, one CTA per SM: floor(132 / 2) = 66 cluster slots; 32 * 8 = 256 clusters
    # make 256 / 66 = 3.88 waves, 4 whole ones, 4 * 64 k-iterations per slot.
    assert f["cluster_slots"] == 66
    assert f["cluster_waves_fractional"] == pytest.approx(256 / 66)
    assert (f["cluster_waves"], f["mainloop_iterations"]) == (4, 256)
    assert f["cluster_wave_efficiency"] == pytest.approx(256 / 66 / 4)
    # Cooperative: the WGMMA time of two consumers, 2*128*256*64 / (2 * 3.748 TFLOP/s),
    # exceeds the TMA time 49152 B / 126.72 GB/s.
    iteration = 2 * 128 * 256 * 64 / (2 * 3.748e12) * 1e9
    assert f["iteration_ns"] == pytest.approx(iteration)
    assert f["est_time_ns"] == pytest.approx(4 * 64 * iteration)
    ideal = 2 * 4096**3 / 989.4e12 * 1e9
    assert f["est_efficiency"] == pytest.approx(ideal / (4 * 64 * iteration))
    # Compute-bound: the roofline time is the compute time.
    assert f["est_roofline_efficiency"] == pytest.approx(f["est_efficiency"])
    # Wave quantisation: 512 tiles over 132 / 2 cluster positions.
    assert f["wave_quantisation"] == pytest.approx(512 / 66)
    assert f["wave_quantisation_efficiency"] == pytest.approx(512 / 66 / 8)
    assert (f["tile_efficiency_m"], f["tile_efficiency_n"], f["tile_efficiency_k"]) == (1, 1, 1)
    assert f["padding_waste"] == 0.0
    assert f["bytes_per_flop"] == pytest.approx(3 / 4096)
    assert f["tile_ai_over_ridge"] == pytest.approx(128 * 256 / 384 / (989.4e12 / 4.8e12))


def test_pingpong_halves_the_consumer_time_and_edges_quantise(h200: Hardware) -> None:
    f = features(PINGPONG, 2048, 1000, 520, h200)
    # Ping-pong: the WGMMA time 2*64*256*64 / 3.748 TFLOP/s halved (two tiles at once) is
    # below the TMA time (64+256)*64*2 B / 126.72 GB/s, which sets the iteration.
    assert f["iteration_ns"] == pytest.approx((64 + 256) * 64 * 2 / 1.2672e11 * 1e9)
    assert f["tile_efficiency_n"] == pytest.approx(1000 / 1024)
    assert f["tile_efficiency_k"] == pytest.approx(520 / 576)
    assert f["padding_waste"] == pytest.approx(1 - 2048 * 1000 * 520 / (2048 * 1024 * 576))
    # The feature is the estimate the static score uses.
    frame = features_for_pairs(
        records_frame([parse_kernel_name(PINGPONG)]).assign(M=2048, N=1000, K=520), h200
    )
    assert frame["est_time_ns"].to_numpy() == pytest.approx(estimated_time_ns(frame, h200))


def test_knobs_default_and_are_features(h200: Hardware) -> None:
    configs = records_frame([parse_kernel_name(STREAM_K)])
    plain = pd.DataFrame({"M": [4096], "N": [4096], "K": [4096], "kernel": [STREAM_K]})
    out = candidate_features(plain, configs, h200)
    assert (out["raster"].iloc[0], out["swizzle"].iloc[0]) == ("H", 1.0)
    assert (out["splits"].iloc[0], out["decomposition"].iloc[0]) == (1.0, "H")
    knobs = plain.assign(raster="M", swizzle=4, splits=2, decomposition="K")
    both = pd.concat([plain, knobs], ignore_index=True)
    out = candidate_features(both, configs, h200)
    assert out["splits"].tolist() == [1.0, 2.0]
    assert out["decomposition"].tolist() == ["H", "K"]
    spec = feature_spec(out)
    assert spec.version == FEATURE_VERSION == 2
    assert {"splits", "swizzle", "est_efficiency"} <= set(spec.numeric)
    assert ("decomposition", ("H", "K")) in spec.categorical
    assert type(spec).from_json(spec.to_json()) == spec
    old = {k: v for k, v in spec.to_json().items() if k != "version"}
    assert type(spec).from_json(old).version == 1  # files written before the field


def test_the_shipped_version_1_selector_still_loads_and_scores(h200: Hardware) -> None:
    from benchspace.evaluation.deploy.select import rank_shape
    from benchspace.evaluation.selector.model_file import SHIPPED, load_selector

    selector = load_selector(SHIPPED / "h200_selector.json")  # v1 (the default is v2's now)
    assert selector.spec.version == 1
    ranked = rank_shape(selector, 4096, 4096, 4096)
    assert len(ranked) == len(selector.candidates) and ranked["score"].notna().all()
