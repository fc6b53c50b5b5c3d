"""NVIDIA's own heuristic as a ranking baseline: nvMatmulHeuristics mapped onto our catalogue.

``nvidia-matmul-heuristics`` (optional extra ``nvmmh``; NVIDIA's proprietary licence, so it is
never a required dependency) ranks CUTLASS 3 configurations for a problem on a named GPU
without running anything: CTA tile, cluster, stages, split-K, swizzle. It does not choose the
kernel or epilogue schedule. Its ranking becomes a score over our candidates: a candidate whose
tile (TM, TN, TK) and cluster (CM, CN) match the ``r``-th configuration of the list (first match)
scores by ``r``; ties between our kernels of that tile and cluster go by schedule (ping-pong,
cooperative, plain, Stream-K) and then epilogue (TMA, cooperative TMA, no-smem); candidates
whose tile and cluster are not in the list rank after those whose tile alone is, and those
after every listed one. Layout ``tnn`` (A row-major, B and D column-major) is BLAS ``TN`` in
column-major terms; precision ``TST`` (bf16 inputs and output, f32 compute).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

GPU = {"h200": "H200_SXM", "gh200": "GH200_SXM", "h100": "H100_SXM"}
"""Our hardware descriptor names -> the library's GPU enum."""
LAYOUT = {
    "tnn": "TN_COL_MAJOR",
    "ntn": "NT_COL_MAJOR",
    "nnn": "NN_COL_MAJOR",
    "ttn": "TT_COL_MAJOR",
}
SCHEDULE_ORDER = {"pingpong": 0, "cooperative": 1, "warpspecialized": 2}
EPILOGUE_ORDER = {"tma": 0, "tma_cooperative": 1, "nosmem": 2}
COUNT = 64
"""Configurations asked for per problem."""
Config = tuple[int, int, int, int, int]
"""(TM, TN, TK, CM, CN)."""


def nvmmh_available() -> bool:
    """True when the ``nvMatmulHeuristics`` module can be imported."""
    return importlib.util.find_spec("nvMatmulHeuristics") is not None


@cache
def _interface(gpu: str) -> tuple[Any, Any]:
    import nvMatmulHeuristics as nv

    handle = nv.NvMatmulHeuristicsInterfaceEx(
        backend=nv.NvMatmulHeuristicsTarget.CUTLASS3,
        flags=nv.NvMatmulHeuristicsFlags.PERF_MODEL_BASED_AUTO_TUNING,
        load_discovery_implicitly=True,
        gpu=getattr(nv.NvMatmulHeuristicsNvidiaGpu, gpu),
    )
    return handle, handle.createBackend(nv.NvMatmulHeuristicsTarget.CUTLASS3)


def ranked_configs(
    m: int, n: int, k: int, layout: str, hardware: str, count: int = COUNT
) -> list[Config]:
    """(TM, TN, TK, CM, CN) of the library's ranked configurations, best first."""
    import nvMatmulHeuristics as nv

    if hardware not in GPU or layout not in LAYOUT:
        raise ValueError(f"nvMatmulHeuristics: no mapping for {hardware!r} / layout {layout!r}")
    handle, backend = _interface(GPU[hardware])
    problem = handle.makeNvMatmulHeuristicsProblem(
        m, n, k, getattr(nv.NvMatmulHeuristicsMatmulLayout, LAYOUT[layout])
    )
    out = []
    for entry in handle.getEx(problem, count, backend, precision="TST"):
        c = entry["kernel"]
        out.append((c.cta_tile_m, c.cta_tile_n, c.cta_tile_k, c.cluster_m, c.cluster_n))
    return out


def rank_scores(
    candidates: pd.DataFrame, ranked: list[tuple[int, int, int, int, int]]
) -> np.ndarray:
    """Scores (higher is better) of one problem's candidates (columns tm, tn, tk, cm, cn,
    schedule, epilogue) from the library's ranked (tile, cluster) list."""
    first_tc: dict[tuple[int, ...], int] = {}
    first_t: dict[tuple[int, ...], int] = {}
    for r, cfg in enumerate(ranked):
        first_tc.setdefault(tuple(cfg), r)
        first_t.setdefault(tuple(cfg[:3]), r)
    worst = len(ranked) + 1
    tiles = candidates[["tm", "tn", "tk", "cm", "cn"]].to_numpy(dtype=np.int64)
    rank = np.array(
        [first_tc.get(tuple(t), worst + first_t.get(tuple(t[:3]), worst)) for t in tiles.tolist()],
        dtype=np.float64,
    )
    schedule = candidates["schedule"].map(SCHEDULE_ORDER).fillna(3).to_numpy(dtype=np.float64)
    stream_k = candidates["is_stream_k"].to_numpy(dtype=np.float64)
    epilogue = candidates["epilogue"].map(EPILOGUE_ORDER).fillna(3).to_numpy(dtype=np.float64)
    return -(rank * 100.0 + (schedule + 3.0 * stream_k) * 4.0 + epilogue)


def nvmmh_scores(features: pd.DataFrame, labels: pd.DataFrame, hardware: str) -> np.ndarray:
    """The baseline's score of every (group, candidate) row of a feature frame."""
    out = np.empty(len(features), dtype=np.float64)
    for _, rows in labels.groupby("group", sort=False).indices.items():
        first = labels.iloc[rows[0]]
        ranked = ranked_configs(
            int(first["M"]), int(first["N"]), int(first["K"]), str(first["layout"]), hardware
        )
        out[rows] = rank_scores(features.iloc[rows], ranked)
    return out
