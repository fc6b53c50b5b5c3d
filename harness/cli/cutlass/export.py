"""Write the measured dataset (csv.gz + provenance) from a study sweep's measurement store."""

from __future__ import annotations

import argparse
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.dataset_export import (
    kernel_table,
    measurement_table,
    write_dataset,
)
from benchspace.evaluation.cutlass.nvcc import cutlass_version
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.files import guard_output, read_object, read_text
from benchspace.harness.provenance import git_state
from benchspace.harness.spaces.load import load_space
from benchspace.harness.store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Inputs from the GPU run and the dataset folder to write."""
    parser.add_argument("--space", type=Path, default=Path("spaces/cutlass_sm90_bf16.json"))
    parser.add_argument("--store", type=Path, required=True, help="the sweep's SQLite store")
    parser.add_argument("--index", type=Path, required=True, help="the build's batches.json")
    parser.add_argument(
        "--cublas", type=Path, help="v1 cuBLAS CSV (the retired separate-process baseline's format)"
    )
    parser.add_argument("--device-info", type=Path, help="JSON: gpu, driver, nvcc, ... of the run")
    parser.add_argument("--note", default="", help="what this GPU run measured")
    parser.add_argument(
        "--out",
        type=Path,
        default=DATA_DIR / "h200",
        help="dataset folder (default: the shipped evaluation/data/h200)",
    )


def _json(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    return read_object(path, kind="JSON object file")


def _csv(path: Path) -> pd.DataFrame:
    text = read_text(path, kind="CSV file")
    try:
        return pd.read_csv(io.StringIO(text))
    except ValueError as exc:  # pandas' ParserError and EmptyDataError are ValueErrors
        raise BenchspaceError(f"{path}: cannot be read as CSV ({exc}); rewrite it") from None


def run(args: argparse.Namespace) -> int:
    """Build the tables and write them; previous runs' provenance entries are kept."""
    inputs = [(args.space, "the space"), (args.store, "the store"), (args.index, "the index"),
              (args.cublas, "the cuBLAS CSV"), (args.device_info, "the device info")]  # fmt: skip
    for name in ("measurements.csv.gz", "kernels.csv.gz", "cublas.csv.gz", "provenance.json"):
        guard_output(args.out / name, option="--out", inputs=inputs)
    space = load_space(args.space)
    if not args.store.exists():
        raise BenchspaceError(f"{args.store}: no such store")
    with Store(args.store) as store:
        table = measurement_table(space, store.attempts())
    kernels = kernel_table(_json(args.index))
    cublas = _csv(args.cublas) if args.cublas else None
    device = _json(args.device_info)
    old = _json(args.out / "provenance.json") if (args.out / "provenance.json").exists() else {}
    commit, dirty = git_state(Path.cwd())
    runs = list(old.get("runs", []))
    runs.append(
        {
            "date": device.get("date", datetime.now(UTC).isoformat(timespec="seconds")),
            "note": args.note,
            "measurements": len(table),
            "device_seconds": device.get("seconds"),
        }
    )
    provenance = {
        **{k: v for k, v in old.items() if k not in ("format", "version")},
        **{k: v for k, v in device.items() if k not in ("date", "seconds")},
        "cutlass_version": cutlass_version(),
        "benchspace_commit": commit,
        "benchspace_dirty": dirty,
        "space": str(args.space),
        "space_sha256": space.sha256,
        "runs": runs,
        "date": runs[-1]["date"],
    }
    write_dataset(
        args.out, measurements=table, kernels=kernels, cublas=cublas, provenance=provenance
    )
    ok = int((table["status"] == "ok").sum()) if not table.empty else 0
    print(
        f"{args.out}: {len(table)} measurements ({ok} ok), {len(kernels)} kernels, "
        f"{0 if cublas is None else len(cublas)} cuBLAS shapes"
    )
    return 0
