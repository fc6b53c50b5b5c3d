#!/usr/bin/env python3
"""What exhaustive choice could read on the 64 v2 evaluation shapes: per shape, the best of every
CUTLASS kernel dataset v2 measured there, of cuBLASLt's top 8, and of both, against the cuBLASLt
heuristic timed in the same rounds (evaluation/data/h200/v2/rows_c*_eval.csv.gz).

    python scripts/catalogue_bound.py [evaluation/data/h200/v2]

These are best-of readings of the rounds that measured them, so they are biased up (the
winner's curse: a pick re-timed in fresh rounds reads lower); a shape measured in several
passes takes the geometric mean of its passes. It bounds what a tune-my-shapes header can be
expected to confirm with this catalogue and cuBLASLt's top 8.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd


def geomean(values: pd.Series) -> float:
    return float(np.exp(np.log(values.astype(float)).mean()))


def passes(folder: Path) -> pd.DataFrame:
    """One row per (file, run, shape) with the heuristic: the three best-of ratios."""
    out = []
    for path in sorted(folder.glob("rows_c*_eval.csv.gz")):
        rows = pd.read_csv(path)
        rows = rows[rows["status"] == "ok"]
        for (_run, _pass, m, n, k), g in rows.groupby(["run", "pass", "M", "N", "K"]):
            ms = dict(zip(g["config"], g["ms_median"], strict=True))
            h = ms.get("cublas:heuristic")
            cutlass = [v for c, v in ms.items() if not c.startswith("cublas")]
            top8 = [v for c, v in ms.items() if c.startswith("cublas:algo")]
            if h is None or not cutlass or not top8:
                continue
            out.append(
                {
                    "shape": f"{m}x{n}x{k}",
                    "kernels": len(cutlass),
                    "cutlass": h / min(cutlass),
                    "top8": h / min(top8),
                    "both": h / min(cutlass + top8),
                }
            )
    return pd.DataFrame(out)


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "evaluation/data/h200/v2")
    frame = passes(folder)
    per_shape = frame.groupby("shape").agg(
        kernels=("kernels", "max"),
        cutlass=("cutlass", geomean),
        top8=("top8", geomean),
        both=("both", geomean),
    )
    kernels = per_shape["kernels"]
    print(
        f"{folder}: {len(per_shape)} evaluation shapes, {len(frame)} passes; CUTLASS "
        f"configurations (kernel and knobs) in a shape's largest pass: median "
        f"{int(kernels.median())}, min {int(kernels.min())}"
    )
    print("best of the same rounds against the cuBLASLt heuristic, geomean (min; ahead on n):")
    for column, label in (
        ("cutlass", "every CUTLASS configuration measured"),
        ("top8", "cuBLASLt's top 8"),
        ("both", "both"),
    ):
        s = per_shape[column]
        print(
            f"  {label}: {geomean(s):.4f} (min {s.min():.4f}; ahead on {int((s > 1).sum())} "
            f"of {len(s)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
