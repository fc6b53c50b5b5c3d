"""SYNTHETIC selector datasets in the measured-dataset format (nothing here was measured).

Throughput is an invented smooth function of the static features (roofline, wave and tile
efficiency, pipeline fill, spill) times log-normal noise, so that the study's code paths
have something learnable to rank. The files say ``synthetic`` in their provenance and their
``gpu`` field. Used by the selector tests, and as a script to write larger folders for
timing the evaluate command::

    python tests/evaluation/selector_data.py OUT_DIR [--train 64] [--eval 16] [--kernels 600]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS, parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.dataset import Dataset
from benchspace.evaluation.cutlass.dataset_runs import study_tables
from benchspace.evaluation.cutlass.hardware import Hardware, load_hardware
from benchspace.evaluation.selector.features import features_for_pairs
from benchspace.evaluation.selector.sampling import biased_diverse, static_score

ROOT = Path(__file__).resolve().parents[2]
KERNEL_LIST = ROOT / "evaluation" / "data" / "h200" / "kernel_set_tnn.txt"
FROZEN = Path(__file__).resolve().parent / "data" / "selector_tiny"
PEAK_TFLOPS = 700.0


def runs_dataset(per_config: pd.DataFrame, gpu: str = "synthetic") -> Dataset:
    """A version-2 record from CRAFTED per-configuration medians (no rounds behind them)."""
    tables, _ = study_tables(per_config, pd.DataFrame(), "crafted")
    return Dataset(
        path=Path("crafted"),
        version=2,
        provenance={"gpu": gpu},
        rounds=pd.DataFrame(),
        rows=pd.DataFrame(),
        study=lambda: tables,
    )


def kernel_names(count: int, seed: int = 0) -> list[str]:
    """``count`` real catalogue names (layout tnn) from the committed kernel list."""
    names = [
        line.strip()
        for line in KERNEL_LIST.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(names), size=min(count, len(names)), replace=False)
    return sorted(names[i] for i in picked)


def synthetic_tflops(features: pd.DataFrame, hw: Hardware, rng: np.random.Generator) -> np.ndarray:
    """An invented throughput (TFLOP/s) for feature rows: plausible shape, no measurement."""
    roof = np.minimum(1.0, features["ai_over_ridge"].to_numpy()) ** 0.7
    wave = features["wave_efficiency"].to_numpy() ** 0.5
    useful = features["useful_fraction"].to_numpy()
    pc = np.minimum(1.0, features["producer_consumer_ratio"].to_numpy()) ** 0.3
    fill = 1.0 - 0.5 * np.exp(-features["pipeline_fill"].to_numpy())
    tile = (features["tile_intensity"].to_numpy() / 128.0) ** 0.25
    sched = np.where(features["schedule"].to_numpy() == "pingpong", 1.05, 1.0)
    sk = 1.0 + 0.3 * features["stream_k_gain"].to_numpy()
    spill = np.where(features["spill_risk"].to_numpy() > 0, 0.05, 1.0)
    base = PEAK_TFLOPS * roof * wave * useful * pc * fill * tile * sched * sk * spill
    return np.asarray(base * np.exp(rng.normal(0.0, 0.03, len(base))))


def _shapes(count: int, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    out: set[tuple[int, int, int]] = set()
    while len(out) < count:
        m, n, k = (
            int(round(np.exp(rng.uniform(np.log(64), np.log(16384))) / 32) * 32) for _ in "mnk"
        )
        out.add((m, n, k))
    return sorted(out)


def write_dataset(
    folder: Path,
    n_train: int = 12,
    n_eval: int = 4,
    n_kernels: int = 40,
    budget: int = 20,
    seed: int = 0,
    failures: bool = True,
    hw_name: str = "h200",
) -> Path:
    """Write a SYNTHETIC dataset folder (gzip CSV tables and provenance.json); returns it."""
    rng = np.random.default_rng(seed)
    hw = load_hardware(hw_name)
    names = kernel_names(n_kernels, seed)
    configs = records_frame(parse_kernel_name(n) for n in names)
    shapes = _shapes(n_train + n_eval, rng)
    order = rng.permutation(len(shapes))
    split = {shapes[i]: ("eval" if j < n_eval else "train") for j, i in enumerate(order)}
    rows, cublas = [], []
    for m, n, k in shapes:
        pairs = configs.assign(M=m, N=n, K=k)
        feats = features_for_pairs(pairs, hw)
        t = synthetic_tflops(feats, hw, rng)
        chosen = np.arange(len(names))
        if split[(m, n, k)] == "train":
            picked = biased_diverse(names, budget, list(static_score(feats, hw)), 0.75, rng)
            chosen = np.array([names.index(p) for p in picked])
        for i in chosen:
            ms = 2.0 * m * n * k / (t[i] * 1e12) * 1e3
            rows.append(
                {
                    "group": f"{m}x{n}x{k}_tnn",
                    "M": m,
                    "N": n,
                    "K": k,
                    "layout": "tnn",
                    "split": split[(m, n, k)],
                    "shape_class": "synthetic",
                    "kernel": names[i],
                    "raster": "H",
                    "swizzle": 1,
                    "status": "ok",
                    "tflops": round(float(t[i]), 4),
                    "ms_mean": ms,
                    "ms_stdev": ms * 0.01,
                    "rel_err": 1.66e-3,
                    "smem_bytes": "",
                    "stages": "",
                    "regs": 168,
                    "local_bytes": 0,
                    "sm_clock_mhz": 1515,
                    "power_w": 690,
                    "batch_size": len(chosen),
                }
            )
        if failures:
            rows.append({**rows[-1], "status": "cannot_implement", "tflops": "", "ms_mean": ""})
        cublas.append(
            {
                "M": m,
                "N": n,
                "K": k,
                "layout": "tnn",
                "tflops": round(float(t.max() * np.exp(rng.normal(0.02, 0.05))), 4),
                "ms_mean": 1.0,
                "ms_stdev": 0.01,
                "sm_clock_mhz": 1515,
                "power_w": 690,
                "method": "synthetic",
            }
        )
    folder.mkdir(parents=True, exist_ok=True)
    kernels = configs[
        [
            f
            for f in FIELDS
            if f
            in (
                "name",
                "tm",
                "tn",
                "tk",
                "cm",
                "cn",
                "stages",
                "kernel_schedule",
                "epilogue_schedule",
                "tile_scheduler",
                "layout",
                "c_type",
            )
        ]
    ]
    kernels = kernels.assign(
        regs=168,
        spill_stores=0,
        spill_loads=0,
        smem_bytes="",
        stack_bytes=0,
        compiled=True,
        library="synthetic",
    )
    gz = {"method": "gzip", "mtime": 0}  # byte-identical files for the same arguments
    kernels.to_csv(folder / "kernels.csv.gz", index=False, compression=gz)
    pd.DataFrame(rows).to_csv(folder / "measurements.csv.gz", index=False, compression=gz)
    pd.DataFrame(cublas).to_csv(folder / "cublas.csv.gz", index=False, compression=gz)
    provenance = {
        "format": "benchspace-cutlass-dataset",
        "version": 1,
        "gpu": "synthetic (not measured)",
        "driver": "none",
        "nvcc": "none",
        "cutlass_version": "4.2.0",
        "benchspace_commit": "synthetic",
        "date": "2026-01-01",
        "sm_count": hw.sms,
        "l2_bytes": hw.llc_bytes,
        "runs": [],
        "synthetic": True,
    }
    (folder / "provenance.json").write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n")
    return folder


def main(argv: list[str] | None = None) -> int:
    """Write a synthetic dataset folder from the command line."""
    parser = argparse.ArgumentParser(description="write a SYNTHETIC selector dataset")
    parser.add_argument("out")
    parser.add_argument("--train", type=int, default=64)
    parser.add_argument("--eval", type=int, default=16)
    parser.add_argument("--kernels", type=int, default=600)
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    write_dataset(Path(args.out), args.train, args.eval, args.kernels, args.budget, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
