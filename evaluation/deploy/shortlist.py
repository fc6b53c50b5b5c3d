"""Tune my shapes: the selector's K best candidates per user shape, as a space to measure.

For each user shape the saved selector scores every candidate it knows (a compiled kernel
with its scheduler knobs, raster and swizzle, as they appear in its training data: the v1
data measured every kernel at the defaults H / 1, so there the knobs are the defaults; a
selector trained on knob sweeps ranks the knob settings too) and keeps the ``k`` best. The
space measures each shape's shortlist, plus the cuBLASLt configurations of the v2 driver
(``cublas:heuristic``, what a plain cuBLAS call runs, and ``cublas:algo0`` …
``cublas:algo<n-1>``, the heuristic's top n), in one driver process per shape, so cuBLAS is
timed in the same interleaved rounds as the kernels. Nothing is measured here.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchspace.evaluation.cutlass.driver_csv import KernelRunConfig
from benchspace.evaluation.cutlass.space import DRIVER
from benchspace.evaluation.deploy.select import rank_shapes, top_choices
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.files import read_text

BENCH = "gemm_tune_shapes"
CUBLAS_HEURISTIC = "cublas:heuristic"
CUBLAS_ALGO = "cublas:algo"
DEFAULT_CUBLAS_ALGOS = 8


def config_text(kernel: str, raster: str, swizzle: int) -> str:
    """The driver's canonical CONFIG word (defaults left out)."""
    return KernelRunConfig(name=kernel, raster=raster, swizzle=int(swizzle)).text


def cublas_configs(algos: int) -> list[str]:
    """``cublas:heuristic`` then ``cublas:algo0`` … (none when ``algos`` < 0)."""
    if algos < 0:
        return []
    return [CUBLAS_HEURISTIC, *(f"{CUBLAS_ALGO}{i}" for i in range(algos))]


def shortlist(
    selector: DeployedSelector,
    shapes: Sequence[tuple[int, int, int]],
    k: int,
    layout: str | None = None,
    per_kernel: int | None = None,
) -> pd.DataFrame:
    """The ``k`` best-scored candidates of each shape: columns shape, M, N, K, rank (1 = the
    selector's pick), kernel, raster, swizzle, score, config (the driver's word).

    ``per_kernel``: at most that many knob settings (raster, swizzle) of one kernel, its
    best-scored first; the slots go to the next kernels instead. None keeps every setting in
    score order (a kernel's knob variants score alike, so the plain top 8 of a shape often
    holds two or three kernels)."""
    if k < 1:
        raise UsageError(f"--topk {k} must be at least 1")
    if per_kernel is not None and per_kernel < 1:
        raise UsageError(f"--per-kernel {per_kernel} must be at least 1")
    ranked = rank_shapes(selector, shapes, layout)
    if per_kernel is not None:
        ranked = ranked[ranked.groupby(["shape", "kernel"]).cumcount() < per_kernel]
    top = top_choices(ranked, k)
    top = top.assign(rank=top.groupby("shape").cumcount() + 1)
    top["config"] = [
        config_text(str(kernel), str(raster), int(str(swizzle)))
        for kernel, raster, swizzle in zip(
            top["kernel"], top["raster"], top["swizzle"], strict=True
        )
    ]
    keep = ["shape", "M", "N", "K", "rank", "kernel", "raster", "swizzle", "score", "config"]
    return top[keep].reset_index(drop=True)


TIMING_FLAGS = ("--graph", "1", "--iters", "1", "--sample-ms", "2", "--rounds", "10")
"""The driver's timing mode for tune-my-shapes: CUDA graphs of as many launches as make a 2 ms
sample, 10 interleaved rounds (mode ``g2ms``, chosen on the H200 by the timing study:
evaluation/data/h200/timing_long, heuristic timed in two runs sd 0.76 %)."""


def kernels_to_build(short: pd.DataFrame) -> list[str]:
    """The distinct CUTLASS kernels of a shortlist, sorted (``cutlass build --kernels``)."""
    return sorted({str(k) for k in short["kernel"]})


def shortlist_space(
    short: pd.DataFrame,
    *,
    cublas_algos: int = DEFAULT_CUBLAS_ALGOS,
    heat_s: float = 1.0,
    warmups: int = 5,
    timeout_s: float = 10.0,
    origin: str = "",
    timing: tuple[str, ...] = TIMING_FLAGS,
    ranked: Mapping[tuple[int, int, int], Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The raw space document: one case per shape, its own grid = its shortlist (+ cuBLAS).

    ``cublas_algos`` < 0 leaves cuBLAS out (a driver before v2 knows no ``cublas:*``);
    ``ranked``: per shape, pinned ``cublaslt:`` configurations timed too (driver v4,
    :mod:`evaluation.deploy.ranked_candidates`).
    """
    extra = cublas_configs(cublas_algos)
    cases = []
    pinned = 0
    for _, rows in short.groupby("shape", sort=True):
        first = rows.iloc[0]
        shape = (int(first["M"]), int(first["N"]), int(first["K"]))
        keys = list((ranked or {}).get(shape, ()))
        pinned += len(keys)
        grid = [*rows.sort_values("rank")["config"].astype(str), *extra, *keys]
        cases.append(
            {
                "fixed": {"M": shape[0], "N": shape[1], "K": shape[2]},
                "tune": {"kernel": grid},
            }
        )
    flags = ["--csv", "{out}", "--heat-s", f"{heat_s:g}", *timing]
    if warmups != 5:  # the driver's default
        flags += ["--warmups", str(warmups)]
    if cublas_algos >= 0:
        flags += ["--cublas-algos", str(cublas_algos)]
    k = int(short["rank"].max()) if len(short) else 0
    kernels = len(kernels_to_build(short))
    cublas_note = (
        f"plus {', '.join(extra[:2])}{' ...' if len(extra) > 2 else ''} ({len(extra)} cuBLASLt "
        "configurations, v2 driver) in the same rounds"
        if extra
        else "no cuBLAS configurations"
    )
    ranked_note = (
        f"Plus {pinned} pinned cuBLASLt configurations of the listed space, the ranker's top "
        "per shape (driver v4)."
    )
    bench = {
        "bench": BENCH,
        "exe": DRIVER,
        "reader": "csv",
        "metric": "tflops",
        "direction": "max",
        "flags": flags,
        "arg_spec": ["M", "N", "K", "kernel"],
        "batch": {"param": "kernel", "size": 1024},
        "timeout_s": timeout_s,
        "report_only": True,
        "cases": cases,
    }
    return {
        "format": 1,
        "version": 1,
        "_comment": [
            f"Tune my shapes: {len(cases)} user shapes, the selector's top {k} candidates "
            f"each ({kernels} distinct kernels), {cublas_note}.",
            "One driver process per shape times its candidates round-robin after heating"
            + (f" ({' '.join(timing)})." if timing else "."),
            *([f"Ranked by {origin}."] if origin else []),
            *([ranked_note] if pinned else []),
            "Generated by: benchspace cutlass tune-shapes (evaluation/deploy/shortlist.py).",
        ],
        "spaces": [bench],
    }


SHORTLIST_COLUMNS = ("M", "N", "K", "rank", "config")


def read_shortlist(path: str | Path) -> pd.DataFrame:
    """A ``<stem>.shortlist.csv`` that :func:`shortlist` wrote (one line naming the file and the
    fix when it is not one)."""
    text = read_text(path, kind="shortlist csv")
    try:
        short = pd.read_csv(io.StringIO(text))
    except (ValueError, pd.errors.ParserError) as exc:
        raise BenchspaceError(f"{path}: not a shortlist csv ({exc})") from None
    need = set(SHORTLIST_COLUMNS) - set(short.columns)
    if need:
        raise BenchspaceError(
            f"{path}: lacks the columns {', '.join(sorted(need))}; pass the "
            "<stem>.shortlist.csv that tune-shapes wrote"
        )
    if not pd.api.types.is_integer_dtype(short["rank"]):
        raise BenchspaceError(f"{path}: the rank column is not whole numbers; pass the "
                              "<stem>.shortlist.csv that tune-shapes wrote")  # fmt: skip
    return short
