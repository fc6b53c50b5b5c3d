"""Render a :class:`~evaluation.deploy.header_check.HeaderCheck`: what ``header --check`` prints."""

from __future__ import annotations

import numpy as np

from benchspace.evaluation.deploy.header_check import HeaderCheck


def render_check(check: HeaderCheck, leaves: int, goal: tuple[float, float] = (0.01, 0.05)) -> str:
    """The lines ``header --check`` prints."""

    def pct(x: float) -> str:
        return "n/a" if not np.isfinite(x) else f"{100 * x:.2f} %"

    p = check.predicted
    lines = [
        f"header vs select on {check.samples} fresh shapes (seed {check.seed}, {leaves} leaves):",
        f"  predicted regret (judged by the selector's own calibrated scores, not measured): "
        f"mean {pct(p.mean)}, median {pct(p.median)}, p95 {pct(p.p95)}, max {pct(p.max)}",
        f"  same kernel as select on {100 * check.agreement:.1f} % of shapes; "
        f"{check.cublas_shapes} shapes dispatched to cublas (not scored)",
        f"  goal mean <= {pct(goal[0])}, max <= {pct(goal[1])}: "
        + ("met" if p.mean <= goal[0] and p.max <= goal[1] else "not met"),
    ]
    for title, stats in (
        ("measured regret of the header vs select's pick", check.measured_vs_select),
        ("measured regret of the header vs the measured best", check.measured_header),
        ("measured regret of select vs the measured best", check.measured_select),
    ):
        if stats is not None and stats.count:
            lines.append(
                f"  {title} ({stats.count} exhaustive shapes): mean {pct(stats.mean)}, "
                f"median {pct(stats.median)}, p95 {pct(stats.p95)}, max {pct(stats.max)}"
            )
    return "\n".join(lines)
