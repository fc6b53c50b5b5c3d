"""Rendering a confirm run: a Markdown table of every A/B, then one verdict line per change."""

from __future__ import annotations

from collections.abc import Sequence

from benchspace.harness.abtest.confirm import STATUSES, ChangeVerdict

_SHOWN = {"B faster": "new faster", "A faster": "new slower"}


def _shown(value: object) -> str:
    return "—" if value is None else str(value)


def render_markdown(outcomes: Sequence[ChangeVerdict]) -> str:
    """A table of every A/B, then one verdict line per change."""
    lines = [
        "| change | old → new | consumer | median old | median new | new/old | 95 % interval "
        "| p (MWU) | pairs | verdict |",
        "|---|---|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for o in outcomes:
        ch = o.change
        head = f"`{ch.name}` | {_shown(ch.entry.get('old'))} → {_shown(ch.entry.get('new'))}"
        if not o.runs:
            lines.append(f"| {head} | — | | | | | | | {o.status} |")
        for run in o.runs:
            if run.result is None:
                lines.append(f"| {head} | {run.target.label} | | | | | | | error |")
                continue
            c = run.result.comparison
            lines.append(
                f"| {head} | {run.target.label} | {c.median_a:.6g} | {c.median_b:.6g} | "
                f"{c.ratio:.4f} ({(c.ratio - 1) * 100:+.1f} %) | [{c.ci_low:.3f}, "
                f"{c.ci_high:.3f}] | {c.p_value:.2g} | {c.n_pairs} | "
                f"{_SHOWN.get(c.verdict, c.verdict)} |"
            )
    lines.append("")
    for o in outcomes:
        lines.append(f"- `{o.change.name}`: **{o.status}** — {o.reason}")
        lines += [f"  - note: {n}" for n in o.notes]
        for run in o.runs:
            if run.result is not None:
                lines += [f"  - warning ({run.target.label}): {w}" for w in run.result.warnings]
    counts = {s: sum(o.status == s for o in outcomes) for s in STATUSES}
    shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n or s in ("accepted", "rejected"))
    lines += ["", f"{shown} of {len(outcomes)} changes."]
    return "\n".join(lines) + "\n"
