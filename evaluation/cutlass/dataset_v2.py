"""Read dataset v2: per-round timings of CUTLASS configurations and cuBLASLt in the same rounds.

A v2 folder (``evaluation/data/<gpu>/v2/``) holds ``provenance.json`` (format
``benchspace-cutlass-dataset``, version 2), ``rounds_*.csv.gz`` (one row per configuration
and round, as ``scripts/device/measure_v2.py`` writes them), ``rows_*.csv.gz`` (one row per
configuration and driver invocation, failures included) and optionally ``kernels.csv.gz``.
A *run* is one driver invocation (``<call>/<split>-<M>x<N>x<K>-<pass>``): one shape, one
pass (``x`` exhaustive at default knobs, ``k`` knob sweep of the best kernels, ``t`` training
sample); every configuration of a run was timed in the same interleaved rounds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import DatasetError
from benchspace.evaluation.cutlass.driver_csv import CUBLAS, parse_config

FORMAT = "benchspace-cutlass-dataset"
VERSION = 2
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
HEURISTIC = "cublas:heuristic"
"""The cuBLASLt heuristic's first choice: what cuBLAS itself runs (torch.matmul's pick)."""
KERNEL_PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"


@dataclass(frozen=True, kw_only=True)
class DatasetV2:
    """The v2 tables of one GPU."""

    path: Path
    provenance: Mapping[str, Any]
    rounds: pd.DataFrame
    """One row per (run, config, round), plus the parsed knobs: ``kernel`` (``cublas`` for
    cuBLASLt), ``raster``, ``swizzle``, ``splits``, ``decomposition``, ``default_knobs``."""
    rows: pd.DataFrame
    """One row per (run, config): status, relative error, static info, cuBLASLt algorithm."""
    kernels: pd.DataFrame


def _read(paths: list[Path], required: tuple[str, ...]) -> pd.DataFrame:
    frames = []
    for path in paths:
        try:
            frame = pd.read_csv(path, low_memory=False)
        except (OSError, ValueError, EOFError) as exc:
            raise DatasetError(f"{path}: cannot read ({exc}); re-fetch it from the run") from exc
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise DatasetError(
                f"{path}: columns {', '.join(missing)} are missing; it is not a v2 table "
                "(scripts/device/measure_v2.py writes them)"
            )
        frames.append(frame.assign(source=path.name))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in (*required, "source")})
    return pd.concat(frames, ignore_index=True)


def _tag_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """``call`` from the file name (``rounds_<call>_<split>.csv.gz``); ``run`` prefixed with it,
    so that a shape measured again in a later call is a run of its own."""
    call = frame["source"].astype(str).str.split("_").str[1]
    return frame.assign(call=call, run=call + "/" + frame["run"].astype(str))


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


def load_dataset_v2(path: str | Path) -> DatasetV2:
    """Read a v2 folder; a :class:`DatasetError` names the file and the fix."""
    folder = Path(path)
    prov_path = folder / "provenance.json"
    try:
        provenance = json.loads(prov_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(
            f"{prov_path}: cannot read ({exc}); a v2 folder holds provenance.json, "
            "rounds_*.csv.gz and rows_*.csv.gz (see evaluation/data/README.md)"
        ) from exc
    if provenance.get("format") != FORMAT or provenance.get("version") != VERSION:
        raise DatasetError(
            f"{prov_path}: $.format/$.version is {provenance.get('format')!r}/"
            f"{provenance.get('version')!r}, expected {FORMAT!r}/{VERSION}"
        )
    rounds = _tag_calls(_read(sorted(folder.glob("rounds_*.csv.gz")), ROUND_COLUMNS))
    rows = _tag_calls(_read(sorted(folder.glob("rows_*.csv.gz")), ROW_COLUMNS))
    if rounds.empty:
        raise DatasetError(f"{folder}: no rounds_*.csv.gz; commit what the device run brought")
    for column in ("M", "N", "K", "round", "seq"):
        rounds[column] = rounds[column].astype(np.int64)
    for column in ("ms", "sm_clock_mhz", "power_w", "t_s"):
        rounds[column] = pd.to_numeric(rounds[column], errors="coerce")
    rounds = pd.concat([rounds, knobs_frame(rounds["config"])], axis=1)
    kernels_path = folder / "kernels.csv.gz"
    kernels = pd.read_csv(kernels_path) if kernels_path.exists() else pd.DataFrame()
    return DatasetV2(path=folder, provenance=provenance, rounds=rounds, rows=rows, kernels=kernels)


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
