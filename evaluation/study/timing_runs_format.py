"""The timing study as text: the position check, the noise per timing mode, the K curve."""

from __future__ import annotations

from benchspace.evaluation.study.position import PositionCheck, render_position
from benchspace.evaluation.study.timing_runs import KPoint, ModeNoise

MODES = {
    "g3": "graphs of 3 launches, 5 rounds",
    "g0": "graph-free, 10 launches behind the spin-held stream, 5 rounds",
    "g20": "graphs of 20 launches, 5 rounds",
    "r15": "graphs of 3 launches, 15 rounds",
    "g0r10": "graph-free, 10 launches behind the spin-held stream, 10 rounds",
    "g2ms": "graphs of as many launches as make a 2 ms sample, 10 rounds",
}


def render_timing(
    title: str,
    check: PositionCheck | None,
    by_mode: dict[str, PositionCheck | None],
    noise: list[ModeNoise],
    curves: dict[str, list[KPoint]],
) -> str:
    """Every figure of the study, one line each."""
    lines = [title, *render_position(check)]
    for mode, mode_check in sorted(by_mode.items()):
        lines += [f"  {mode}: {line}" for line in render_position(mode_check)]
    if noise:
        lines.append("between runs a and b (the same shapes, new processes):")
    for n in noise:
        lines.append(
            f"  {n.mode} ({MODES.get(n.mode, n.mode)}): heuristic timed in two runs sd "
            f"{100 * n.heuristic_sd:.2f} %; a shape's best re-timed in another run loses "
            f"{100 * n.best_loss_mean:.2f} % mean ({100 * n.best_loss_p95:.2f} % p95) over "
            f"{n.shapes} shapes"
        )
    for mode, points in curves.items():
        lines.append(
            f"K curve ({mode}; picked in run a, confirmed = re-timed in run b): pick vs "
            "cuBLAS heuristic, geomean (ahead on n)"
        )
        for p in points:
            lines.append(
                f"  K={p.k}: selection {p.select_geomean:.3f} ({p.select_ahead} of {p.shapes}), "
                f"confirmation {p.confirm_geomean:.3f} ({p.confirm_ahead} of {p.shapes}); "
                f"or cublas: selection {p.or_cublas_select:.3f}, confirmation "
                f"{p.or_cublas_confirm:.3f}"
            )
    return "\n".join(lines)
