"""Load a measured CUTLASS dataset folder (``evaluation/data/<gpu>/``) as frozen DataFrames.

The folder holds ``provenance.json`` and three tables (``kernels``, ``measurements``,
``cublas``), each as ``<name>.csv.gz`` or ``<name>.csv``; ``evaluation/data/README.md``
describes their columns. Required columns are checked; extra columns are kept and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS, parse_kernel_name, records_frame
from benchspace.harness.errors import BenchspaceError, json_path
from benchspace.harness.files import read_json

FORMAT = "benchspace-cutlass-dataset"
VERSION = 1

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


class DatasetError(BenchspaceError):
    """A dataset folder is missing, of another format, or malformed."""


@dataclass(frozen=True, kw_only=True)
class Dataset:
    """One GPU's measured dataset: three tables and the provenance they came with."""

    path: Path
    provenance: Mapping[str, Any]
    measurements: pd.DataFrame
    kernels: pd.DataFrame
    cublas: pd.DataFrame


def _table_path(folder: Path, name: str, required: bool) -> Path | None:
    for suffix in (".csv.gz", ".csv"):
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return path
    if required:
        raise DatasetError(
            f"{folder}: no {name}.csv.gz (or {name}.csv); a dataset folder holds provenance.json, "
            "kernels, measurements and cublas tables (see evaluation/data/README.md)"
        )
    return None


def _read_table(path: Path, required_columns: tuple[str, ...]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, keep_default_na=True)
    except (OSError, ValueError, EOFError) as exc:
        raise DatasetError(f"{path}: cannot be read as CSV ({exc}); rewrite the file") from None
    missing = [c for c in required_columns if c not in frame.columns]
    if missing:
        raise DatasetError(
            f"{path}: missing column(s) {', '.join(missing)}; the header has "
            f"{', '.join(map(str, frame.columns))}"
        )
    return frame


def _read_provenance(folder: Path) -> dict[str, Any]:
    path = folder / "provenance.json"
    if not path.is_file():
        raise DatasetError(
            f"{folder}: no provenance.json; is this a dataset folder such as evaluation/data/h200?"
        )
    data = read_json(path, error=DatasetError, kind="dataset provenance")
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: $: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise DatasetError(
            f"{path}: {json_path('format')}: {data.get('format')!r} must be {FORMAT!r}"
        )
    version = data.get("version")
    if version != VERSION:
        raise DatasetError(
            f"{path}: {json_path('version')}: {version!r} is not supported; this benchspace "
            f"reads version {VERSION} (upgrade benchspace for newer datasets)"
        )
    return data


def _check_measurements(path: str, frame: pd.DataFrame) -> pd.DataFrame:
    bad_split = sorted(set(frame["split"].astype(str)) - set(SPLITS))
    if bad_split:
        raise DatasetError(
            f"{path}: column split: {bad_split[0]!r} is not one of {', '.join(SPLITS)}"
        )
    for col in ("M", "N", "K"):
        values = pd.to_numeric(frame[col], errors="coerce")
        if values.isna().any() or (values <= 0).any():
            row = int(np.flatnonzero(values.isna().to_numpy() | (values <= 0).to_numpy())[0])
            value = frame[col].iloc[row]
            value = value.item() if isinstance(value, np.generic) else value
            raise DatasetError(
                f"{path}: row {row + 2}: {col} = {value!r} must be a positive integer"
            )
        frame[col] = values.astype(np.int64)
    frame["tflops"] = pd.to_numeric(frame["tflops"], errors="coerce")
    frame["ms_mean"] = pd.to_numeric(frame["ms_mean"], errors="coerce")
    frame["ms_stdev"] = pd.to_numeric(frame["ms_stdev"], errors="coerce")
    if "raster" not in frame.columns:
        frame["raster"] = DEFAULT_RASTER
    if "swizzle" not in frame.columns:
        frame["swizzle"] = DEFAULT_SWIZZLE
    frame["raster"] = frame["raster"].fillna(DEFAULT_RASTER).astype(str)
    frame["swizzle"] = pd.to_numeric(frame["swizzle"], errors="coerce").fillna(DEFAULT_SWIZZLE)
    frame["swizzle"] = frame["swizzle"].astype(np.int64)
    for col in ("group", "layout", "split", "kernel", "status"):
        frame[col] = frame[col].astype(str)
    if "shape_class" not in frame.columns:
        frame["shape_class"] = ""
    frame["shape_class"] = frame["shape_class"].fillna("").astype(str)
    return frame


def load_dataset(path: str | Path) -> Dataset:
    """Read and check a dataset folder; a :class:`DatasetError` says what is wrong in one line."""
    folder = Path(path)
    if not folder.is_dir():
        raise DatasetError(
            f"{folder}: no such dataset folder; measured data lands in evaluation/data/<gpu>/ "
            "(see evaluation/data/README.md)"
        )
    provenance = _read_provenance(folder)
    kernels_path = _table_path(folder, "kernels", True)
    measurements_path = _table_path(folder, "measurements", True)
    assert kernels_path is not None and measurements_path is not None
    kernels = _read_table(kernels_path, KERNEL_COLUMNS)
    kernels["name"] = kernels["name"].astype(str)
    measurements = _check_measurements(
        str(measurements_path), _read_table(measurements_path, MEASUREMENT_COLUMNS)
    )
    cublas_path = _table_path(folder, "cublas", False)
    if cublas_path is None:
        cublas = pd.DataFrame({c: pd.Series(dtype=object) for c in CUBLAS_COLUMNS})
    else:
        cublas = _read_table(cublas_path, CUBLAS_COLUMNS)
        cublas["tflops"] = pd.to_numeric(cublas["tflops"], errors="coerce")
    unknown = sorted(set(measurements["kernel"]) - set(kernels["name"]))
    if unknown:
        raise DatasetError(
            f"{measurements_path}: kernel {unknown[0]!r} (and {len(unknown) - 1} more) is not in "
            f"{kernels_path.name}; add it there or drop its rows"
        )
    return Dataset(
        path=folder,
        provenance=provenance,
        measurements=measurements,
        kernels=kernels,
        cublas=cublas,
    )


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
    for field in FIELDS:
        if field in kernels.columns and field != "name":
            given = kernels[field]
            parsed[field] = given.where(given.notna(), parsed[field]).astype(parsed[field].dtype)
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
