#!/usr/bin/env python3
"""Fold what one device call of dataset v2 brought back into evaluation/data/h200/v2/.

    python3 scripts/device/ingest_passes.py FILES_AT --call c1 --device-seconds 512 --note "..."

Copies ``v2_<split>_rounds.csv.gz`` / ``v2_<split>_rows.csv.gz`` as
``rounds_<call>_<split>.csv.gz`` / ``rows_<call>_<split>.csv.gz``, writes ``kernels.csv.gz``
from the build index, appends the call to ``provenance.json`` (GPU, driver, nvcc, CUTLASS,
cuBLASLt, commit, the clock and power of its rounds) and rewrites the list of measured
shapes (``measured_<split>.txt``) that the next call skips.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEST = ROOT / "evaluation" / "data" / "h200" / "v2"
KERNEL_FIELDS = ("name", "library", "index", "registers", "stack_frame", "spill_stores",
                 "spill_loads", "smem_bytes", "stages", "threads", "tile_m", "tile_n", "tile_k",
                 "cluster_m", "cluster_n", "has_raster", "has_swizzle", "has_splits",
                 "has_decomposition")  # fmt: skip


def _meta(src: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    meta = src / "meta.tgz"
    if meta.exists():
        with tarfile.open(meta) as tar:
            for member in tar.getmembers():
                handle = tar.extractfile(member)
                if handle is not None:
                    out[Path(member.name).name] = handle.read()
    return out


def _quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    values = sorted(values)

    def q(p: float) -> float:
        return values[min(len(values) - 1, int(p * (len(values) - 1) + 0.5))]

    return {"p5": q(0.05), "median": q(0.5), "p95": q(0.95)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", type=Path)
    p.add_argument("--call", required=True)
    p.add_argument("--device-seconds", type=float, default=None)
    p.add_argument("--note", default="")
    args = p.parse_args()
    DEST.mkdir(parents=True, exist_ok=True)
    meta = _meta(args.src)
    for name, data in meta.items():
        if name.endswith((".txt", ".log", ".json", ".csv", ".err")) and name != "batches.json":
            (DEST / "logs").mkdir(exist_ok=True)
            (DEST / "logs" / f"{args.call}_{name}").write_bytes(data)
    clocks: list[float] = []
    powers: list[float] = []
    counts: dict[str, int] = {}
    for split in ("eval", "train"):
        for kind in ("rounds", "rows"):
            src = args.src / f"v2_{split}_{kind}.csv.gz"
            if not src.exists():
                continue
            shutil.copyfile(src, DEST / f"{kind}_{args.call}_{split}.csv.gz")
            if kind == "rounds":
                with gzip.open(src, "rt") as handle:
                    rows = list(csv.DictReader(handle))
                counts[split] = len(rows)
                clocks += [float(r["sm_clock_mhz"]) for r in rows if r["sm_clock_mhz"]]
                powers += [float(r["power_w"]) for r in rows if r["power_w"]]
        measured = set()
        for path in DEST.glob(f"rounds_*_{split}.csv.gz"):
            with gzip.open(path, "rt") as handle:
                measured |= {f"{r['M']}x{r['N']}x{r['K']}" for r in csv.DictReader(handle)}
        (DEST / f"measured_{split}.txt").write_text("".join(f"{s}\n" for s in sorted(measured)))
    if "batches.json" in meta:
        # Every kernel any call compiled: this call's index over the rows already there.
        known: dict[str, dict[str, str]] = {}
        if (DEST / "kernels.csv.gz").exists():
            with gzip.open(DEST / "kernels.csv.gz", "rt") as handle:
                known = {r["name"]: r for r in csv.DictReader(handle)}
        index = json.loads(meta["batches.json"])
        known.update({name: {"name": name, **rec} for name, rec in index["kernels"].items()})
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(KERNEL_FIELDS), extrasaction="ignore")
        writer.writeheader()
        for name in sorted(known):
            writer.writerow(known[name])
        with gzip.open(DEST / "kernels.csv.gz", "wt") as handle:
            handle.write(buf.getvalue())
    prov_path = DEST / "provenance.json"
    prov = json.loads(prov_path.read_text()) if prov_path.exists() else {
        "format": "benchspace-cutlass-dataset", "version": 2, "runs": []}  # fmt: skip
    device = json.loads(meta.get("device.json", b"{}") or b"{}")
    cublas = json.loads(meta.get("cublas.json", b"{}") or b"{}")
    for key in ("gpu", "driver", "nvcc", "cpu_cores"):
        if key in device:
            prov[key] = device[key]
    if cublas.get("loaded"):
        prov["cublaslt_path"] = cublas["path"]
        prov["cublaslt_version"] = cublas["version"]
    if "batches.json" in meta:
        index = json.loads(meta["batches.json"])
        prov["cutlass_version"] = index.get("cutlass_version")
        prov["nvcc_flags"] = index.get("flags")
        prov["glue_version"] = index.get("glue_version")

    def git(*argv: str) -> str:
        proc = subprocess.run(["git", "-C", str(ROOT), *argv], capture_output=True, text=True)
        return proc.stdout.strip()

    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no") != ""
    run = {
        "call": args.call,
        "date": device.get("date"),
        "device_seconds": args.device_seconds,
        "benchspace_commit": commit,
        "benchspace_dirty": dirty,
        "round_rows": counts,
        "sm_clock_mhz": _quantiles(clocks),
        "power_w": _quantiles(powers),
        "note": args.note,
    }
    prov["runs"] = [r for r in prov.get("runs", []) if r.get("call") != args.call] + [run]
    prov_path.write_text(json.dumps(prov, indent=2, sort_keys=True) + "\n")
    print(json.dumps(run, indent=1))
    if clocks:
        print(f"clock median {statistics.median(clocks):.0f} MHz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
