"""Render a sensitivity report (and what --write-pruned did): text, Markdown, JSON data, a plot."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchspace.harness.analysis.prune import Pruned, format_value
from benchspace.harness.analysis.sensitivity_report import (
    BenchReport,
    ParamReport,
    SensitivityReport,
)
from benchspace.harness.files import write_error

INERT_NOTE = "inert — check that the code reads it"


# ---------------------------------------------------------------- data


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, 4)


def _param_data(p: ParamReport) -> dict[str, Any]:
    return {
        "param": p.param,
        "env_var": p.env_var,
        "pre_tune": p.pre_tune,
        "slices": p.slices,
        "spreads": [_num(s) for s in p.spreads],
        "median_pct": _num(p.median_pct),
        "p90_pct": _num(p.p90_pct),
        "max_pct": _num(p.max_pct),
        "verdict": p.verdict,
        "inert": p.inert,
        "inert_test": p.inert_test,
        "inert_p": _num(p.inert_p),
        "never_winning": list(p.never_winning),
        "values": [
            {
                "value": v.value,
                "wins": list(v.wins),
                "excess_pct": _num(v.excess_pct),
                "excess_case": v.excess_case,
                "excess_by_case": {str(c): _num(e) for c, e in v.excess_by_case.items()},
                "failed_only": v.failed_only,
                "never_wins": v.never_wins,
            }
            for v in p.values
        ],
    }


def _bench_data(b: BenchReport) -> dict[str, Any]:
    return {
        "bench": b.bench,
        "metric": b.metric,
        "direction": b.direction,
        "measurements": b.measurements,
        "cases": list(b.cases),
        "pre_tuned": list(b.pre_tuned),
        "noise": {
            "pct": _num(b.noise.pct),
            "source": b.noise.source,
            "measured_pct": _num(b.noise.measured_pct),
            "basis": b.noise.basis,
        },
        "params": [_param_data(p) for p in b.params],
    }


def report_data(report: SensitivityReport) -> dict[str, Any]:
    """The report as plain JSON data."""
    return {
        "source": report.source,
        "noise_option": report.noise_option,
        "fallback_pct": report.fallback_pct,
        "benches": [_bench_data(b) for b in report.benches],
    }


def pruned_data(
    result: Pruned, *, before: int, after: int, path: Path, space: Path
) -> dict[str, Any]:
    """What --write-pruned did, as plain data."""
    return {
        "path": str(path),
        "space": str(space),
        "invocations_before": before,
        "invocations_after": after,
        "cut_pct": _num(100.0 * (before - after) / before) if before else 0.0,
        "pinned": [
            {
                "bench": p.bench,
                "param": p.param,
                "values": {str(k): v for k, v in p.values.items()},
                "origin": p.origin,
                "reason": p.reason,
            }
            for p in result.pins
        ],
        "trimmed": [
            {
                "bench": t.bench,
                "param": t.param,
                "removed": [{"value": v, "cases": list(c)} for v, c in t.removed],
                "everywhere": list(t.everywhere),
                "kept": list(t.kept),
            }
            for t in result.trims
        ],
        "notes": list(result.notes),
    }


# ---------------------------------------------------------------- text and markdown


def ranked(report: SensitivityReport) -> list[ParamReport]:
    """Every parameter report, most sensitive first (median, then max spread)."""
    rows = [p for bench in report.benches for p in bench.params]
    return sorted(rows, key=lambda p: (-(p.median_pct or -1.0), -(p.max_pct or -1.0), p.bench))


def _pct(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.2f}"


def _noise_line(b: BenchReport, fallback: float) -> str:
    n = b.noise
    if n.source == "unknown":
        return (
            f"{b.bench}: noise unknown: no repeats and no reported spread; using {fallback:g} % "
            "for the verdicts; measuring it needs `benchspace tune --repeats 3` or more (or "
            "set --noise PCT)"
        )
    if n.source == "flag":
        measured = "unknown" if n.measured_pct is None else f"{n.measured_pct:.2f} %"
        return f"{b.bench}: {n.pct:.2f} % (--noise; measured {measured})"
    return f"{b.bench}: {n.pct:.2f} % (from {n.source}, {n.basis} measurements)"


def _table(rows: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    if markdown:
        out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        return out + ["| " + " | ".join(r) + " |" for r in rows[1:]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    numeric = {2, 3, 4, 5}
    return [
        "  ".join(
            c.rjust(widths[i]) if i in numeric else c.ljust(widths[i]) for i, c in enumerate(r)
        ).rstrip()
        for r in rows
    ]


def _verdict(p: ParamReport) -> str:
    text = {"flat": "flat - shrink the grid", "untested": "untested (one value)"}.get(
        p.verdict, p.verdict
    )
    return f"{text}; {INERT_NOTE}" if p.inert else text


def render(report: SensitivityReport, *, markdown: bool = False) -> str:
    """The report as a text (or markdown) table with the dead, inert and never-winning lists."""
    total = sum(b.measurements for b in report.benches)
    lines = [
        f"{'## ' if markdown else ''}sensitivity of {report.source}: {len(report.benches)} "
        f"bench{'' if len(report.benches) == 1 else 'es'}, {total} measurements",
        "",
        "noise floor (verdicts are relative to it):",
        *(f"{'- ' if markdown else '  '}{_noise_line(b, report.fallback_pct)}"
          for b in report.benches),
        "",
    ]  # fmt: skip
    rows = [["bench", "parameter", "median %", "p90 %", "max %", "slices", "verdict"]]
    for p in ranked(report):
        name = p.param + (f" (env {p.env_var})" if p.env_var else "")
        if p.pre_tune is not None:
            name += f" (pre_tune[{p.pre_tune}])"
        rows.append(
            [p.bench, name, _pct(p.median_pct), _pct(p.p90_pct), _pct(p.max_pct), str(p.slices),
             _verdict(p)]
        )  # fmt: skip
    lines += _table(rows, markdown)
    bullet = "- " if markdown else "  "
    params = ranked(report)
    dead = [f"{p.bench}.{p.param}" for p in params if p.verdict == "dead"]
    lines += ["", f"dead (max spread within noise): {', '.join(dead) or 'none'}"]
    inert = [p for p in params if p.inert]
    if inert:
        lines += ["", f"{INERT_NOTE}:"]
        for p in inert:
            test = p.inert_test + ("" if p.inert_p is None else f", p = {p.inert_p:.2f}")
            lines.append(f"{bullet}{p.bench}.{p.param} ({test})")
    never = [p for p in params if p.never_winning]
    if never:
        lines += ["", "values that won no case and never came within noise of a case's best:"]
        for p in never:
            values = ", ".join(map(format_value, p.never_winning))
            lines.append(f"{bullet}{p.bench}.{p.param}: {values}")
    pre = [f"{b.bench}.{n}" for b in report.benches for n in b.unanalysed]
    if pre:
        lines += [
            "",
            f"not analysed (pre-tuned; only the winner is in the profile): {', '.join(pre)}",
        ]
    return "\n".join(lines) + "\n"


def render_pruned(data: Mapping[str, Any], *, markdown: bool = False) -> str:
    """What --write-pruned wrote, with the invocation counts before and after."""
    bullet = "- " if markdown else "  "
    lines = [
        "",
        f"wrote pruned space {data['path']} (from {data['space']}):",
        *(f"{bullet}{note}" for note in data["notes"]),
    ]
    if not data["notes"]:
        lines.append(f"{bullet}nothing to prune")
    lines.append(
        f"invocations per repeat: {data['invocations_before']} before, "
        f"{data['invocations_after']} after ({data['cut_pct']:.1f} % fewer)"
    )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- plot


def plot(report: SensitivityReport, path: Path) -> None:
    """Per parameter, every slice's spread with median and max, over its bench's noise band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    params = list(reversed(ranked(report)))
    floors = {b.bench: b.noise.pct for b in report.benches}
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.35 * max(1, len(params))))
    for y, p in enumerate(params):
        ax.add_patch(
            Rectangle((0, y - 0.4), floors[p.bench], 0.8, color="0.85", zorder=0, linewidth=0)
        )
        if p.spreads and p.median_pct is not None:
            ax.scatter(p.spreads, [y] * len(p.spreads), s=10, alpha=0.5, color="C0", zorder=2)
            ax.scatter([p.median_pct], [y], marker="|", s=200, color="C3", zorder=3)
    ax.set_yticks(range(len(params)))
    labels = [f"{p.bench}.{p.param} ({p.verdict}{', inert' if p.inert else ''})" for p in params]
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xscale("symlog", linthresh=1.0)
    spreads = [s for p in params for s in p.spreads if math.isfinite(s)]
    ax.set_xlim(0, 1.5 * max([*spreads, *floors.values(), 1.0]))
    ax.set_ylim(-0.6, len(params) - 0.4)
    ax.set_xlabel("spread over a slice, % (grey: the bench's noise floor; red: median)")
    ax.set_title(f"sensitivity of {Path(report.source).name}", fontsize=10)
    fig.tight_layout()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise write_error(path, exc) from None
    finally:
        plt.close(fig)
