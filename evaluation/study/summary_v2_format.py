"""Render dataset v2's fair summary (:mod:`benchspace.evaluation.study.summary_v2`) as text."""

from __future__ import annotations

from benchspace.evaluation.cutlass.dataset_v2 import KERNEL_PREFIX
from benchspace.evaluation.study.summary_v2 import SummaryV2


def render_summary_v2(summary: SummaryV2, title: str) -> str:
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
            f"{'dflt/heur':>9} {'bestN/heur':>10} {'CUTLASS ahead':>13}",
        ]
        for r in summary.by_class.to_dict("records"):
            lines.append(
                f"{r['class']:>14} {r['shapes']:>6} {r['oracle_vs_heuristic']:>8.3f} "
                f"{r['oracle_vs_best_of_n']:>9.3f} {r['knob_gain']:>9.3f} "
                f"{r['default_vs_heuristic']:>9.3f} {r['best_of_n_vs_heuristic']:>10.3f} "
                f"{100 * r['cutlass_ahead']:>12.0f}%"
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
