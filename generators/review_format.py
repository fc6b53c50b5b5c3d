"""Render a Review: Markdown for a pull request, plain text for a terminal, JSON for tools.

The JSON document (``"format": "benchspace-review", "version": 1``) lists the proposed changes;
``benchspace port --accepted`` applies those whose ``accepted`` is not false, and ``confirm``
reads the env variable, bucket range, cases and consumers of each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from benchspace.generators.review import FLAGS, CaseEvidence, Change, Kept, Review
from benchspace.harness.jsonio import dumps
from benchspace.harness.review_doc import REVIEW_FORMAT, REVIEW_VERSION
from benchspace.harness.values import Value

KEPT = "kept: within noise"
"""How reports say that an incumbent was kept over a challenger that won within noise."""
KEPT_BY_VERDICT = "kept: not separated"
"""How reports say that an incumbent was kept because the verdicts left it unbeaten."""


def _reason(kept: Kept) -> str:
    return KEPT_BY_VERDICT if kept.how == "verdict" else KEPT


def review_document(review: Review) -> dict[str, Any]:
    """The JSON document of a review."""
    return {
        "format": REVIEW_FORMAT,
        "version": REVIEW_VERSION,
        "generated": review.generated,
        "header": review.header,
        "profile": review.profile,
        "profile_sha256": review.profile_sha256,
        "space": review.space,
        "space_sha256": review.space_sha256,
        "unchanged": review.unchanged,
        "changes": [_change_entry(c) for c in review.changes],
        "kept": [{**dataclasses.asdict(k), "reason": _reason(k)} for k in review.kept],
    }


def _change_entry(change: Change) -> dict[str, Any]:
    entry = {
        f.name: getattr(change, f.name)
        for f in dataclasses.fields(change)
        if f.name not in ("cases", "source", "flags", "consumers")
    }
    entry["source"] = (
        None
        if change.source is None
        else {"bench": change.source.bench, "param": change.source.param}
    )
    entry["cases"] = [dataclasses.asdict(e) for e in change.cases]
    entry["flags"] = list(change.flags)
    entry["consumers"] = [dict(c) for c in change.consumers]
    entry["accepted"] = True
    return entry


def to_json(review: Review) -> str:
    """The review as deterministic JSON text."""
    return dumps(review_document(review))


def _show(value: Value | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _percent(value: float | None, sign: bool) -> str:
    if value is None:
        return "?"
    return f"{value * 100:+.1f} %" if sign else f"±{value * 100:.1f} %"


def bucket_label(change: Change) -> str:
    """``SMALL (n ≤ 128)``: the bucket and the sizes it holds."""
    key = change.bucket_key
    if change.bucket_upto is None:
        size = f"{key} > {change.bucket_above}" if change.bucket_above is not None else "all"
    else:
        size = f"{key} ≤ {change.bucket_upto}"
    return f"{change.bucket} ({size})"


def _case_label(case: CaseEvidence, siblings: Sequence[CaseEvidence], key: str) -> str:
    """The bucket key and whichever fixed values tell this case apart from its siblings."""
    shown = [key] if key in case.fixed else []
    for name in case.fixed:
        if name != key and len({repr(s.fixed.get(name)) for s in siblings}) > 1:
            shown.append(name)
    return " ".join(f"{n}={_show(case.fixed[n])}" for n in shown) or f"case {case.case_index}"


def _measured(change: Change) -> list[str]:
    out = []
    for case in change.cases:
        label = _case_label(case, change.cases, change.bucket_key)
        out.append(f"{label}: {_number(case.old)} → {_number(case.new)}")
    return out


def _flags(change: Change) -> str:
    return ", ".join(FLAGS[f] for f in change.flags)


def _source(change: Change) -> str:
    if change.source is None:
        return change.origin
    return f"{change.source.bench}.{change.source.param}"


def _kept_line(kept: Kept, *, code: bool = False) -> str:
    name = f"`{kept.name}`" if code else kept.name
    if kept.how == "verdict":
        return (
            f"{name}: {_show(kept.value)} {KEPT_BY_VERDICT} (the profile's winner "
            f"{_show(kept.challenger)}; the verdicts left {_show(kept.value)} unbeaten)"
        )
    return (
        f"{name}: {_show(kept.value)} {KEPT} (the profile's winner {_show(kept.challenger)}: "
        f"gain {_percent(kept.gain, True)}, noise {_percent(kept.noise, False)})"
    )


def _header_lines(review: Review) -> list[str]:
    changed = len(review.changes)
    total = changed + review.unchanged
    noise = sum(k.how != "verdict" for k in review.kept)
    verdict = len(review.kept) - noise
    kept = (
        f" {noise} unchanged values were kept because their challenger won within noise."
        if noise
        else ""
    )
    if verdict:
        kept += (
            f" {verdict} unchanged values were kept because the verdicts left them unbeaten "
            "beside their challenger."
        )
    return [
        f"Generated `{review.generated}` against `{review.header}`; evidence from profile "
        f"`{review.profile}` (`{review.profile_sha256[:12]}`), space `{review.space}` "
        f"(`{review.space_sha256[:12]}`).",
        "",
        f"{changed} of {total} values change. Gain: geometric mean over the bucket's cases of "
        "the new value's speed-up over the old (positive = better); noise: twice its standard "
        "error, from the measurements' spread." + kept,
    ]


def to_markdown(review: Review) -> str:
    """A Markdown report to paste into a pull request."""
    lines = ["## benchspace review", "", *_header_lines(review), ""]
    if review.kept:
        lines += [f"- {_kept_line(k, code=True)}" for k in review.kept]
        lines.append("")
    if not review.changes:
        return "\n".join([*lines, "No value changes."]) + "\n"
    lines += [
        "| constant | bucket | old → new | source | measured (old → new) | gain | noise | flags |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in review.changes:
        measured = "<br>".join(_measured(c)) or "—"
        if c.metric:
            better = "higher" if c.direction == "max" else "lower"
            measured += f"<br>({c.metric}, {better} is better)"
        lines.append(
            f"| `{c.constant}` | {bucket_label(c)} | {_show(c.old)} → **{_show(c.new)}** | "
            f"{_source(c)} | {measured} | {_percent(c.gain, True)} | {_percent(c.noise, False)} "
            f"| {_flags(c)} |"
        )
    lines += ["", "A/B any of them without a rebuild:", "", "```sh"]
    for c in review.changes:
        lines.append(f"{c.env}={c.env_new}  # {c.name}: {_show(c.old)} → {_show(c.new)}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def to_text(review: Review) -> str:
    """A plain-text report for a terminal."""
    lines = [line.replace("`", "") for line in _header_lines(review)]
    for c in review.changes:
        lines += [
            "",
            f"{c.name}: {_show(c.old)} -> {_show(c.new)}  [{bucket_label(c)}; {_source(c)}]",
            f"  gain {_percent(c.gain, True)} (noise {_percent(c.noise, False)})"
            + (f"; {c.metric}" if c.metric else ""),
        ]
        lines += [f"  {m}" for m in _measured(c)]
        if c.flags:
            lines.append(f"  flags: {_flags(c)}")
    if review.kept:
        lines.append("")
        lines += [_kept_line(k) for k in review.kept]
    return "\n".join(lines) + "\n"


def render_review(review: Review, fmt: str) -> str:
    """The review in format `fmt` (md, text or json)."""
    renderers = {"md": to_markdown, "text": to_text, "json": to_json}
    return renderers[fmt](review)
