"""The tune-my-shapes tables: regret and GPU time against K, and measured winners per shape."""

from __future__ import annotations

import math
from collections.abc import Sequence

from evaluation.deploy.measured_header import ShapeWinner
from evaluation.deploy.shortlist_study import ShortlistStudy


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
        f"rounds x {p.iters}) + {p.heat_s:g} s heat + {p.shape_overhead_s:g} s start per shape.",
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
    return lines
