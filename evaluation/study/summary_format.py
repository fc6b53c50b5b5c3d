"""A dataset summary as text (:mod:`benchspace.evaluation.study.summary`): what it holds, then
per evaluation shape CUTLASS against cuBLAS; the fair tables where the dataset has rounds."""

from __future__ import annotations

import numpy as np

from benchspace.evaluation.cutlass.dataset import KERNEL_PREFIX, Dataset, describe
from benchspace.evaluation.study.summary import DatasetSummary, FairSummary


def summary_title(dataset: Dataset) -> str:
    """The line naming the dataset: GPU and versions with rounds, else counts and commit."""
    if not dataset.has_rounds:
        return describe(dataset)
    p = dataset.provenance
    return (
        f"{dataset.path}: {p.get('gpu', '?')}, driver {p.get('driver', '?')}, cuBLASLt "
        f"{p.get('cublaslt_version', '?')}, CUTLASS {p.get('cutlass_version', '?')}"
    )


def render_summary(summary: DatasetSummary | FairSummary, title: str) -> str:
    """Either summary as text, under ``title``."""
    if isinstance(summary, FairSummary):
        return render_fair(summary, title)
    return render_means(summary, title)


def render_means(summary: DatasetSummary, title: str) -> str:
    """The summary of a dataset of means as text."""
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
    for r in shapes.to_dict("records"):
        name = str(r["best_kernel"]).removeprefix(KERNEL_PREFIX)
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


def render_fair(summary: FairSummary, title: str) -> str:
    """The fair tables as text."""
    c = summary.counts
    lines = [
        title,
        f"evaluation shapes {c['eval_shapes']}, training shapes {c['train_shapes']}, kernels "
        f"{c['kernels']}, configurations {c['configs']}, runs {c['runs']}, round rows "
        f"{c['round_rows']}, failed configuration rows {c['failed_rows']}",
        "",
        "per evaluation shape (ratios > 1: CUTLASS faster; medians over rounds, cuBLASLt in the "
        "same rounds):",
        f"{'M x N x K':>18} {'kern':>4} {'knobs':>5} {'orc/heur':>8} {'orc/bestN':>9} "
        f"{'knob gain':>9} {'dflt/heur':>9} {'TF/s':>6} {'cuBLAS':>6} {'MHz p5-p95':>11} "
        f"{'W p5-p95':>9}  oracle",
    ]
    for r in summary.shapes.to_dict("records"):
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        lines.append(
            f"{shape:>18} {r['kernels']:>4} {r['knob_configs']:>5} "
            f"{r['oracle_vs_heuristic']:>8.3f} {r['oracle_vs_best_of_n']:>9.3f} "
            f"{r['knob_gain']:>9.3f} {r['default_vs_heuristic']:>9.3f} "
            f"{r['oracle_tflops']:>6.0f} {r['cublas_tflops']:>6.0f} "
            f"{r['clock_p5']:>5.0f}-{r['clock_p95']:<5.0f} "
            f"{r['power_p5']:>4.0f}-{r['power_p95']:<4.0f}"
            f"  {str(r['oracle_config']).removeprefix(KERNEL_PREFIX)}"
        )
    if summary.noise:
        n = summary.noise
        lines += [
            "",
            f"noise: the same cuBLASLt algorithm timed twice in one run (heuristic / algo0): "
            f"geometric mean {n['geomean']:.3f}, p5 {n['p5']:.3f}, p95 {n['p95']:.3f}; a best of "
            "N noisy timings (best-of-N, the oracle) reads a few % high on noise alone",
        ]
    if summary.between_calls:
        lines += [
            "",
            "sweep runs against their shape's exhaustive run (speed = the exhaustive run's ms over "
            "the sweep's, by their cuBLASLt rows; < 1: the sweep ran slower):",
        ]
        for tag, b in summary.between_calls.items():
            lines.append(
                f"  pass {tag}: {b['runs']:.0f} runs, speed {b['speed']:.3f} (p5 "
                f"{b['speed_p5']:.3f}, p95 {b['speed_p95']:.3f}), oracle / heuristic inside them "
                f"{b['oracle_vs_heuristic']:.3f}"
            )
    if not summary.by_class.empty:
        lines += [
            "",
            "geometric means by class:",
            f"{'class':>14} {'shapes':>6} {'orc/heur':>8} {'orc/bestN':>9} {'knob gain':>9} "
            f"{'dflt/heur':>9} {'bestN/heur':>10} {'CUTLASS ahead':>13} {'max/heur':>8} "
            f"{'max/bestN':>9}",
        ]
        for r in summary.by_class.to_dict("records"):
            lines.append(
                f"{r['class']:>14} {r['shapes']:>6} {r['oracle_vs_heuristic']:>8.3f} "
                f"{r['oracle_vs_best_of_n']:>9.3f} {r['knob_gain']:>9.3f} "
                f"{r['default_vs_heuristic']:>9.3f} {r['best_of_n_vs_heuristic']:>10.3f} "
                f"{100 * r['cutlass_ahead']:>12.0f}% {r['either_vs_heuristic']:>8.3f} "
                f"{r['either_vs_best_of_n']:>9.3f}"
            )
        lines.append(
            "max: per shape the better of the oracle and cuBLASLt's best of its listed N, both "
            "chosen and timed on the same rounds (what a dispatch among them could read at most "
            "here; high on noise, as every best-of is)"
        )
    if not summary.training.empty:
        t = summary.training
        lines += [
            "",
            f"training shapes: {len(t)}, configurations per shape {int(t['configs'].min())}-"
            f"{int(t['configs'].max())} (median {int(t['configs'].median())}), kernels per "
            f"shape median {int(t['kernels'].median())}",
        ]
    return "\n".join(lines)
