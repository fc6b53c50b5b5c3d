"""The tune-my-shapes tables: regret and GPU time against K, and measured winners per shape;
the measured curve as a figure (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from benchspace.evaluation.deploy.measured_header import ShapeWinner
from benchspace.evaluation.deploy.shortlist_measured import MeasuredCurve
from benchspace.evaluation.deploy.shortlist_study import ShortlistStudy


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.2f} %"


def _time(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def render_curve(study: ShortlistStudy) -> list[str]:
    """A markdown table: K, mean / p95 / max regret, oracle hits, GPU time vs exhaustive."""
    p = study.protocol
    lines = [
        f"Tune my shapes on {study.groups} held-out exhaustive shapes ({study.model}, trained "
        "on the training shapes only): regret of the fastest measured of the top K against "
        "the exhaustive oracle; GPU time from the recorded ms per launch x "
        f"{p.launches} launches per configuration (check, {p.warmups} warm-ups, {p.rounds} "
        f"rounds x {p.iters}) + {1e3 * p.config_overhead_s:g} ms host work per "
        f"configuration + {p.heat_s:g} s heat + {p.shape_overhead_s:g} s start per shape.",
        "",
        "| K | mean | p95 | max | oracle in top K | configurations | launches | GPU time "
        "| vs exhaustive |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in study.rows:
        lines.append(
            f"| {r.k} | {_pct(r.mean)} | {_pct(r.p95)} | {_pct(r.max)} | {100 * r.hit:.0f} % "
            f"| {r.configs} | {_time(r.launch_s)} | {_time(r.gpu_s)} "
            f"| {100 * r.gpu_s / study.exhaustive_s:.1f} % |"
        )
    lines.append(
        f"| all | 0 % | 0 % | 0 % | 100 % | {study.exhaustive_configs} | "
        f"{_time(study.exhaustive_launch_s)} | {_time(study.exhaustive_s)} | 100 % |"
    )
    if any(r.with_cublas is not None for r in study.rows):
        lines += [
            "",
            "With cuBLAS in the same rounds (the choice: the best of the top K or "
            "cublas:heuristic; against the best of the oracle and cublas:heuristic; GPU "
            "times above include the 9 cuBLASLt configurations per shape):",
            "",
            "| K | mean | p95 | max | best of top K / cuBLAS heuristic (geomean) |",
            "|---|---|---|---|---|",
        ]
        for r in study.rows:
            if r.with_cublas is not None and r.vs_cublas is not None:
                mean, p95, worst = r.with_cublas
                lines.append(
                    f"| {r.k} | {_pct(mean)} | {_pct(p95)} | {_pct(worst)} | {r.vs_cublas:.3f} |"
                )
    return lines


def _ratio(a: float, b: float) -> str:
    return "-" if math.isnan(a) or math.isnan(b) or b <= 0 else f"{a / b:.3f}"


def render_winners(summary: Sequence[ShapeWinner], hits: Sequence[bool] | None = None) -> list[str]:
    """Per measured shape: the winner, best CUTLASS vs cuBLAS (same rounds)."""
    lines = [
        "| shape | winner | TFLOP/s | best CUTLASS / cuBLAS | / cuBLASLt best of N |"
        + (" header runs it |" if hits is not None else ""),
        "|---|---|---|---|---|" + ("---|" if hits is not None else ""),
    ]
    for i, w in enumerate(summary):
        short = w.winner.split("_bf16_bf16_f32_void_bf16_", 1)[-1]
        lines.append(
            f"| {'x'.join(map(str, w.shape))} | {short} | {w.winner_tflops:.1f} | "
            f"{_ratio(w.cutlass_tflops, w.cublas_tflops)} | "
            f"{_ratio(w.cutlass_tflops, w.cublas_best_tflops)} |"
            + (f" {'yes' if hits[i] else 'no'} |" if hits is not None else "")
        )
    pairs = [(w.cutlass_tflops, w.cublas_tflops) for w in summary]
    ratios = [c / h for c, h in pairs if c > 0 and h > 0]  # nan compares false
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        ahead = sum(r > 1.0 for r in ratios)
        lines.append(
            f"best CUTLASS / cuBLAS heuristic: geometric mean {mean:.3f}, CUTLASS ahead on "
            f"{ahead} of {len(ratios)} shapes (same rounds)"
        )
    return lines


def render_prefix_regret(
    kept: Sequence[ShapeWinner], full: Sequence[ShapeWinner], k: int | None
) -> str:
    """What keeping only the top ``k`` costs against everything measured, per shape: the best
    CUTLASS kernel, and the winner among CUTLASS and cuBLAS; mean and max."""
    by_shape = {w.shape: w for w in full}
    cut, win = [], []
    for w in kept:
        ref = by_shape[w.shape]
        if not math.isnan(w.cutlass_tflops) and ref.cutlass_tflops > 0:
            cut.append(1.0 - w.cutlass_tflops / ref.cutlass_tflops)
        if ref.winner_tflops > 0:
            win.append(1.0 - w.winner_tflops / ref.winner_tflops)
    label = f"top {k}" if k else "the whole shortlist"
    parts = [
        f"{name}: mean {_pct(sum(v) / len(v))}, max {_pct(max(v))}"
        for name, v in (("CUTLASS", cut), ("CUTLASS or cuBLAS", win))
        if v
    ]
    return f"{label} against everything measured ({len(kept)} shapes): " + "; ".join(parts)


def render_measured(curve: MeasuredCurve) -> list[str]:
    """A markdown table of the K curve measured on the GPU, in the oracle's rounds."""
    lines = [
        f"Tune my shapes measured on the GPU, {curve.shapes} evaluation shapes: each "
        "shortlisted configuration was timed in the same driver run and interleaved rounds "
        "as the shape's oracle sweep and cuBLASLt; pick = the fastest measured of the top K. "
        f"Oracle vs cublas:heuristic on these shapes: {curve.oracle_vs_cublas:.3f}x."
        + (f" {curve.missing} shortlisted configurations were not timed." if curve.missing else ""),
        "",
        "| K | mean | median | p95 | max | pick = oracle | pick vs cuBLAS | pick ahead "
        "| or cuBLAS: mean | p95 | max | vs cuBLAS | GPU time | vs exhaustive |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in curve.rows:
        mean, p95, worst = r.with_cublas
        lines.append(
            f"| {r.k} | {_pct(r.mean)} | {_pct(r.median)} | {_pct(r.p95)} | {_pct(r.max)} "
            f"| {100 * r.hit:.0f} % | {r.vs_cublas:.3f}x | {100 * r.ahead:.0f} % "
            f"| {_pct(mean)} | {_pct(p95)} | {_pct(worst)} | {r.with_cublas_vs:.3f}x "
            f"| {_time(r.gpu_s)} | {100 * r.gpu_s / curve.exhaustive_s:.1f} % |"
        )
    lines.append(
        f"| all | 0 % | 0 % | 0 % | 0 % | 100 % | {curve.oracle_vs_cublas:.3f}x | | | | | "
        f"| {_time(curve.exhaustive_s)} | 100 % |"
    )
    return lines


def write_curve_figure(curve: MeasuredCurve, path: Path) -> Path:
    """Regret (mean and p95) and the pick against cuBLAS, against K, CUTLASS only and with
    ``cublas`` as a dispatch choice; a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [r.k for r in curve.rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.plot(ks, [100 * r.mean for r in curve.rows], marker="o", label="CUTLASS: mean")
    left.plot(ks, [100 * r.p95 for r in curve.rows], marker="o", ls="--", label="CUTLASS: p95")
    left.plot(ks, [100 * r.with_cublas[0] for r in curve.rows], marker="s", label="or cuBLAS: mean")
    left.plot(ks, [100 * r.with_cublas[1] for r in curve.rows], marker="s", ls="--",
              label="or cuBLAS: p95")  # fmt: skip
    left.set_xscale("log", base=2)
    left.set_xticks(ks, [str(k) for k in ks])
    left.set_xlabel("K (shortlisted configurations measured per shape)")
    left.set_ylabel("regret vs the oracle of the same rounds (%)")
    left.legend(fontsize=7)
    right.plot(ks, [r.vs_cublas for r in curve.rows], marker="o", label="CUTLASS pick")
    right.plot(ks, [r.with_cublas_vs for r in curve.rows], marker="s", label="pick or cuBLAS")
    right.axhline(curve.oracle_vs_cublas, color="grey", ls=":", label="oracle")
    right.axhline(1.0, color="black", lw=0.5)
    right.set_xscale("log", base=2)
    right.set_xticks(ks, [str(k) for k in ks])
    right.set_xlabel("K")
    right.set_ylabel("t(cublas:heuristic) / t(pick), geomean")
    right.legend(fontsize=7)
    fig.suptitle(f"Tune my shapes measured on the GPU ({curve.shapes} shapes)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path
