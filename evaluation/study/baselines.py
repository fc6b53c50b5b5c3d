"""The baselines judged beside the learned selectors, and the CUTLASS-or-cuBLAS variant.

* ``fixed kernel``: the one kernel with the best geometric mean of ``T/T*`` over the training
  groups (:func:`benchspace.evaluation.selector.static_time.fixed_kernel`), what a library without a
  selector ships;
* ``static score (H200 time)``: :func:`benchspace.evaluation.selector.static_time.time_score`;
* ``nvMatmulHeuristics``: NVIDIA's ranking mapped onto our candidates
  (:mod:`benchspace.evaluation.selector.nvmmh`), when the optional package is installed;
* ``<selector> or cuBLAS``: where same-round cuBLAS rows exist, the selector may answer
  ``cublas``: for a held-out shape it does when, at the nearest training shape (log2 distance
  over M, N, K) with a same-round cuBLAS row, cuBLAS beat the selector's own pick. Its regret
  is against the best of every kernel *and* cuBLAS, its ratio against cuBLAS's heuristic pick.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.metrics import RegretSummary, picks, summarise
from benchspace.evaluation.selector.nvmmh import nvmmh_available, nvmmh_scores
from benchspace.evaluation.selector.static_time import fixed_kernel, time_score

NVMMH = "nvMatmulHeuristics"
SEED_SELECTORS = (
    "GH200 (seed study, 15,132 kernels, B = 2000): no held-out selector regret is published; "
    "static top-B sampling regret 0.6 %, biased-diverse 0.9 %, uniform 8.5 %; 2.4 % of "
    "kernels within 5 % of the oracle (see the sampling table below)"
)
"""The seed's GH200 figures printed beside the held-out table."""
SHAPE = ["M", "N", "K", "layout"]
REGRET_HEADER: tuple[str, ...] = ("selector", "mean", "median", "p95", "max", "top-1", "top-5")
REGRET_HEADER += ("vs cuBLAS", "vs best-of-N")
"""The columns of the held-out tables."""
ORACLE_NOTE = (
    "T* = the group's best measured candidate (kernel x raster x swizzle: every kernel at "
    "default knobs, plus the knob sweeps where the data has them); 'or cuBLAS' rows: T* = "
    "max(T*, cuBLAS heuristic); vs cuBLAS = geomean T(pick)/T(cuBLASLt heuristic), vs "
    "best-of-N = against the best of cuBLASLt's top-N algorithms, both timed in the same rounds"
)


def best_of_n_text(ratio: float | None) -> str:
    """The oracle's ratio to cuBLASLt's best of its top-N, as the report appends it."""
    return "" if ratio is None else f"; vs cuBLAS best-of-N: {ratio:.3f}x"


def baseline_rows(
    x_ev: pd.DataFrame,
    y_ev: pd.DataFrame,
    y_tr: pd.DataFrame,
    hw: Hardware,
    cublas: pd.DataFrame,
) -> tuple[list[RegretSummary], list[pd.DataFrame], list[str]]:
    """Held-out summaries and per-group picks of the baselines, and notes on skipped ones."""
    rows, chosen, notes = [], [], []
    kernel = fixed_kernel(y_tr)
    fixed = picks(y_ev, (y_ev["kernel"] == kernel).to_numpy(dtype=np.float64))
    rows.append(summarise("fixed kernel", fixed, cublas))
    chosen.append(fixed.assign(model="fixed kernel"))
    notes.append(f"fixed kernel: {kernel} (best geometric mean T/T* on the training groups)")
    timed = picks(y_ev, time_score(x_ev, hw).to_numpy())
    rows.append(summarise("static score (H200 time)", timed, cublas))
    chosen.append(timed.assign(model="static score (H200 time)"))
    if nvmmh_available():
        try:
            ranked = picks(y_ev, nvmmh_scores(x_ev, y_ev, hw.name))
        except ValueError as exc:
            notes.append(f"{NVMMH} skipped: {exc}")
        else:
            rows.append(summarise(NVMMH, ranked, cublas))
            chosen.append(ranked.assign(model=NVMMH))
    else:
        notes.append(
            f"{NVMMH} skipped: not installed (pip install nvidia-matmul-heuristics, extra "
            "'nvmmh'; NVIDIA's licence)"
        )
    return rows, chosen, notes


def _nearest(train: pd.DataFrame, shapes: pd.DataFrame) -> np.ndarray:
    """Row of ``train`` nearest to each row of ``shapes`` in log2 (M, N, K)."""
    a = np.log2(train[["M", "N", "K"]].to_numpy(dtype=np.float64))
    b = np.log2(shapes[["M", "N", "K"]].to_numpy(dtype=np.float64))
    return np.asarray(((b[:, None, :] - a[None, :, :]) ** 2).sum(axis=2).argmin(axis=1))


def with_cublas(
    name: str,
    held_out: pd.DataFrame,
    train_picks: pd.DataFrame,
    y_ev: pd.DataFrame,
    cublas: pd.DataFrame,
) -> RegretSummary | None:
    """The ``<name> or cuBLAS`` row (module docstring); None without same-round cuBLAS rows
    on both the training and the held-out shapes."""
    if cublas.empty:
        return None
    train = train_picks.merge(cublas, on=SHAPE, how="inner")
    test = held_out.merge(cublas, on=SHAPE, how="inner")
    if train.empty or test.empty:
        return None
    ahead = (train["cublas_tflops"] > train["tflops"]).to_numpy()
    use = ahead[_nearest(train, test)]
    best_kernel = y_ev.groupby("group", sort=True)["tflops"].max()
    best = np.maximum(test["group"].map(best_kernel).to_numpy(), test["cublas_tflops"].to_numpy())
    t = np.where(use, test["cublas_tflops"].to_numpy(), test["tflops"].to_numpy())
    regret = 1.0 - t / best
    ratio = t / test["cublas_tflops"].to_numpy()
    best_of_n = t / test["cublas_best_tflops"].to_numpy() if "cublas_best_tflops" in test else None
    return RegretSummary(
        name=f"{name} or cuBLAS",
        groups=len(test),
        mean=float(np.mean(regret)),
        median=float(np.median(regret)),
        p95=float(np.percentile(regret, 95)),
        max=float(np.max(regret)),
        top1=float(np.mean(t >= best)),
        top5=float("nan"),
        cublas_geomean=float(np.exp(np.mean(np.log(ratio)))),
        cublas_best_geomean=(
            None if best_of_n is None else float(np.exp(np.mean(np.log(best_of_n))))
        ),
    )
