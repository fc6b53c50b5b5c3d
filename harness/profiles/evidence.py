"""The profile's evidence fields (additive, version 2): how each winner was decided
(``decided``), and with ``tune --confirm`` the selection figures beside the confirmation's
(``selection``, ``selection_score``) and ``confirmed`` (rows the confirmation left out).

Written only when set, so a profile without them reads as before and BatchLAS's layout is
untouched; read here for harness/profiles/read.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from benchspace.harness.profiles.fields import FieldReader, Where
from benchspace.harness.profiles.model import MeasurementRow, Selection, TopEntry, Verdict

DECISIONS = ("separated", "tie", "cap")


def verdict_data(v: Verdict) -> dict[str, Any]:
    """A ``decided`` record as JSON data."""
    out: dict[str, Any] = {
        "decided": v.decided,
        "confidence": v.confidence,
        "samples": v.samples,
        "rounds": v.rounds,
    }
    if v.tied:
        out["tied"] = [dict(t) for t in v.tied]
    if v.unbeaten:
        out["unbeaten"] = [dict(t) for t in v.unbeaten]
    if v.resolves_pct is not None:
        out["resolves_pct"] = v.resolves_pct
    if v.rounds_for_margin is not None:
        out["rounds_for_margin"] = v.rounds_for_margin
    if v.read_pct is not None:
        out["read_pct"] = v.read_pct
    return out


def row_evidence(row: MeasurementRow) -> dict[str, Any]:
    """The evidence keys of a row (empty when it has none)."""
    out: dict[str, Any] = {}
    if row.decided is not None:
        out["decided"] = verdict_data(row.decided)
    if row.selection is not None:
        s = row.selection
        out["selection"] = {"median": s.median, "n": s.n, "stdev": s.stdev}
    if row.confirmed is not None:
        out["confirmed"] = row.confirmed
    return out


def top_evidence(top: TopEntry) -> dict[str, Any]:
    """The evidence keys of a leaderboard entry."""
    out: dict[str, Any] = {}
    if top.decided is not None:
        out["decided"] = verdict_data(top.decided)
    if top.selection_score is not None:
        out["selection_score"] = top.selection_score
    return out


def read_verdict(reader: FieldReader, value: object, where: Where, params: Any) -> Verdict:
    d = reader.obj(value, where)
    how = d.get("decided")
    if how not in DECISIONS:
        raise reader.fail((*where, "decided"), how, '"separated", "tie" or "cap"')
    confidence = reader.finite(d.get("confidence"), (*where, "confidence"))
    if not 0.0 < confidence < 1.0:
        raise reader.fail((*where, "confidence"), confidence, "a confidence between 0 and 1")
    tied = tuple(params(t, (*where, "tied", i)) for i, t in enumerate(d.get("tied") or []))
    unbeaten = tuple(
        params(t, (*where, "unbeaten", i)) for i, t in enumerate(d.get("unbeaten") or [])
    )
    resolves, read = (_gap(reader, d, where, key) for key in ("resolves_pct", "read_pct"))
    margin_rounds = d.get("rounds_for_margin")
    return Verdict(
        decided=str(how),
        confidence=confidence,
        samples=reader.index(d.get("samples"), (*where, "samples")),
        rounds=reader.index(d.get("rounds", 0), (*where, "rounds")),
        tied=tied,
        unbeaten=unbeaten,
        resolves_pct=resolves,
        read_pct=read,
        rounds_for_margin=(
            None
            if margin_rounds is None
            else reader.index(margin_rounds, (*where, "rounds_for_margin"))
        ),
    )


def _gap(reader: FieldReader, d: Mapping[str, Any], where: Where, key: str) -> float | None:
    """An optional gap in per cent (0 or more) of a ``decided`` record."""
    gap = d.get(key)
    if gap is None:
        return None
    gap = reader.finite(gap, (*where, key))
    if gap < 0:
        raise reader.fail((*where, key), gap, "a gap of 0 % or more")
    return gap


def read_row_evidence(
    reader: FieldReader, m: Mapping[str, Any], where: Where, row: MeasurementRow, params: Any
) -> MeasurementRow:
    """`row` with the evidence keys of its JSON object `m`."""
    if not ({"decided", "selection", "confirmed"} & m.keys()):
        return row
    decided = None
    if m.get("decided") is not None:
        decided = read_verdict(reader, m["decided"], (*where, "decided"), params)
    selection = None
    if m.get("selection") is not None:
        s = reader.obj(m["selection"], (*where, "selection"))
        selection = Selection(
            median=reader.finite(s.get("median"), (*where, "selection", "median")),
            n=reader.index(s.get("n"), (*where, "selection", "n")),
            stdev=reader.opt_spread(s.get("stdev"), (*where, "selection", "stdev")),
        )
    confirmed = None
    if m.get("confirmed") is not None:
        confirmed = reader.boolean(m["confirmed"], (*where, "confirmed"))
    return replace(row, decided=decided, selection=selection, confirmed=confirmed)


def read_top_evidence(
    reader: FieldReader, t: Mapping[str, Any], where: Where, top: TopEntry, params: Any
) -> TopEntry:
    """`top` with the evidence keys of its JSON object `t`."""
    decided = None
    if t.get("decided") is not None:
        decided = read_verdict(reader, t["decided"], (*where, "decided"), params)
    score = reader.opt_finite(t.get("selection_score"), (*where, "selection_score"))
    if decided is None and score is None:
        return top
    return replace(top, decided=decided, selection_score=score)
