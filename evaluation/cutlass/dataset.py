"""The study's one data model: a measured GEMM dataset of any version, as one frozen record.

A :class:`Dataset` holds the measured runs of one GPU however its folder was written
(``evaluation/data/<gpu>/`` is version 1, ``.../v2/`` version 2; ``evaluation/data/README.md``
describes the files): per CUTLASS configuration of a run its shape, kernel and knobs, status,
throughput and timing spread (``measurements``); the cuBLASLt configurations (``cublas``); the
per-round timings with their clocks and power where the version recorded rounds (``rounds``,
``rows``); the kernels' catalogue fields and ptxas facts; and the provenance.
:func:`benchspace.evaluation.cutlass.dataset_read.load_dataset` reads every version into it,
upgrading older ones at load (:mod:`benchspace.evaluation.cutlass.dataset_runs`). The views
below are pure functions of the record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS, parse_kernel_name, records_frame
from benchspace.harness.errors import BenchspaceError

FORMAT = "benchspace-cutlass-dataset"
VERSION = 2
"""The latest dataset version: what a folder of an older one is upgraded to at load."""

MEASUREMENT_COLUMNS: tuple[str, ...] = (
    "group",
    "M",
    "N",
    "K",
    "layout",
    "split",
    "kernel",
    "status",
    "tflops",
    "ms_mean",
    "ms_stdev",
)
"""Columns the study needs; the README lists more (clocks, power, ptxas facts, ...)."""
KERNEL_COLUMNS: tuple[str, ...] = ("name",)
CUBLAS_COLUMNS: tuple[str, ...] = ("M", "N", "K", "layout", "tflops")
PTXAS_COLUMNS: tuple[str, ...] = (
    "regs",
    "spill_stores",
    "spill_loads",
    "smem_bytes",
    "stack_bytes",
)
"""Compile-time facts from ptxas: known before execution, so usable as features."""
SPLITS = ("train", "eval")
DEFAULT_RASTER, DEFAULT_SWIZZLE = "H", 1
"""Knob values assumed when the measurements carry no ``raster``/``swizzle`` column."""
CANDIDATE_KEY: tuple[str, ...] = ("kernel", "raster", "swizzle")
"""A candidate is a compiled kernel with its runtime scheduler knobs."""
CUBLAS = "cublas"
"""The ``kernel`` of a cuBLASLt configuration."""
HEURISTIC = "cublas:heuristic"
"""The cuBLASLt heuristic's first choice: what cuBLAS itself runs (torch.matmul's pick)."""
KERNEL_PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
SHAPE = ["M", "N", "K", "layout"]


class DatasetError(BenchspaceError):
    """A dataset folder is missing, of another format, or malformed."""


@dataclass(frozen=True, kw_only=True, eq=False)
class Dataset:
    """One GPU's measured GEMM runs, read from a folder of any version."""

    path: Path
    version: int
    """The version the folder was written in (the record itself is always the latest's)."""
    provenance: Mapping[str, Any]
    """GPU, driver, compilers, CUTLASS and cuBLASLt versions, clocks, commit, the runs' notes."""
    rounds: pd.DataFrame
    """One row per (run, configuration, round): ``ms``, ``sm_clock_mhz``, ``power_w``, ``t_s``
    and the parsed knobs (``kernel``, ``raster``, ``swizzle``, ``splits``, ``decomposition``,
    ``default_knobs``); empty for version 1, which stored means, not rounds."""
    rows: pd.DataFrame
    """One row per (run, configuration) as the driver reported it (status, relative error,
    cuBLASLt algorithm); empty for version 1."""
    study: Callable[[], Mapping[str, pd.DataFrame]] = field(repr=False)
    """Makes the study's tables (below), called once, on first use: from rounds that means
    putting every run of a shape on one clock and taking medians, which a summary of the
    rounds alone does not need."""

    @cached_property
    def _tables(self) -> Mapping[str, pd.DataFrame]:
        return self.study()

    @property
    def measurements(self) -> pd.DataFrame:
        """One row per CUTLASS configuration timed in a run, failures included: shape (group,
        M, N, K, layout, split, shape_class), configuration (kernel, raster, swizzle; ``run``
        where the version has runs), status, ``tflops``, ``ms_mean``, ``ms_stdev``; extra
        columns (clocks, power, ptxas facts) are kept."""
        return self._tables["measurements"]

    @property
    def kernels(self) -> pd.DataFrame:
        """One row per kernel: ``name``, catalogue fields and ptxas facts where recorded."""
        return self._tables["kernels"]

    @property
    def cublas(self) -> pd.DataFrame:
        """cuBLASLt per shape: M, N, K, layout, tflops; ``same_round``, ``method`` and ``run``
        where it was timed as configurations of the kernels' own rounds (version 2 on)."""
        return self._tables["cublas"]

    @property
    def has_rounds(self) -> bool:
        """Whether per-round timings (and so same-round cuBLASLt ratios) exist."""
        return not self.rounds.empty


def candidate_table(dataset: Dataset) -> pd.DataFrame:
    """One row per measured (group, kernel, raster, swizzle) with status ``ok``.

    Columns: group, M, N, K, layout, split, shape_class, kernel, raster, swizzle, ``tflops``
    (the mean over repeated rows) and ``tflops_sd``, the throughput's standard deviation: per
    row ``T * ms_stdev / ms_mean`` (first-order propagation of the timing spread), and for a
    candidate measured in several rows (repeats) the law of total variance,
    ``sqrt(mean(sd_r^2) + var_r(T_r))``, so that disagreeing repeats widen its uncertainty.
    Failed rows are not candidates: the selector ranks what runs correctly. Sorted by group,
    then candidate key.
    """
    m = dataset.measurements
    ok = m[(m["status"] == "ok") & np.isfinite(m["tflops"]) & (m["tflops"] > 0)].copy()
    rel_sd = (ok["ms_stdev"] / ok["ms_mean"]).where(lambda s: np.isfinite(s) & (s >= 0), 0.0)
    ok["var"] = (ok["tflops"] * rel_sd) ** 2
    ok["t2"] = ok["tflops"] ** 2
    keys = ["group", *CANDIDATE_KEY]
    first = ["M", "N", "K", "layout", "split", "shape_class"]
    agg = ok.groupby(keys, sort=True).agg(
        **{c: (c, "first") for c in first},
        tflops=("tflops", "mean"),
        var=("var", "mean"),
        t2=("t2", "mean"),
    )
    # Variance of the repeats' means, mean(T^2) - mean(T)^2, clipped at rounding noise.
    between = np.maximum(agg.pop("t2") - agg["tflops"] ** 2, 0.0)
    agg["tflops_sd"] = np.sqrt(agg.pop("var") + between)
    out: pd.DataFrame = agg.reset_index()
    return out.loc[:, ["group", *first, *CANDIDATE_KEY, "tflops", "tflops_sd"]]


EXHAUSTIVE_SHARE = 0.95
"""A run is exhaustive when it timed at least this share of its kernels at default knobs."""


def exhaustive_groups(measurements: pd.DataFrame, kernels: int) -> set[str]:
    """The groups whose ``T*`` is the best of every kernel, not of a sample.

    With a ``run`` column (dataset v2, ``<call>/<run>``): a group is exhaustive when one of its
    runs timed, at default knobs, (nearly) every kernel its call timed anywhere (the kernels the
    device had then). Without runs (v1): when the group timed (nearly) all ``kernels``.
    """
    m = measurements
    ok = m[(m["status"] == "ok") & (m["raster"] == DEFAULT_RASTER)]
    ok = ok[ok["swizzle"] == DEFAULT_SWIZZLE]
    if "run" not in ok.columns:
        covered = ok.groupby("group")["kernel"].nunique()
        return set(covered[covered >= EXHAUSTIVE_SHARE * max(kernels, 1)].index.astype(str))
    call = ok["run"].astype(str).str.split("/").str[0]
    available = ok.groupby(call)["kernel"].nunique()
    per_run = ok.groupby(["group", "run"])["kernel"].nunique().reset_index()
    need = per_run["run"].astype(str).str.split("/").str[0].map(available)
    full = per_run[per_run["kernel"] >= EXHAUSTIVE_SHARE * need]
    return set(full["group"].astype(str))


def kernel_configs(dataset: Dataset) -> pd.DataFrame:
    """Catalogue fields and ptxas facts of every kernel, one row per name.

    Fields the kernels table lacks (alignments, for example) are parsed from the procedural
    name; the table's own values win where both exist. Missing ptxas facts are NaN.
    """
    kernels = dataset.kernels.drop_duplicates("name", keep="last").reset_index(drop=True)
    parsed = records_frame(parse_kernel_name(name) for name in kernels["name"])
    for column in FIELDS:
        if column in kernels.columns and column != "name":
            given = kernels[column]
            parsed[column] = given.where(given.notna(), parsed[column]).astype(parsed[column].dtype)
    for col in PTXAS_COLUMNS:
        parsed[col] = (
            pd.to_numeric(kernels[col], errors="coerce") if col in kernels.columns else np.nan
        )
    return parsed


def cublas_table(dataset: Dataset) -> pd.DataFrame:
    """cuBLAS throughput per (M, N, K, layout), the mean where a shape was measured twice."""
    c = dataset.cublas
    if c.empty:
        return pd.DataFrame(columns=["M", "N", "K", "layout", "cublas_tflops"])
    c = c.assign(
        M=c["M"].astype(np.int64),
        N=c["N"].astype(np.int64),
        K=c["K"].astype(np.int64),
        layout=c["layout"].astype(str),
    )
    out = c.groupby(["M", "N", "K", "layout"], sort=True)["tflops"].mean()
    return out.rename("cublas_tflops").reset_index()


def describe(dataset: Dataset) -> str:
    """One line naming the dataset: GPU, date, commit, group and kernel counts."""
    p = dataset.provenance
    m = dataset.measurements
    groups = m.groupby("split")["group"].nunique()
    return (
        f"{dataset.path}: {p.get('gpu', '?')} ({p.get('date', '?')}, commit "
        f"{str(p.get('benchspace_commit', '?'))[:12]}): {groups.get('train', 0)} training and "
        f"{groups.get('eval', 0)} evaluation groups, {m['kernel'].nunique()} kernels, "
        f"{len(m)} measurements"
    )


def same_round_cublas(dataset: Dataset) -> pd.DataFrame:
    """Per shape: ``cublas_tflops`` (the cuBLASLt heuristic's pick, what torch.matmul runs) and
    ``cublas_best_tflops`` (the best of its top-N), from same-round rows only; else empty."""
    out_columns = [*SHAPE, "cublas_tflops", "cublas_best_tflops"]
    c = dataset.cublas
    if c.empty or "same_round" not in c.columns:
        return pd.DataFrame(columns=out_columns)
    c = c[c["same_round"].astype(str).str.lower().isin(["true", "1"])].copy()
    if c.empty:
        return pd.DataFrame(columns=out_columns)
    for col in ("M", "N", "K"):
        c[col] = c[col].astype(np.int64)
    c["layout"] = c["layout"].astype(str)
    method = c["method"].astype(str) if "method" in c.columns else pd.Series(HEURISTIC, c.index)
    heuristic = c[method == HEURISTIC].groupby(SHAPE, sort=True)["tflops"].mean()
    best = c.groupby(SHAPE, sort=True)["tflops"].max()
    out = pd.DataFrame({"cublas_tflops": heuristic, "cublas_best_tflops": best}).dropna()
    return out.reset_index()[out_columns]
