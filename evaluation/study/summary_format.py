"""A dataset summary as text: what it holds, then per evaluation shape CUTLASS against cuBLAS."""

from __future__ import annotations

import numpy as np

from benchspace.evaluation.study.summary import DatasetSummary


def render_summary(summary: DatasetSummary, title: str) -> str:
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
