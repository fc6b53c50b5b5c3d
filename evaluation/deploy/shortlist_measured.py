"""Tune my shapes measured on the GPU: each K's pick timed in the oracle's own rounds.

A shortlist (``benchspace cutlass tune-shapes``: per shape its ranked candidates) whose
configurations were timed inside a v2 sweep of the same shape (``measure_passes.py --extra``: the
knob sweep of the shape's best kernels, the kernels measured for the first time, cuBLASLt
and the shortlist, one driver run, interleaved rounds). Per shape and K:

* pick = the fastest measured of the top K (what tune-my-shapes keeps);
* regret = ``1 - T_pick / T_oracle``, the oracle being the run's fastest CUTLASS configuration;
* pick vs cuBLAS = ``t_heuristic / t_pick`` (> 1: the pick is faster), the same rounds;
* with cuBLAS as a choice: the faster of the pick and ``cublas:heuristic``, against the
  faster of the oracle and ``cublas:heuristic``.

GPU time is estimated with :class:`~evaluation.deploy.shortlist_study.Protocol` from the ms
the run measured: K + 9 cuBLASLt configurations per shape against every configuration the
shape's exhaustive measurement timed (its ``x`` pass and the sweep).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.shortlist_study import Protocol
from benchspace.evaluation.study.summary import geomean

HEURISTIC = "cublas:heuristic"
MEASURED_KS: tuple[int, ...] = (1, 2, 4, 8)


@dataclass(frozen=True, kw_only=True, slots=True)
class MeasuredK:
    """One K over every shape."""

    k: int
    mean: float
    median: float
    p95: float
    max: float
    hit: float
    """Share of shapes whose pick is the oracle (within 0.5 %, the rounds' noise)."""
    vs_cublas: float
    """Geometric mean of ``t_heuristic / t_pick``."""
    ahead: float
    """Share of shapes where the pick beats cublas:heuristic."""
    with_cublas: tuple[float, float, float]
    """Mean, p95, max regret with cuBLAS as a choice."""
    with_cublas_vs: float
    """Geometric mean of ``t_heuristic / min(t_pick, t_heuristic)``."""
    gpu_s: float


@dataclass(frozen=True, kw_only=True, slots=True)
class MeasuredCurve:
    """The K curve measured on the GPU, and what it was judged on."""

    shapes: int
    rows: tuple[MeasuredK, ...]
    exhaustive_s: float
    oracle_vs_cublas: float
    """Geometric mean of ``t_heuristic / t_oracle`` over the same shapes."""
    missing: int
    """Shortlisted configurations the run did not time (left out of the picks)."""
    per_shape: pd.DataFrame
    """M, N, K, run, then ``regret_k<K>`` and ``vs_cublas_k<K>`` per K."""
    protocol: Protocol


def _gpu_s(ms: np.ndarray, protocol: Protocol) -> float:
    launches = float(np.sum(ms)) * protocol.launches / 1e3
    return launches + protocol.config_overhead_s * len(ms)


def measured_curve(
    table: pd.DataFrame,
    shortlist: pd.DataFrame,
    ks: Sequence[int] = MEASURED_KS,
    protocol: Protocol | None = None,
) -> MeasuredCurve:
    """``table``: per-configuration medians of a v2 dataset (``dataset_runs.per_config``);
    ``shortlist``: M, N, K, rank, config. Shapes whose latest sweep timed none of their
    shortlist are left out."""
    protocol = protocol or Protocol()
    fixed_s = protocol.heat_s + protocol.shape_overhead_s
    ev = table[table["split"] == "eval"]
    rows: list[dict[str, object]] = []
    tune_s = {k: 0.0 for k in ks}
    exhaustive_s = 0.0
    missing = 0
    for (m, n, k_dim), short in shortlist.groupby(["M", "N", "K"], sort=True):
        shape = ev[(ev["M"] == m) & (ev["N"] == n) & (ev["K"] == k_dim)]
        sweeps = shape[shape["pass"].isin(["y", "k"])]
        wanted = set(short["config"])
        runs = [r for r, f in sweeps.groupby("run") if wanted & set(f["config"])]
        if not runs:
            continue
        run = max(runs, key=lambda r: (str(sweeps.loc[sweeps["run"] == r, "call"].iloc[0]), r))
        frame = sweeps[sweeps["run"] == run].set_index("config")
        ms = frame["ms"]
        kernels = frame[~frame["cublas"]]
        oracle = float(kernels["ms"].min())
        heuristic = float(ms.get(HEURISTIC, np.nan))
        cublas_ms = frame.loc[frame["cublas"], "ms"].to_numpy(float)
        ranked = short.sort_values("rank")
        timed = ranked[ranked["config"].isin(ms.index)]
        missing += len(ranked) - len(timed)
        row: dict[str, object] = {"M": m, "N": n, "K": k_dim, "run": run,
                                  "oracle_vs_cublas": heuristic / oracle}  # fmt: skip
        for k in ks:
            top = timed[timed["rank"] <= k]["config"]
            if top.empty:
                for name in ("regret", "vs_cublas", "with_cublas", "with_cublas_vs"):
                    row[f"{name}_k{k}"] = np.nan
                continue
            pick = float(ms[top].min())
            row[f"regret_k{k}"] = max(0.0, 1.0 - oracle / pick)
            row[f"vs_cublas_k{k}"] = heuristic / pick
            best = min(pick, heuristic)
            row[f"with_cublas_k{k}"] = max(0.0, 1.0 - min(oracle, heuristic) / best)
            row[f"with_cublas_vs_k{k}"] = heuristic / best
            tune_s[k] += fixed_s + _gpu_s(np.concatenate([ms[top].to_numpy(float), cublas_ms]),
                                          protocol)  # fmt: skip
        everything = shape[shape["pass"].isin(["x"]) | (shape["run"] == run)]
        exhaustive_s += fixed_s + _gpu_s(everything["ms"].to_numpy(float), protocol)
        rows.append(row)
    per_shape = pd.DataFrame(rows)
    if per_shape.empty:
        raise ValueError("no evaluation shape of the dataset timed its shortlist in a sweep")

    out = []
    for k in ks:
        r = per_shape[f"regret_k{k}"].dropna()
        w = per_shape[f"with_cublas_k{k}"].dropna()
        out.append(
            MeasuredK(
                k=k,
                mean=float(r.mean()),
                median=float(r.median()),
                p95=float(r.quantile(0.95)),
                max=float(r.max()),
                hit=float((r <= 0.005).mean()),
                vs_cublas=geomean(per_shape[f"vs_cublas_k{k}"]),
                ahead=float((per_shape[f"vs_cublas_k{k}"].dropna() > 1.0).mean()),
                with_cublas=(float(w.mean()), float(w.quantile(0.95)), float(w.max())),
                with_cublas_vs=geomean(per_shape[f"with_cublas_vs_k{k}"]),
                gpu_s=tune_s[k],
            )
        )
    return MeasuredCurve(
        shapes=len(per_shape),
        rows=tuple(out),
        exhaustive_s=exhaustive_s,
        oracle_vs_cublas=geomean(per_shape["oracle_vs_cublas"]),
        missing=missing,
        per_shape=per_shape,
        protocol=protocol,
    )
