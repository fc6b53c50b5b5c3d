#!/usr/bin/env python3
"""What ``scripts/device/ship_check.sh`` measured on the H200 (evaluation/data/h200/ship): the
GEMM library built from a header, verified and timed through ``benchspace::gemm::run``
beside the cuBLASLt heuristic, and the driver's confirmation run of the same header's choices.

    python scripts/ship_summary.py [evaluation/data/h200/ship] [LIB]

LIB: the folder under it of the library's run (default ``lib``; another run of the same
header's library, e.g. ``lib_r31``, is set against the same driver confirmation).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def geomean(values: pd.Series) -> float:
    return float(np.exp(np.log(values.astype(float)).mean()))


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "evaluation/data/h200/ship")
    run = folder / (sys.argv[2] if len(sys.argv) > 2 else "lib")
    lib = pd.read_csv(run / "library_check.csv.gz")
    prov = json.loads((run / "provenance.json").read_text())
    rows = pd.read_csv(folder / "driver" / "timing_rows_s_g2ms.csv.gz")
    rows = rows[(rows["status"] == "ok") & ~rows["config"].str.endswith("@last")]
    finalists = json.loads((folder / "driver" / "finalists.json").read_text())
    kinds = lib["header_choice"].map(lambda c: c.split(":")[0] if ":" in c else c)
    print(
        f"header {prov['header']} ({prov['header_sha256'][:12]}): at the {len(lib)} shapes "
        + ", ".join(f"{n} {k}" for k, n in kinds.value_counts().items())
    )
    print(
        f"library (benchspace::gemm::run, {prov['rounds']} rounds of >= {prov['min_graph_ms']} ms "
        f"graphs): correct on {int(lib['ok'].sum())} of {len(lib)} (max rel_err "
        f"{lib['rel_err'].max():.2e}); run / heuristic geomean {geomean(lib['speedup']):.4f} "
        f"(min {lib['speedup'].min():.4f})"
    )
    ratios = []
    for _, r in lib.iterrows():
        key = f"{r['m']}x{r['n']}x{r['k']}"
        t = rows[(rows["M"] == r["m"]) & (rows["N"] == r["n"]) & (rows["K"] == r["k"])]
        ms = dict(zip(t["config"], t["ms_median"], strict=True))
        chosen = finalists[key]["shortlist"]
        choice = chosen[0] if chosen else "cublas:heuristic"
        top8 = [ms[f"cublas:algo{i}"] for i in range(8) if f"cublas:algo{i}" in ms]
        h = ms["cublas:heuristic"]
        # benchspace_gemm_run: the library's run() in the driver's rounds (runs that had it)
        in_driver = ms[choice] / ms["benchspace_gemm_run"] if "benchspace_gemm_run" in ms else None
        ratios.append(
            (h / ms[choice], float(r["speedup"]), h / min(top8), key,
             float(r["ms"]) / ms[choice], float(r["ms_heuristic"]) / h, in_driver)
        )  # fmt: skip
    frame = pd.DataFrame(
        ratios,
        columns=["driver", "library", "best8", "shape", "run_abs", "heuristic_abs", "in_driver"],
    )
    agree = frame["library"] / frame["driver"]
    print(
        f"driver confirmation run (g2ms): header / heuristic "
        f"geomean {geomean(frame['driver']):.4f} "
        f"(min {frame['driver'].min():.4f}, ahead on {(frame['driver'] > 1).sum()}); "
        f"cuBLASLt's best of 8 {geomean(frame['best8']):.4f}"
    )
    print(
        f"library against the driver (each over its own heuristic): geomean {geomean(agree):.4f}, "
        f"within 2 % on {int(((agree - 1).abs() <= 0.02).sum())} of {len(agree)} shapes"
    )
    in_driver = frame["in_driver"].dropna().astype(float)
    if not in_driver.empty:
        print(
            f"library in the driver's rounds (benchspace_gemm_run, same process as the header's "
            f"choice): choice / run geomean {geomean(in_driver):.4f} (min {in_driver.min():.4f}, "
            f"max {in_driver.max():.4f}), within 2 % on "
            f"{int(((in_driver - 1).abs() <= 0.02).sum())} of {len(finalists)} shapes "
            f"({len(in_driver)} passed the driver's check)"
        )
    # Outside 2 %: which side moved, each timing over the driver's of the same algorithm
    # (across processes: clocks and power differ, so these read about 1 +- a few %).
    for _, f in frame[(agree - 1).abs() > 0.02].iterrows():
        print(
            f"  outside 2 %: {f['shape']}: library run / driver {f['run_abs']:.4f}, the "
            f"library's heuristic / driver's {f['heuristic_abs']:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
