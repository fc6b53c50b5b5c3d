"""What a measured dataset holds, and per evaluation shape how CUTLASS compares with cuBLAS.

Pure: from a loaded Dataset to tables (plain data); rendering is separate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evaluation.dataset import Dataset, cublas_table

EPSILONS = (0.01, 0.05, 0.10)


@dataclass(frozen=True, kw_only=True)
class Summary:
    """Counts, failures and the evaluation-shape table."""

    groups: dict[str, int]
    kernels: int
    measurements: int
    by_status: dict[str, int]
    shapes: pd.DataFrame
    """Per evaluation group: best CUTLASS, cuBLAS, ratio, share within 1/5/10 % of best."""


def summarise_dataset(dataset: Dataset) -> Summary:
    """Summarise a dataset (the committed files of one GPU)."""
    m = dataset.measurements
    ok = m[m["status"] == "ok"].dropna(subset=["tflops"])
    # One throughput per (group, kernel, knobs): the mean over repeated attempts.
    per = ok.groupby(
        ["split", "group", "M", "N", "K", "kernel", "raster", "swizzle"], as_index=False
    )["tflops"].mean()
    cublas = cublas_table(dataset)
    rows = []
    for (group, mm, nn, kk), frame in per[per["split"] == "eval"].groupby(["group", "M", "N", "K"]):
        best = frame["tflops"].max()
        best_kernel = frame.loc[frame["tflops"].idxmax(), "kernel"]
        row = {
            "group": group,
            "M": int(mm),
            "N": int(nn),
            "K": int(kk),
            "candidates": len(frame),
            "best_tflops": best,
            "best_kernel": str(best_kernel),
        }
        match = cublas[(cublas["M"] == mm) & (cublas["N"] == nn) & (cublas["K"] == kk)]
        cub = float(match["cublas_tflops"].iloc[0]) if not match.empty else np.nan
        row["cublas_tflops"] = cub
        row["best_vs_cublas"] = best / cub if cub == cub else np.nan
        for eps in EPSILONS:
            row[f"within_{round(eps * 100)}pct"] = float(
                (frame["tflops"] >= (1 - eps) * best).mean()
            )
        rows.append(row)
    groups = m.groupby("split")["group"].nunique().to_dict()
    return Summary(
        groups={str(k): int(v) for k, v in groups.items()},
        kernels=int(m["kernel"].nunique()),
        measurements=len(m),
        by_status={str(k): int(v) for k, v in m["status"].value_counts().items()},
        shapes=pd.DataFrame(rows).sort_values(["M", "N", "K"]) if rows else pd.DataFrame(rows),
    )


def render_summary(summary: Summary, title: str) -> str:
    """The summary as text."""
    lines = [
        title,
        f"groups: {summary.groups.get('train', 0)} training, {summary.groups.get('eval', 0)} "
        f"evaluation; kernels: {summary.kernels}; measurements: {summary.measurements}",
        "by status: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.by_status.items())),
        "",
        "evaluation shapes (exhaustive): best CUTLASS kernel vs cuBLAS (torch.matmul), and the "
        "share of kernels within 1/5/10 % of the best",
        f"{'M x N x K':>20} {'kernels':>7} {'best TF/s':>9} {'cuBLAS':>7} {'ratio':>6} "
        f"{'<1%':>6} {'<5%':>6} {'<10%':>6}  best kernel",
    ]
    shapes = summary.shapes
    prefix = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
    for r in shapes.to_dict("records"):
        name = str(r["best_kernel"]).removeprefix(prefix)
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        lines.append(
            f"{shape:>20} {r['candidates']:>7} {float(r['best_tflops']):>9.1f} "
            f"{float(r['cublas_tflops']):>7.1f} {float(r['best_vs_cublas']):>6.3f} "
            f"{100 * float(r['within_1pct']):>5.2f}% {100 * float(r['within_5pct']):>5.2f}% "
            f"{100 * float(r['within_10pct']):>5.2f}%  {name}"
        )
    if not shapes.empty:
        ratios = shapes["best_vs_cublas"].dropna()
        geo = float(np.exp(np.log(ratios).mean())) if len(ratios) else float("nan")
        share = {e: 100 * float(shapes[f"within_{e}pct"].mean()) for e in (1, 5, 10)}
        lines.append(
            f"{'mean':>20} {'':>7} {'':>9} {'':>7} {geo:>6.3f} {share[1]:>5.2f}% "
            f"{share[5]:>5.2f}% {share[10]:>5.2f}%  (ratio: geometric mean)"
        )
        lines.append("GH200 study, for comparison: 0.43% / 2.4% / 10.9% of kernels within 1/5/10%")
    return "\n".join(lines)
