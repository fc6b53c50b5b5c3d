"""Rendering a profile comparison: plain text, Markdown tables, or a JSON document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchspace.harness.analysis.compare import (
    BenchComparison,
    CaseComparison,
    HeaderChange,
    ProfileComparison,
    Winner,
)
from benchspace.harness.jsonio import dumps
from benchspace.harness.plan import ParamValue

COMPARE_FORMAT = "benchspace-compare"
COMPARE_VERSION = 1

_COLUMNS = ("case", "OLD winner", "OLD", "NEW winner", "NEW", "NEW/OLD", "noise", "verdict")


def render_compare(comparison: ProfileComparison, fmt: str) -> str:
    """The comparison in the asked format (``text``, ``md`` or ``json``)."""
    if fmt == "json":
        return dumps(compare_data(comparison))
    return render_table(comparison, markdown=fmt == "md")


def _params(params: Mapping[str, ParamValue] | None) -> str:
    if params is None:
        return "-"
    if not params:
        return "(none)"
    return " ".join(f"{k}={'unset' if v is None else _shown(v)}" for k, v in params.items())


def _value(w: Winner | None) -> str:
    return "-" if w is None else f"{w.value:.4g}"


def _case_cells(c: CaseComparison) -> list[str]:
    fixed = " ".join(f"{k}={v}" for k, v in c.fixed.items()) or f"case {c.case_index}"
    verdict = c.verdict
    if c.old is not None and c.new is not None and not c.same_winner:
        kept = "not measured" if c.old_winner_on_new is None else f"{c.old_winner_on_new:.4g}"
        verdict += f"; OLD's winner on NEW: {kept}"
    return [
        fixed,
        _params(None if c.old is None else c.old.params),
        _value(c.old),
        _params(None if c.new is None else c.new.params),
        _value(c.new),
        "-" if c.ratio is None else f"{c.ratio:.3f}",
        "unknown" if c.noise is None else f"±{100 * c.noise:.1f} %",
        verdict,
    ]


def _grid(rows: Sequence[Sequence[str]], *, markdown: bool, indent: str = "  ") -> list[str]:
    if markdown:
        head, *body = rows
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return out + ["| " + " | ".join(r) + " |" for r in body]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]


def _bench_lines(b: BenchComparison, *, markdown: bool) -> list[str]:
    better = "higher" if b.direction == "max" else "lower"
    title = f"{b.bench} ({b.metric}, {better} is better)"
    if b.only_in is not None:
        title += f": only in {b.only_in}"
    else:
        g = b.geomean_ratio
        title += ": " + ("no case in both" if g is None else f"NEW/OLD geometric mean {g:.3f}")
        same = sum(1 for c in b.cases if c.same_winner)
        title += f", same winner in {same} of {len(b.cases)} cases"
    lines = ["", f"### {title}" if markdown else title]
    if markdown:
        lines.append("")
    return lines + _grid([_COLUMNS, *(_case_cells(c) for c in b.cases)], markdown=markdown)


def _header_lines(comparison: ProfileComparison, *, markdown: bool) -> list[str]:
    title = "header values a generate from NEW changes against one from OLD"
    lines = ["", f"### {title}" if markdown else f"{title}:"]
    if comparison.header is None:
        return [*lines, f"{'' if markdown else '  '}not compared: {comparison.header_note}"]
    changes = comparison.header
    total = len(changes) + comparison.header_unchanged
    lines.append(f"{'' if markdown else '  '}{len(changes)} of {total} values change")
    if changes:
        rows = [("constant", "bucket", "OLD", "NEW", "from (OLD → NEW)")]
        rows += [
            (h.constant, h.bucket, _shown(h.old), _shown(h.new), f"{h.old_origin} → {h.new_origin}")
            for h in changes
        ]
        if markdown:
            lines.append("")
        lines += _grid(rows, markdown=markdown)
    if comparison.header_note:
        lines.append(f"{'' if markdown else '  '}note: {comparison.header_note}")
    return lines


def _shown(value: object) -> str:
    """A value as the tables show it: booleans as JSON writes them, unset as ``-``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "-" if value is None else str(value)


def render_table(comparison: ProfileComparison, *, markdown: bool) -> str:
    """Per bench a table of its cases, the meta differences first, the header changes last."""
    c = comparison
    lines = [
        f"OLD: {c.old_source} ({c.old_sha256[:12]})",
        f"NEW: {c.new_source} ({c.new_sha256[:12]})",
    ]
    if markdown:
        lines = [f"- {line}" for line in lines]
    if c.differences:
        lines.append("differs:" if not markdown else "- differs:")
        for d in c.differences:
            lines.append(f"  {'- ' if markdown else ''}{d.key}: {_shown(d.old)} → {_shown(d.new)}")
    if c.unrecorded:
        one = len(c.unrecorded) == 1
        what = (
            "records no provenance (a BatchLAS profile)"
            if one
            else ("record no provenance (BatchLAS profiles)")
        )
        lines.append(
            f"{'- ' if markdown else ''}{' and '.join(c.unrecorded)} {what}: space, "
            "executables and host not compared"
        )
    elif not c.differences:
        lines.append(f"{'- ' if markdown else ''}same host, space and executables")
    for bench in c.benches:
        lines += _bench_lines(bench, markdown=markdown)
    lines += _header_lines(c, markdown=markdown)
    return "\n".join(lines) + "\n"


def _winner_data(w: Winner | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {"params": dict(w.params), "value": w.value, "rel_error": w.rel_error, "n": w.n}


def _header_data(h: HeaderChange) -> dict[str, Any]:
    return {
        "constant": h.constant,
        "bucket": h.bucket,
        "old": h.old,
        "new": h.new,
        "old_origin": h.old_origin,
        "new_origin": h.new_origin,
    }


def compare_data(c: ProfileComparison) -> dict[str, Any]:
    """The comparison as a JSON document (``benchspace-compare`` version 1)."""
    return {
        "format": COMPARE_FORMAT,
        "version": COMPARE_VERSION,
        "old": {"path": c.old_source, "sha256": c.old_sha256},
        "new": {"path": c.new_source, "sha256": c.new_sha256},
        "differences": [{"key": d.key, "old": d.old, "new": d.new} for d in c.differences],
        "unrecorded": list(c.unrecorded),
        "benches": [
            {
                "bench": b.bench,
                "metric": b.metric,
                "direction": b.direction,
                "only_in": b.only_in,
                "geomean_ratio": b.geomean_ratio,
                "cases": [
                    {
                        "case_index": k.case_index,
                        "fixed": dict(k.fixed),
                        "old": _winner_data(k.old),
                        "new": _winner_data(k.new),
                        "ratio": k.ratio,
                        "noise": k.noise,
                        "verdict": k.verdict,
                        "same_winner": k.same_winner,
                        "old_winner_on_new": k.old_winner_on_new,
                    }
                    for k in b.cases
                ],
            }
            for b in c.benches
        ],
        "header": None if c.header is None else [_header_data(h) for h in c.header],
        "header_unchanged": c.header_unchanged,
        "header_note": c.header_note,
    }
