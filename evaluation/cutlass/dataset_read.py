"""Read a measured dataset folder of any version into the one record, :class:`Dataset`.

The folder's ``provenance.json`` (format ``benchspace-cutlass-dataset``) says its version;
:data:`READERS` has one reader per version, each turning that version's files into its tables
(every byte through :mod:`benchspace.harness.files`, every problem a one-line
:class:`DatasetError` naming the file and the fix); :mod:`dataset_runs` upgrades the tables to
the latest version and builds the record. A relative path not found in the working directory is
looked up under the shipped data (:data:`benchspace.evaluation.DATA_DIR`: ``h200``,
``h200/v2``, or the checkout's spelling ``evaluation/data/h200/v2``).

* Version 1 (``evaluation/data/h200``): ``kernels``, ``measurements`` and optionally ``cublas``
  tables, each ``<name>.csv.gz`` or ``<name>.csv``: one row per measured (shape, kernel, knobs,
  repeat) with its mean and spread; cuBLAS timed apart from the kernels.
* Version 2 (``evaluation/data/h200/v2``): ``rounds_<call>_<split>.csv.gz`` (one row per
  configuration and round, as ``scripts/device/measure_passes.py`` writes them, cuBLASLt among the
  configurations), ``rows_<call>_<split>.csv.gz`` (one row per configuration and run, failures
  included) and optionally ``kernels.csv.gz``.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.dataset import (
    CUBLAS_COLUMNS,
    DEFAULT_RASTER,
    DEFAULT_SWIZZLE,
    FORMAT,
    KERNEL_COLUMNS,
    MEASUREMENT_COLUMNS,
    SPLITS,
    VERSION,
    Dataset,
    DatasetError,
)
from benchspace.evaluation.cutlass.dataset_runs import (
    ROUND_COLUMNS,
    ROW_COLUMNS,
    Tables,
    build_dataset,
    knobs_frame,
    upgrade,
)
from benchspace.harness.errors import json_path
from benchspace.harness.files import read_bytes, read_json

CHECKOUT_PREFIX = Path("evaluation") / "data"
"""How the checkout spells a shipped dataset (``evaluation/data/h200/v2``)."""
DATASET_HELP = (
    "dataset folder of any version, e.g. evaluation/data/h200 (v1) or evaluation/data/h200/v2; "
    "a relative path not found here is looked up under the shipped data "
    "(benchspace.evaluation.DATA_DIR: h200, h200/v2)"
)
"""What a command's dataset argument means, for its ``--help``."""


def resolve_dataset_path(path: str | Path) -> Path:
    """``path`` if it exists; else, when relative, the same folder under the shipped data."""
    given = Path(path)
    if given.exists() or given.is_absolute():
        return given
    tails = [given]
    if given.parts[: len(CHECKOUT_PREFIX.parts)] == CHECKOUT_PREFIX.parts:
        tails.append(Path(*given.parts[len(CHECKOUT_PREFIX.parts) :]))
    for tail in tails:
        if tail.parts and (DATA_DIR / tail).is_dir():
            return DATA_DIR / tail
    return given


def read_table(path: Path, required: tuple[str, ...], fix: str, **options: Any) -> pd.DataFrame:
    """A CSV table (gzip-compressed when its name ends in ``.gz``) with ``required`` columns."""
    blob = read_bytes(path, error=DatasetError, kind="dataset table")
    try:
        if path.suffix == ".gz":
            blob = gzip.decompress(blob)
        frame: pd.DataFrame = pd.read_csv(io.BytesIO(blob), **options)
    except (OSError, EOFError, zlib.error, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{path}: cannot be read as CSV ({reason}); {fix}") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DatasetError(
            f"{path}: missing column(s) {', '.join(missing)}; the header has "
            f"{', '.join(map(str, frame.columns))}"
        )
    return frame


def read_provenance(folder: Path) -> tuple[dict[str, Any], int]:
    """The folder's provenance document and its version (one this benchspace reads)."""
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
    if isinstance(version, bool) or version not in READERS:
        known = ", ".join(map(str, sorted(READERS)))
        raise DatasetError(
            f"{path}: {json_path('version')}: {version!r} is not supported; this benchspace "
            f"reads versions {known} (upgrade benchspace for newer datasets)"
        )
    return data, int(version)


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


def check_measurements(path: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Version 1's measurements with typed columns and the knob defaults filled in."""
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
    for col in ("tflops", "ms_mean", "ms_stdev"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
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


def read_v1(folder: Path) -> Tables:
    """Version 1's ``measurements``, ``kernels`` and ``cublas`` tables, checked."""
    fix = "rewrite the file"
    kernels_path = _table_path(folder, "kernels", True)
    measurements_path = _table_path(folder, "measurements", True)
    assert kernels_path is not None and measurements_path is not None
    kernels = read_table(kernels_path, KERNEL_COLUMNS, fix)
    kernels["name"] = kernels["name"].astype(str)
    measurements = check_measurements(
        str(measurements_path), read_table(measurements_path, MEASUREMENT_COLUMNS, fix)
    )
    cublas_path = _table_path(folder, "cublas", False)
    if cublas_path is None:
        cublas = pd.DataFrame({c: pd.Series(dtype=object) for c in CUBLAS_COLUMNS})
    else:
        cublas = read_table(cublas_path, CUBLAS_COLUMNS, fix)
        cublas["tflops"] = pd.to_numeric(cublas["tflops"], errors="coerce")
    unknown = sorted(set(measurements["kernel"]) - set(kernels["name"]))
    if unknown:
        raise DatasetError(
            f"{measurements_path}: kernel {unknown[0]!r} (and {len(unknown) - 1} more) is not in "
            f"{kernels_path.name}; add it there or drop its rows"
        )
    return {"measurements": measurements, "kernels": kernels, "cublas": cublas}


def _read_calls(folder: Path, prefix: str, required: tuple[str, ...]) -> pd.DataFrame:
    """Every ``<prefix>_<call>_<split>.csv.gz`` of the folder, with ``source`` and ``call``;
    ``run`` is prefixed with the call, so a shape measured again later is a run of its own."""
    fix = "re-fetch it from the run (scripts/device/measure_passes.py writes these tables)"
    frames = [
        read_table(path, required, fix, low_memory=False).assign(source=path.name)
        for path in sorted(folder.glob(f"{prefix}_*.csv.gz"))
    ]
    if not frames:
        frame = pd.DataFrame({c: pd.Series(dtype=object) for c in (*required, "source")})
    else:
        frame = pd.concat(frames, ignore_index=True)
    call = frame["source"].astype(str).str.split("_").str[1]
    return frame.assign(call=call, run=call + "/" + frame["run"].astype(str))


def read_v2(folder: Path) -> Tables:
    """Version 2's ``rounds`` (with the parsed knobs), ``rows`` and ``kernels`` tables."""
    rounds = _read_calls(folder, "rounds", ROUND_COLUMNS)
    rows = _read_calls(folder, "rows", ROW_COLUMNS)
    if rounds.empty:
        raise DatasetError(f"{folder}: no rounds_*.csv.gz; commit what the device run brought")
    for column in ("M", "N", "K", "round", "seq"):
        values = pd.to_numeric(rounds[column], errors="coerce")
        if values.isna().any():
            row = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise DatasetError(
                f"{folder / str(rounds['source'].iloc[row])}: column {column}: "
                f"{rounds[column].iloc[row]!r} must be an integer; re-fetch it from the run"
            )
        rounds[column] = values.astype(np.int64)
    for column in ("ms", "sm_clock_mhz", "power_w", "t_s"):
        rounds[column] = pd.to_numeric(rounds[column], errors="coerce")
    rounds = pd.concat([rounds, knobs_frame(rounds["config"])], axis=1)
    kernels_path = folder / "kernels.csv.gz"
    kernels = (
        read_table(kernels_path, (), "re-fetch it from the build")
        if kernels_path.exists()
        else pd.DataFrame()
    )
    return {"rounds": rounds, "rows": rows, "kernels": kernels}


READERS: dict[int, Callable[[Path], Tables]] = {1: read_v1, 2: read_v2}
"""One reader per dataset version: its files to its tables."""
assert max(READERS) == VERSION


def load_dataset(path: str | Path) -> Dataset:
    """Read and check a dataset folder of any version; a :class:`DatasetError` says what is
    wrong in one line."""
    folder = resolve_dataset_path(path)
    if not folder.is_dir():
        shipped = "" if folder.is_absolute() else f" (nor under the shipped data, {DATA_DIR})"
        raise DatasetError(
            f"{folder}: no such dataset folder{shipped}; measured data lands in "
            "evaluation/data/<gpu>/ (see evaluation/data/README.md)"
        )
    provenance, version = read_provenance(folder)
    tables = upgrade(READERS[version](folder), version)
    return build_dataset(folder, version, provenance, tables)
