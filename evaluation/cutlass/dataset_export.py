"""From a sweep's measurement store to the committed dataset files (evaluation/data/<gpu>/).

Pure functions build the tables; ``write_dataset`` is the one that touches files. Every
attempt of the study's benches becomes a row, failures included, so the dataset shows what
was tried, not only what worked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS, parse_kernel_name
from benchspace.harness.jsonio import write_json_atomic
from benchspace.harness.measurement import Measurement
from benchspace.harness.spaces.model import Space

DATASET_FORMAT = "benchspace-cutlass-dataset"
DATASET_VERSION = 1
SPLITS = {"gemm_train": "train", "gemm_eval": "eval"}
ROW_FIELDS = (
    "ms_mean", "ms_stdev", "rel_err", "nonfinite", "smem_bytes", "stages", "regs",
    "local_bytes", "sm_clock_mhz", "power_w", "batch_size",
)  # fmt: skip


def split_config(config: str) -> tuple[str, str, int]:
    """``name[:raster[:swizzle]]`` -> (name, raster, swizzle) with the driver's defaults."""
    parts = config.split(":")
    raster = parts[1] if len(parts) > 1 and parts[1] else "H"
    swizzle = int(parts[2]) if len(parts) > 2 and parts[2] else 1
    return parts[0], raster, swizzle


def _status(m: Measurement) -> str:
    prefix = "row status "
    if m.status in ("failed", "crashed", "timeout") and m.error.startswith(prefix):
        return m.error[len(prefix) :].split()[0]
    return m.status


def latest_attempts(attempts: Iterable[Measurement]) -> list[Measurement]:
    """The last attempt of every cache key (a re-run supersedes what it repeated)."""
    latest: dict[str, Measurement] = {}
    for m in attempts:
        latest[m.cache_key] = m
    return list(latest.values())


def measurement_table(space: Space, attempts: Iterable[Measurement]) -> pd.DataFrame:
    """One row per (shape, kernel, knobs, repeat) attempt of the study's benches."""
    rows: list[dict[str, Any]] = []
    for m in latest_attempts(attempts):
        split = SPLITS.get(m.bench)
        if split is None or m.phase != "main":
            continue
        case = space.bench(m.bench).cases[m.case_index]
        shape = {k: int(case.fixed[k]) for k in ("M", "N", "K")}
        name, raster, swizzle = split_config(str(m.params.get("kernel", "")))
        row: dict[str, Any] = {
            "group": f"{shape['M']}x{shape['N']}x{shape['K']}_tnn",
            **shape,
            "layout": "tnn",
            "split": split,
            "kernel": name,
            "raster": raster,
            "swizzle": swizzle,
            "repeat": m.repeat,
            "status": _status(m),
            "tflops": m.value if m.ok else None,
        }
        for key in ROW_FIELDS:
            value = m.extra.get(key)
            row[key] = value if isinstance(value, int | float) else None
        row["error"] = "" if m.ok else m.error[:200]
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    return table.sort_values(["split", "group", "kernel", "raster", "swizzle", "repeat"])


def kernel_table(index: Mapping[str, Any]) -> pd.DataFrame:
    """One row per kernel of the build index: catalogue fields and ptxas facts."""
    rows = []
    for name, record in sorted(index.get("kernels", {}).items()):
        config = parse_kernel_name(name)
        row: dict[str, Any] = {f: getattr(config, f) for f in FIELDS}
        spills = (record.get("spill_stores") or 0) + (record.get("spill_loads") or 0)
        row.update(
            name=name,
            compiled=bool(record.get("library")),
            library=record.get("library"),
            regs=record.get("registers"),
            spill_stores=record.get("spill_stores"),
            spill_loads=record.get("spill_loads"),
            stack_bytes=record.get("stack_frame"),
            smem_bytes=record.get("smem_bytes", record.get("smem_static")),
            spills=spills > 0,
        )
        rows.append(row)
    return pd.DataFrame(rows)


def write_dataset(
    out: Path,
    *,
    measurements: pd.DataFrame,
    kernels: pd.DataFrame,
    cublas: pd.DataFrame | None,
    provenance: Mapping[str, Any],
) -> None:
    """Write the dataset files (csv.gz, deterministic) and provenance.json."""
    out.mkdir(parents=True, exist_ok=True)
    opts = {"index": False, "compression": {"method": "gzip", "mtime": 0}}
    measurements.to_csv(out / "measurements.csv.gz", **opts)  # type: ignore[call-overload]
    kernels.to_csv(out / "kernels.csv.gz", **opts)  # type: ignore[call-overload]
    if cublas is not None:
        cublas.to_csv(out / "cublas.csv.gz", **opts)  # type: ignore[call-overload]
    doc = {"format": DATASET_FORMAT, "version": DATASET_VERSION, **provenance}
    write_json_atomic(out / "provenance.json", json.loads(json.dumps(doc, default=str)))
