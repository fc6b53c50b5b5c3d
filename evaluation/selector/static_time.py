"""A static score for the H200 built on an estimated run time, and the fixed-kernel baseline.

Why the first static score (:func:`evaluation.selector.sampling.static_score`) ranks badly on
the H200: its main term is the wave fill in cluster slots, weighted 1, against 0.2 each for
pipeline depth and tile size. Fill rewards small tiles (many tiles fill the waves), but on the
H200 data the within-group correlation of ``wave_efficiency`` with throughput is negative
(mean rho_g -0.41 over the 16 exhaustive groups) while tile size is what separates good
candidates (``tn`` +0.62, ``tile_intensity`` +0.59, ``producer_consumer_ratio`` +0.57, waves
-0.58). As a selector it lost 35 % against 22 % for one fixed kernel.

This score estimates the kernel's time instead::

    t = W_cl * k_iters * max(t_consumer, t_producer) * b_res

with ``W_cl`` waves of clusters over the resident cluster slots, ``k_iters`` main-loop
iterations per tile, the per-iteration WGMMA and TMA times of the features (the WGMMA time
halved for ping-pong, whose two consumer warpgroups work on two tiles at once), and ``b_res``
CTAs sharing an SM (they share its tensor cores and TMA). ``score = 0.6 * -log t`` plus schedule
terms: ping-pong +0.2 (its epilogue overlaps the next tile's main loop), cooperative +0.04,
Stream-K -0.07 + 0.19 * its idle-tail proxy, a cluster larger than the grid -0.19, -0.12 log
waves, the no-smem epilogue -0.04, the cooperative TMA epilogue +0.04; spill risk -1. The
weights were fitted once (within-group ridge of log y on these terms, training groups of
``evaluation/data/h200`` only) and rounded; they are constants, nothing is trained at run time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.hardware import Hardware

WEIGHTS: dict[str, float] = {
    "neg_log_time": 0.6,
    "pingpong": 0.2,
    "cooperative": 0.04,
    "stream_k": -0.07,
    "stream_k_gain": 0.19,
    "cluster_overshoot": -0.19,
    "log_waves": -0.12,
    "epilogue_nosmem": -0.04,
    "epilogue_tma_cooperative": 0.04,
}
SPILL_PENALTY = 1.0


def estimated_time_ns(features: pd.DataFrame, hw: Hardware) -> np.ndarray:
    """The static run-time estimate ``t`` of each (problem, kernel) row, in nanoseconds."""

    def col(name: str) -> np.ndarray:
        return np.asarray(features[name].to_numpy(), dtype=np.float64)

    cluster = col("cluster_size")
    b_res = np.maximum(col("b_res"), 1.0)
    slots = np.maximum(np.floor(hw.sms * b_res / cluster), 1.0)
    waves = np.ceil(col("clusters") / slots)
    # Ping-pong's two consumer warpgroups work on two tiles at once.
    pingpong = features["schedule"].to_numpy(dtype=object) == "pingpong"
    consumer = np.where(pingpong, col("t_consumer_ns") / 2.0, col("t_consumer_ns"))
    per_iteration = np.maximum(consumer, col("t_producer_ns"))
    return np.asarray(waves * col("k_iters") * per_iteration * b_res, dtype=np.float64)


def time_terms(features: pd.DataFrame, hw: Hardware) -> pd.DataFrame:
    """The terms :data:`WEIGHTS` multiply, one column each."""
    schedule = features["schedule"].to_numpy(dtype=object)
    epilogue = features["epilogue"].to_numpy(dtype=object)
    return pd.DataFrame(
        {
            "neg_log_time": -np.log(estimated_time_ns(features, hw)),
            "pingpong": (schedule == "pingpong").astype(np.float64),
            "cooperative": (schedule == "cooperative").astype(np.float64),
            "stream_k": features["is_stream_k"].to_numpy(dtype=np.float64),
            "stream_k_gain": features["stream_k_gain"].to_numpy(dtype=np.float64),
            "cluster_overshoot": features["cluster_overshoot"].to_numpy(dtype=np.float64),
            "log_waves": np.log(np.maximum(features["waves"].to_numpy(dtype=np.float64), 1.0)),
            "epilogue_nosmem": (epilogue == "nosmem").astype(np.float64),
            "epilogue_tma_cooperative": (epilogue == "tma_cooperative").astype(np.float64),
        },
        index=features.index,
    )


def time_score(features: pd.DataFrame, hw: Hardware) -> pd.Series:
    """The score of each row; higher is better. See the module docstring."""
    terms = time_terms(features, hw)
    score = sum(terms[name].to_numpy() * weight for name, weight in WEIGHTS.items())
    score = np.asarray(score) - SPILL_PENALTY * features["spill_risk"].to_numpy(dtype=np.float64)
    return pd.Series(score, index=features.index, name="time_score")


def fixed_kernel(labels: pd.DataFrame, min_groups: int | None = None) -> str:
    """The one kernel a library without a selector would ship: the best geometric mean of
    ``y = T/T*`` over the groups of ``labels`` among kernels measured in at least
    ``min_groups`` of them (default: a third of the groups)."""
    groups = labels["group"].nunique()
    need = max(1, groups // 3) if min_groups is None else min_groups
    default = labels[(labels["raster"] == "H") & (labels["swizzle"] == 1)]
    stats = default.assign(logy=np.log(default["y"])).groupby("kernel")["logy"]
    table = pd.DataFrame({"mean": stats.mean(), "count": stats.size()})
    table = table[table["count"] >= need]
    if table.empty:
        raise ValueError(f"no kernel was measured in {need} of {groups} groups")
    return str(table["mean"].idxmax())
