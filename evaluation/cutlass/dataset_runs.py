"""Runs of dataset version 2 on, and the pure steps from any version's tables to the record.

A *run* is one driver invocation (``<call>/<split>-<M>x<N>x<K>-<pass>``): one shape, one pass
(``x`` exhaustive at default knobs, ``k`` knob sweep of the best kernels, ``y`` a top-up that
re-times a sweep beside kernels not measured before, ``t`` training sample); every
configuration of a run, cuBLASLt's included, was timed in the same interleaved rounds.

Reading a folder (:mod:`benchspace.evaluation.cutlass.dataset_read`) gives its version's
tables; :data:`UPGRADES` lifts them one version at a time (version 1 -> 2:
:func:`upgrade_v1`), and :func:`build_dataset` makes the record of the latest version's
tables. A version 3 adds its reader, ``UPGRADES[2]`` and what :func:`build_dataset` needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name
from benchspace.evaluation.cutlass.dataset import (
    CUBLAS,
    HEURISTIC,
    VERSION,
    Dataset,
    DatasetError,
)
from benchspace.evaluation.cutlass.driver_csv import parse_config

ROUND_COLUMNS: tuple[str, ...] = (
    "run",
    "split",
    "pass",
    "config",
    "M",
    "N",
    "K",
    "round",
    "seq",
    "ms",
    "sm_clock_mhz",
    "power_w",
    "t_s",
)
ROW_COLUMNS: tuple[str, ...] = ("run", "split", "pass", "config", "name", "M", "N", "K", "status")
KNOB_COLUMNS: tuple[str, ...] = (
    "kernel",
    "raster",
    "swizzle",
    "splits",
    "decomposition",
    "default_knobs",
)
"""What :func:`knobs_frame` parses out of a configuration's text."""
PER_CONFIG_COLUMNS = ("run", "split", "M", "N", "K", "config", "kernel", "raster", "swizzle")
Tables = dict[str, pd.DataFrame]
"""A version's tables by name: ``measurements``, ``kernels``, ``cublas`` in version 1;
``rounds``, ``rows``, ``kernels`` in version 2 (and ``means``, ``cublas`` when upgraded)."""


def knobs_frame(configs: pd.Series) -> pd.DataFrame:
    """The parsed knobs of each configuration text (index of ``configs``)."""
    unique = {text: parse_config(str(text)) for text in pd.unique(configs)}
    table = pd.DataFrame(
        [
            {
                "config": text,
                "kernel": c.name,
                "raster": c.raster,
                "swizzle": c.swizzle,
                "splits": c.splits,
                "decomposition": c.decomposition,
                "default_knobs": (c.raster, c.swizzle, c.splits, c.decomposition)
                == ("H", 1, 1, "H"),
            }
            for text, c in unique.items()
        ]
    )
    return table.set_index("config").loc[configs.to_numpy()].set_index(configs.index)


def per_config(rounds: pd.DataFrame) -> pd.DataFrame:
    """Median ms over rounds per (run, config), with the run's shape and the parsed knobs."""
    keys = ["run", "call", "split", "pass", "M", "N", "K", "config"]
    knobs = ["kernel", "raster", "swizzle", "splits", "decomposition", "default_knobs"]
    out = rounds.groupby(keys, sort=False).agg(
        ms=("ms", "median"), rounds=("round", "nunique"), **{k: (k, "first") for k in knobs}
    )
    out = out.reset_index()
    out["tflops"] = 2.0 * out["M"] * out["N"] * out["K"] / (out["ms"] * 1e-3) / 1e12
    out["cublas"] = out["kernel"] == CUBLAS
    return out


def interleaving_problems(rounds: pd.DataFrame) -> list[str]:
    """Runs whose cuBLASLt rows are not in the same interleaved rounds as their kernel rows.

    Checks, per run: every configuration has the same set of rounds; the rounds follow one
    another in time (each round's rows end before the next round's begin); and in every
    round the cuBLASLt rows lie inside the time span of the kernel rows.
    """
    problems: list[str] = []
    for run, frame in rounds.groupby("run", sort=True):
        is_cublas = frame["kernel"] == CUBLAS
        if not is_cublas.any() or is_cublas.all():
            problems.append(f"{run}: needs both cuBLASLt and kernel rows")
            continue
        sets = frame.groupby("config")["round"].apply(lambda r: tuple(sorted(set(r))))
        if sets.nunique() != 1:
            problems.append(f"{run}: configurations were timed in different rounds")
            continue
        span = frame.groupby("round")["t_s"].agg(["min", "max"]).sort_index()
        if (span["min"].to_numpy()[1:] < span["max"].to_numpy()[:-1]).any():
            problems.append(f"{run}: rounds overlap in time")
        kernel_span = frame[~is_cublas].groupby("round")["t_s"].agg(["min", "max"])
        for rnd, group in frame[is_cublas].groupby("round"):
            lo, hi = kernel_span["min"].get(rnd, np.nan), kernel_span["max"].get(rnd, np.nan)
            if group["t_s"].min() < lo - 0.05 or group["t_s"].max() > hi + 0.05:
                problems.append(f"{run}: round {rnd}: cuBLASLt timed outside the kernels' span")
                break
    return problems


MIN_SHARED = 5
"""cuBLASLt configurations two runs of a shape must share for one to take the other's clock."""


def align_runs(table: pd.DataFrame) -> pd.DataFrame:
    """Put every run of a shape on the clock of its largest run, for pooling across runs.

    Ratios inside a run are fair as measured; rows of *different* runs of one shape (calls on
    other days, other clocks: the knob-sweep runs of c1-c4 ran 8 % slower than their own
    exhaustive runs, by their cuBLASLt rows) are not comparable as they stand. Each further
    run is scaled by the median ``ms`` ratio of the cuBLASLt configurations
    (``cublas:heuristic``, ``cublas:algo<i>``) both runs timed, at least :data:`MIN_SHARED`.
    cuBLASLt is the anchor because every run times it and no run chose it: the kernels a knob
    sweep re-times were picked as the fastest of a noisy pass, so their first times read low
    (anchoring on them would carry that selection bias into every later run). A run sharing
    too few stays as measured. ``table`` is :func:`per_config`'s; ``ms`` and ``tflops`` are
    rescaled and ``clock_scale`` says by how much.
    """
    out = table.copy()
    out["clock_scale"] = 1.0
    multi = out.groupby(["split", "M", "N", "K"])["run"].transform("nunique") > 1
    for _, frame in out[multi].groupby(["split", "M", "N", "K"], sort=False):
        sizes = frame.groupby("run").size().sort_values(ascending=False, kind="stable")
        anchors = frame[frame["kernel"] == CUBLAS]
        reference = anchors[anchors["run"] == sizes.index[0]].groupby("config")["ms"].mean()
        for run in sizes.index[1:]:
            ms = anchors[anchors["run"] == run].groupby("config")["ms"].mean()
            shared = ms.index.intersection(reference.index)
            if len(shared) < MIN_SHARED:
                continue
            scale = float(np.median(reference[shared].to_numpy() / ms[shared].to_numpy()))
            out.loc[frame.index[frame["run"] == run], "clock_scale"] = scale
    out["ms"] = out["ms"] * out["clock_scale"]
    out["tflops"] = 2.0 * out["M"] * out["N"] * out["K"] / (out["ms"] * 1e-3) / 1e12
    return out


def _layout(kernels: pd.Series) -> pd.Series:
    layouts = {name: parse_kernel_name(name).layout for name in pd.unique(kernels)}
    return kernels.map(layouts)


def study_tables(
    per_config: pd.DataFrame, kernels: pd.DataFrame, path: str | Path
) -> tuple[Tables, int]:
    """The study's ``measurements``, ``kernels`` and ``cublas`` from per-configuration medians,
    and how many kernel rows were left out for their Stream-K knobs.

    ``per_config``: one row per run and configuration (``run, split, pass, M, N, K, config, ms,
    kernel, raster, swizzle, splits, decomposition, tflops``, optionally ``ms_stdev``). Kernel
    rows become measurements (groups ``MxNxK_layout``) that keep their ``run``, so that a shape
    timed in two runs shows how well a run repeats; ``cublas:heuristic`` and the
    ``cublas:algo<i>`` rows become same-round cuBLAS rows. Stream-K split and decomposition
    settings other than the defaults are not candidates of the selector yet.
    """
    missing = [c for c in PER_CONFIG_COLUMNS if c not in per_config.columns]
    if missing:
        raise DatasetError(f"{path}: v2 per-configuration rows lack {', '.join(missing)}")
    rows = per_config.copy()
    is_cublas = rows["kernel"].astype(str) == CUBLAS
    kern = rows[~is_cublas].copy()
    default = np.ones(len(kern), dtype=bool)
    if "splits" in kern.columns:
        default &= kern["splits"].fillna(1).astype(int).to_numpy() == 1
    if "decomposition" in kern.columns:
        default &= kern["decomposition"].fillna("H").astype(str).to_numpy() == "H"
    dropped = int((~default).sum())
    kern = kern[default]
    kern["layout"] = _layout(kern["kernel"].astype(str))
    ok = np.isfinite(kern["tflops"]) & (kern["tflops"] > 0)
    kern["status"] = np.where(ok, "ok", "failed")
    kern["ms_mean"] = kern["ms"]
    kern["ms_stdev"] = kern["ms_stdev"] if "ms_stdev" in kern.columns else 0.0
    kern["group"] = (
        kern["M"].astype(str) + "x" + kern["N"].astype(str) + "x" + kern["K"].astype(str)
        + "_" + kern["layout"].astype(str)
    )  # fmt: skip
    kern["shape_class"] = kern["shape_class"].fillna("") if "shape_class" in kern else ""
    measurements = kern[
        ["group", "M", "N", "K", "layout", "split", "shape_class", "kernel", "raster", "swizzle",
         "status", "tflops", "ms_mean", "ms_stdev", "run"]
    ].reset_index(drop=True)  # fmt: skip
    for col in ("M", "N", "K", "swizzle"):
        measurements[col] = measurements[col].astype(np.int64)
    for col in ("group", "layout", "split", "kernel", "raster", "status", "shape_class", "run"):
        measurements[col] = measurements[col].astype(str)
    # cuBLAS rows take the layout of their run's kernels.
    run_layout = kern.groupby("run")["layout"].first()
    cub = rows[is_cublas].copy()
    cub["layout"] = cub["run"].map(run_layout)
    cub = cub.dropna(subset=["layout"])
    cub["method"] = np.where(cub["config"].astype(str) == HEURISTIC, HEURISTIC, "cublas:algo")
    cub["same_round"] = True
    cublas = cub[["M", "N", "K", "layout", "tflops", "method", "same_round", "run"]]
    names = sorted(set(measurements["kernel"].astype(str)))
    if kernels.empty or "name" not in kernels.columns:
        kernels = pd.DataFrame({"name": names})
    tables = {"measurements": measurements, "kernels": kernels, "cublas": cublas}
    return {**tables, "cublas": cublas.reset_index(drop=True)}, dropped


def _empty(columns: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


def upgrade_v1(tables: Tables) -> Tables:
    """Version-1 tables as version 2's: no rounds and no driver rows (version 1 timed each
    configuration as a mean and spread, kept as ``means``), and its cuBLAS table, timed apart
    from the kernels (so never a same-round baseline), kept as it is."""
    return {
        "rounds": _empty((*ROUND_COLUMNS, "source", "call", *KNOB_COLUMNS)),
        "rows": _empty((*ROW_COLUMNS, "source", "call")),
        "kernels": tables["kernels"],
        "means": tables["measurements"],
        "cublas": tables["cublas"],
    }


UPGRADES: dict[int, Callable[[Tables], Tables]] = {1: upgrade_v1}
"""``UPGRADES[v]`` turns version ``v``'s tables into version ``v + 1``'s."""


def upgrade(tables: Tables, version: int) -> Tables:
    """Tables of ``version`` lifted to the latest version's, one step at a time."""
    for step in range(version, VERSION):
        tables = UPGRADES[step](tables)
    return tables


def runs_study(rounds: pd.DataFrame, kernels: pd.DataFrame, path: Path) -> Tables:
    """The study's tables from rounds: per-configuration medians, every run of a shape put on
    one clock first (:func:`align_runs`)."""
    return study_tables(align_runs(per_config(rounds)), kernels, path)[0]


def build_dataset(
    path: Path, version: int, provenance: Mapping[str, Any], tables: Tables
) -> Dataset:
    """The record of the latest version's tables; the study's tables of rounds are made when
    first used (:func:`runs_study`)."""
    rounds, kernels = tables["rounds"], tables["kernels"]
    if rounds.empty:
        means = {"measurements": tables["means"], "kernels": kernels, "cublas": tables["cublas"]}
        source: Callable[[], Tables] = partial(dict, means)
    else:
        source = partial(runs_study, rounds, kernels, path)
    return Dataset(
        path=path,
        version=version,
        provenance=dict(provenance),
        rounds=rounds,
        rows=tables["rows"],
        study=source,
    )
