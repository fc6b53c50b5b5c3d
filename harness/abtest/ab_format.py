"""Rendering an A/B: its JSON document, a plain-text report and a Markdown table row."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from benchspace.harness.abtest.ab import ABResult, Side, format_env
from benchspace.harness.abtest.stats import Comparison
from benchspace.harness.jsonio import dumps

AB_FORMAT = "benchspace-ab"
AB_VERSION = 1


def render_ab(result: ABResult, fmt: str) -> str:
    """The report in the asked format."""
    if fmt == "json":
        return dumps(ab_record(result))
    return render_md(result) if fmt == "md" else render_text(result)


def change_pct(ratio: float) -> str:
    """A ratio as a signed percentage change of B against A: ``-3.1 %``."""
    return f"{(ratio - 1.0) * 100:+.1f} %"


def interval_text(c: Comparison) -> str:
    """``[0.962, 0.978]``."""
    return f"[{c.ci_low:.3f}, {c.ci_high:.3f}]"


_STOPS = {
    "decided": "the interval cleared 1{margin} and the rank test agreed after {n} pairs",
    "rounds": "the pair budget ({n} pairs) was spent",
    "time": "the time budget was spent after {n} pairs",
}


def render_text(result: ABResult) -> str:
    """A short plain-text report."""
    c = result.comparison
    inv = result.a.invocation
    better = "lower" if result.direction == "min" else "higher"
    margin = f" by ±{c.margin_pct:g} %" if c.margin_pct else ""
    lines = [
        f"A: {format_env(result.a.overrides)}  [{shlex.join(result.a.invocation.argv)}]",
        f"B: {format_env(result.b.overrides)}  [{shlex.join(result.b.invocation.argv)}]",
        f"metric {inv.metric} ({better} is better), {c.n_pairs} pairs interleaved in random "
        f"order (seed {result.seed})",
        f"median A {c.median_a:.6g}, median B {c.median_b:.6g}",
        f"B/A {c.ratio:.4f} ({change_pct(c.ratio)}), 95 % interval {interval_text(c)}, "
        f"Mann-Whitney U p = {c.p_value:.2g}",
        f"verdict: {c.verdict}",
        "stopped: "
        + _STOPS[result.stop].format(margin=margin, n=c.n_pairs)
        + f"; looks at {', '.join(map(str, result.looks))} pairs, each at "
        f"{c.decision_confidence * 100:.2f} % confidence",
    ]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines) + "\n"


MD_HEADER = (
    "| A | B | median A | median B | B/A | 95 % interval | p (MWU) | pairs | verdict |\n"
    "|---|---|---:|---:|---:|---|---:|---:|---|\n"
)


def md_row(a: str, b: str, c: Comparison) -> str:
    """One Markdown table row of a comparison."""
    return (
        f"| {a} | {b} | {c.median_a:.6g} | {c.median_b:.6g} | {c.ratio:.4f} "
        f"({change_pct(c.ratio)}) | {interval_text(c)} | {c.p_value:.2g} | {c.n_pairs} | "
        f"**{c.verdict}** |\n"
    )


def side_label(side: Side, other: Side) -> str:
    """The side's overrides, and its executable when the two sides run different ones."""
    label = f"`{format_env(side.overrides)}`"
    if side.invocation.exe_path != other.invocation.exe_path:
        label += f" `{Path(side.invocation.exe).name}`"
    return label


def render_md(result: ABResult) -> str:
    """A one-row Markdown table plus warnings."""
    a, b = side_label(result.a, result.b), side_label(result.b, result.a)
    out = MD_HEADER + md_row(a, b, result.comparison)
    out += "".join(f"\n> warning: {w}\n" for w in result.warnings)
    return out


def comparison_record(c: Comparison) -> dict[str, Any]:
    """The figures of a comparison as JSON-ready data."""
    return {
        "pairs": c.n_pairs,
        "median_a": c.median_a,
        "median_b": c.median_b,
        "ratio": c.ratio,
        "ci": [c.ci_low, c.ci_high],
        "confidence": c.confidence,
        "decision_interval": [c.decision_low, c.decision_high],
        "decision_confidence": c.decision_confidence,
        "p_value": c.p_value,
        "cv_a": c.cv_a,
        "cv_b": c.cv_b,
        "margin_pct": c.margin_pct,
        "verdict": c.verdict,
    }


def _side_record(side: Side) -> dict[str, Any]:
    inv = side.invocation
    return {
        "exe": inv.exe,
        "exe_sha256": inv.exe_sha256,
        "argv": list(inv.argv),
        "overrides": dict(side.overrides),
        "env": dict(inv.env),
    }


def ab_record(result: ABResult) -> dict[str, Any]:
    """The whole A/B as a versioned JSON document."""
    inv = result.a.invocation
    return {
        "format": AB_FORMAT,
        "version": AB_VERSION,
        "bench": inv.bench,
        "case_index": inv.case_index,
        "metric": inv.metric,
        "row": inv.row,
        "direction": result.direction,
        "a": _side_record(result.a),
        "b": _side_record(result.b),
        **comparison_record(result.comparison),
        "samples": {"a": list(result.samples_a), "b": list(result.samples_b)},
        "orders": list(result.orders),
        "looks": list(result.looks),
        "stop": result.stop,
        "seed": result.seed,
        "elapsed_s": round(result.elapsed_s, 3),
        "warnings": list(result.warnings),
    }
