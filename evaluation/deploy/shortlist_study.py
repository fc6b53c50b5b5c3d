"""Tune my shapes on recorded data: regret of measuring the top K against the exhaustive oracle.

The deployed model kind is trained on the training groups only (the held-out split of
``benchspace cutlass evaluate``); on each exhaustive evaluation group its candidates are
ranked by score, and "tune my shapes with K" keeps the fastest *measured* of the top K:
``R_K(g) = 1 - max_{rank <= K} T / T*_g``. K = 1 is ``select``.

GPU time follows the driver's protocol per configuration: one checked run, ``warmups``
warm-ups and ``rounds`` x ``iters`` timed launches, each lasting the recorded ms per launch
(``2 M N K / T``) plus ``config_overhead_s`` of host work; per shape ``heat_s`` of heating
plus ``shape_overhead_s`` (process start, loading the libraries, operand pool and fp32
reference). The exhaustive sweep measures every candidate of the group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import Dataset
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.deploy.header_study import DEPLOYED
from benchspace.evaluation.deploy.select import train_selector
from benchspace.evaluation.study.run import prepare

KS: tuple[int, ...] = (1, 2, 4, 8, 16)


@dataclass(frozen=True, kw_only=True, slots=True)
class Protocol:
    """The driver's timing protocol (``cutlass_bench`` defaults, the space's heat)."""

    warmups: int = 5
    rounds: int = 5
    iters: int = 3
    heat_s: float = 1.0
    shape_overhead_s: float = 0.7
    """Per shape besides heating: start, ``dlopen`` of the libraries, pool and reference."""
    config_overhead_s: float = 0.003
    """Per configuration on the host: ``can_implement``, the checked run's comparison, graph
    capture. Both overheads are fitted on the v2 device logs (310 driver passes: wall time
    against configurations and launch time); with them the v1 sweep (76 shapes, 19,400
    configurations) comes to 5.8 min, recorded: about 5 min."""

    @property
    def launches(self) -> int:
        """Launches per configuration: the check, the warm-ups and the timed ones."""
        return 1 + self.warmups + self.rounds * self.iters


CUBLAS_CONFIGS = 9
"""``cublas:heuristic`` and ``cublas:algo0..7``, timed per shape beside the shortlist."""


@dataclass(frozen=True, kw_only=True, slots=True)
class KRow:
    """Regret and GPU time of measuring each shape's top K."""

    k: int
    mean: float
    p95: float
    max: float
    hit: float
    """Share of shapes whose oracle is among the top K."""
    gpu_s: float
    """Estimated device time over all shapes (seconds): launches, host overheads, heat."""
    launch_s: float
    """Of which the configurations' launches."""
    configs: int
    with_cublas: tuple[float, float, float] | None = None
    """Mean, p95, max regret of the best of the top K or ``cublas:heuristic`` (the dispatch
    choices) against the best of the oracle and ``cublas:heuristic``; None without same-round
    cuBLAS."""
    vs_cublas: float | None = None
    """Geometric mean of ``T(best of top K) / T(cublas:heuristic)``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ShortlistStudy:
    """The K curve, the exhaustive sweep's cost, and what it was judged on."""

    model: str
    groups: int
    rows: tuple[KRow, ...]
    exhaustive_s: float
    exhaustive_configs: int
    exhaustive_launch_s: float
    protocol: Protocol
    per_group: pd.DataFrame
    """group, M, N, K, candidates, then ``regret_k<K>`` per K."""


def launch_ms(frame: pd.DataFrame) -> np.ndarray:
    """ms per launch of each row from its throughput: ``2 M N K / T``."""
    flops = (
        2.0 * frame["M"].to_numpy(float) * frame["N"].to_numpy(float) * frame["K"].to_numpy(float)
    )
    return np.asarray(flops / (frame["tflops"].to_numpy(float) * 1e12) * 1e3, dtype=np.float64)


def curve(
    labels: pd.DataFrame,
    scores: np.ndarray,
    ks: Sequence[int] = KS,
    protocol: Protocol | None = None,
    model: str = DEPLOYED,
    cublas: pd.DataFrame | None = None,
) -> ShortlistStudy:
    """The study on exhaustive groups (``labels``: group, M, N, K, tflops) and their scores.

    ``cublas`` (M, N, K, cublas_tflops: same-round cuBLAS, :func:`same_round_cublas`) adds the
    CUTLASS-or-cuBLAS regret, the pick against cuBLAS, and the :data:`CUBLAS_CONFIGS`
    cuBLASLt configurations' launches to every K's GPU time (timed at the heuristic's speed).
    """
    protocol = protocol or Protocol()
    data = labels[["group", "M", "N", "K", "tflops"]].assign(
        _score=np.asarray(scores, dtype=np.float64)
    )
    data["_ms"] = launch_ms(data)
    data = data.sort_values(["group", "_score"], ascending=[True, False], kind="stable")
    data["_rank"] = data.groupby("group").cumcount() + 1
    groups = data.groupby("group", sort=True)
    oracle = groups["tflops"].max()
    per_group = groups[["M", "N", "K"]].first().assign(candidates=groups.size())
    has_cublas = cublas is not None and not cublas.empty
    cublas_host = protocol.config_overhead_s * CUBLAS_CONFIGS if has_cublas else 0.0
    fixed_s = protocol.heat_s + protocol.shape_overhead_s + cublas_host
    per_config = protocol.config_overhead_s
    heuristic = None
    cublas_s = 0.0
    if cublas is not None and not cublas.empty:
        joined = per_group.reset_index().merge(
            cublas[["M", "N", "K", "cublas_tflops"]], on=["M", "N", "K"], how="left"
        )
        heuristic = pd.Series(joined["cublas_tflops"].to_numpy(float), index=per_group.index)
        known = joined.dropna(subset=["cublas_tflops"])
        cublas_s = float(launch_ms(known.assign(tflops=known["cublas_tflops"])).sum())
        cublas_s *= CUBLAS_CONFIGS * protocol.launches / 1e3
    rows = []
    for k in ks:
        top = data[data["_rank"] <= k]
        best = top.groupby("group", sort=True)["tflops"].max()
        regret = (1.0 - best / oracle).clip(lower=0.0)
        per_group[f"regret_k{k}"] = regret
        launch = top["_ms"].sum() * protocol.launches / 1e3 + cublas_s
        with_cublas, vs_cublas = None, None
        if heuristic is not None:
            have = heuristic.notna().to_numpy()
            h = heuristic.to_numpy(float)[have]
            b, o = best.to_numpy(float)[have], oracle.to_numpy(float)[have]
            r2 = np.maximum(1.0 - np.maximum(b, h) / np.maximum(o, h), 0.0)
            with_cublas = (float(r2.mean()), float(np.percentile(r2, 95)), float(r2.max()))
            vs_cublas = float(np.exp(np.log(b / h).mean()))
        rows.append(
            KRow(
                k=k,
                mean=float(regret.mean()),
                p95=float(np.percentile(regret, 95)),
                max=float(regret.max()),
                hit=float((regret <= 0.0).mean()),
                gpu_s=float(launch + fixed_s * len(oracle) + per_config * len(top)),
                launch_s=float(launch),
                configs=len(top),
                with_cublas=with_cublas,
                vs_cublas=vs_cublas,
            )
        )
    exhaustive_launch = data["_ms"].sum() * protocol.launches / 1e3 + cublas_s
    exhaustive = exhaustive_launch + fixed_s * len(oracle) + per_config * len(data)
    return ShortlistStudy(
        model=model,
        groups=len(oracle),
        rows=tuple(rows),
        exhaustive_s=float(exhaustive),
        exhaustive_configs=len(data),
        exhaustive_launch_s=float(exhaustive_launch),
        protocol=protocol,
        per_group=per_group.reset_index(),
    )


def shortlist_study(
    dataset: Dataset,
    hw: Hardware,
    ks: Sequence[int] = KS,
    protocol: Protocol | None = None,
    seed: int = 0,
) -> ShortlistStudy:
    """Train on the training groups, judge the top-K curve on the evaluation groups."""
    prepared = prepare(dataset, hw)
    ev = (prepared.labels["split"] == "eval").to_numpy()
    if not ev.any():
        raise ValueError(f"{dataset.path}: no evaluation (exhaustive) groups")
    selector = train_selector(dataset, hw, DEPLOYED, ("train",), seed)
    scores = selector.model.score(prepared.features[ev])
    return curve(prepared.labels[ev], scores, ks, protocol, cublas=prepared.cublas)
