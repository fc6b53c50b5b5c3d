"""prune: write the smaller space a sensitivity report justifies (pure: raw JSON in, raw JSON out).

* A dead parameter is *pinned*: removed from every case's ``tune`` and written into
  the case's ``fixed`` at the incumbent (the checked-in header's value for the case's bucket)
  when the header maps it, else at the cross-case winner, else at the case's own winner. An
  env parameter pinned to ``null`` (unset) is just dropped from ``tune``.
* Values that never won a case and never came within noise of a case's best are *trimmed*
  from the grids; with ``per_case``, so is a value from each case where it neither won nor
  came within noise of the best. The case's incumbent always stays, and so does the
  cross-case best's value (in per-case mode); a grid is never emptied.
* A pre_tune phase's parameter (judged on the phase's own table) loses the values that never
  won a phase case and never came within noise of one's best, incumbents kept; it is never
  pinned (the phase stays, with at least one value).
* Everything else is kept as written, ``_comment`` keys included; a top-level ``_comment``
  entry records what was pruned and why.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchspace.harness.analysis.sensitivity_report import (
    BenchReport,
    ParamReport,
    SensitivityReport,
    ValueStat,
)
from benchspace.harness.errors import SpaceError
from benchspace.harness.measurement import Value
from benchspace.harness.plan import ParamValue, count_invocations
from benchspace.harness.spaces.load import parse_space
from benchspace.harness.spaces.model import Bench, Space, bucket_of
from benchspace.harness.values import same_key

Incumbents = Mapping[tuple[str, str], Mapping[int, Value]]
"""(bench, param) -> case index -> the header's value for that case's bucket."""


@dataclass(frozen=True, kw_only=True)
class Pin:
    """A parameter moved from ``tune`` to ``fixed``."""

    bench: str
    param: str
    values: Mapping[int, ParamValue]
    """Case index -> pinned value (None: an env variable left unset)."""
    origin: str
    """Where the value came from: ``incumbent``, ``cross-case best`` or ``case winner``."""
    reason: str


@dataclass(frozen=True, kw_only=True)
class Trim:
    """Values removed from a parameter's grids."""

    bench: str
    param: str
    removed: tuple[tuple[ParamValue, tuple[int, ...]], ...]
    """(value, indices of the cases whose grid lost it), in the report's value order."""
    everywhere: tuple[ParamValue, ...]
    """The removed values that won no case and never came within noise of a case's best."""
    kept: tuple[ParamValue, ...]
    """Values that would have gone but stay (incumbents, or so that no grid is empty)."""


@dataclass(frozen=True, kw_only=True)
class Pruned:
    """The pruned space as raw JSON, and what was done to it."""

    raw: dict[str, Any]
    pins: tuple[Pin, ...]
    trims: tuple[Trim, ...]
    notes: tuple[str, ...]
    """The lines added to the top-level ``_comment``."""


def incumbents(
    space: Space, shipped: Mapping[str, Mapping[str, Value]]
) -> dict[tuple[str, str], dict[int, Value]]:
    """Per (bench, param) and case, the header's value for the case's bucket.

    `shipped` maps constant family -> bucket -> value (what the checked-in header holds). A
    parameter maps to a constant when a header source names it, or when it is passed as the
    constant's override variable (``<env_prefix><NAME>``): a consumer bench that sweeps the
    constant through its override has the same incumbent. The first mapping wins.
    """
    header = space.header
    out: dict[tuple[str, str], dict[int, Value]] = {}
    if header is None:
        return out
    for const in header.constants:
        params = [(s.bench, s.param) for s in const.sources]
        variable = f"{header.env_prefix}{const.name}"
        params += [(b.name, p) for b in space.benches for p, v in b.env.items() if v == variable]
        for bench_name, param in params:
            bench = next((b for b in space.benches if b.name == bench_name), None)
            if bench is None:
                continue
            per_case = out.setdefault((bench_name, param), {})
            for case in bench.cases:
                key = case.fixed.get(header.bucket_key)
                if isinstance(key, bool) or not isinstance(key, int | float):
                    continue
                bucket = bucket_of(header, key)
                if bucket in shipped.get(const.name, {}):
                    per_case.setdefault(case.index, shipped[const.name][bucket])
    return out


def _same(a: object, b: object) -> bool:
    """Grid equality, where a header's true/false also matches a grid's 1/0."""
    if same_key(a) == same_key(b):
        return True
    if isinstance(a, int) and isinstance(b, int) and (isinstance(a, bool) or isinstance(b, bool)):
        return int(a) == int(b)
    return False


def _find(grid: Sequence[Any], value: object) -> tuple[bool, Any]:
    """(found, the grid's own spelling of the value)."""
    for item in grid:
        if _same(item, value):
            return True, item
    return False, None


def format_value(value: object) -> str:
    """A parameter value for people: null is "unset", booleans true/false."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _pin_value(
    grid: Sequence[Any], case_index: int, report: ParamReport, bench: BenchReport, incumbent: object
) -> tuple[Any, str]:
    candidates: list[tuple[object, str]] = []
    if incumbent is not None:
        candidates.append((incumbent, "incumbent"))
    if bench.best_params is not None and report.param in bench.best_params:
        candidates.append((bench.best_params[report.param], "cross-case best"))
    with contextlib.suppress(KeyError):  # no winner when the case never succeeded
        candidates.append((report.winner(case_index), "case winner"))
    for value, origin in candidates:
        found, spelled = _find(grid, value)
        if found:
            return spelled, origin
    return grid[0], "first grid value"


def _cases(entry: Mapping[str, Any], param: str) -> list[tuple[int, dict[str, Any]]]:
    return [
        (i, case)
        for i, case in enumerate(entry["cases"])
        if isinstance(case.get("tune"), dict) and param in case["tune"]
    ]


def _pin(
    entry: dict[str, Any],
    bench: BenchReport,
    report: ParamReport,
    incumbent: Mapping[int, Value],
    floor: str,
) -> Pin:
    values: dict[int, ParamValue] = {}
    origins: list[str] = []
    for i, case in _cases(entry, report.param):
        value, origin = _pin_value(case["tune"][report.param], i, report, bench, incumbent.get(i))
        del case["tune"][report.param]
        if value is not None:
            case.setdefault("fixed", {})[report.param] = value
        values[i] = value
        origins.append(origin)
    if isinstance(entry.get("sample"), dict) and entry["sample"].get("param") == report.param:
        del entry["sample"]  # nothing left to sample
    why = f"max spread {report.max_pct:.2f} % <= noise {floor} over {report.slices} slices"
    origin = max(set(origins), key=origins.count) if origins else "incumbent"
    return Pin(bench=bench.bench, param=report.param, values=values, origin=origin, reason=why)


def _drops(
    value: object,
    case_index: int,
    report: ParamReport,
    bench: BenchReport,
    per_case: bool,
    stats: Mapping[tuple[str, object], ValueStat],
) -> bool:
    """Whether `value` leaves the grid of case `case_index` (``stats``: the report's values
    by ``same_key``)."""
    stat = stats.get(same_key(value))
    if stat is None:
        return False  # never measured: no evidence against it
    if stat.never_wins:
        return True
    if not per_case or case_index in stat.wins:
        return False
    best = bench.best_params or {}
    if report.param in best and _same(value, best[report.param]):
        return False  # keeps the cross-case best legal in every case
    excess = stat.excess_by_case.get(case_index)
    return excess is not None and excess > bench.noise.pct


def _trim(
    entry: dict[str, Any],
    bench: BenchReport,
    report: ParamReport,
    incumbent: Mapping[int, Value],
    per_case: bool,
) -> Trim | None:
    removed: dict[tuple[str, object], list[int]] = {}
    kept: dict[tuple[str, object], ParamValue] = {}
    spelled: dict[tuple[str, object], ParamValue] = {}
    stats: dict[tuple[str, object], ValueStat] = {}
    for stat in report.values:  # the first of equal values, as a scan in order finds it
        stats.setdefault(same_key(stat.value), stat)
    for i, case in _cases(entry, report.param):
        grid = case["tune"][report.param]
        keep = []
        for v in grid:
            spelled.setdefault(same_key(v), v)
            if not _drops(v, i, report, bench, per_case, stats):
                keep.append(v)
            elif i in incumbent and _same(v, incumbent[i]):
                keep.append(v)
                kept[same_key(v)] = v
            else:
                removed.setdefault(same_key(v), []).append(i)
        if not keep:
            value, _ = _pin_value(grid, i, report, bench, incumbent.get(i))
            keep = [value]
            kept[same_key(value)] = value
            removed[same_key(value)].remove(i)
        case["tune"][report.param] = keep
    removed = {k: cases for k, cases in removed.items() if cases}
    if not removed:
        return None
    order = [same_key(v.value) for v in report.values]  # sorted, as the report lists them
    never = {same_key(v) for v in report.never_winning}
    return Trim(
        bench=bench.bench,
        param=report.param,
        removed=tuple((spelled[k], tuple(removed[k])) for k in order if k in removed),
        everywhere=tuple(spelled[k] for k in order if k in removed and k in never),
        kept=tuple(kept[k] for k in order if k in kept),
    )


def _trim_phase(
    entry: dict[str, Any], bench: BenchReport, report: ParamReport, incumbent: Mapping[int, Value]
) -> Trim | None:
    """Trim never-winning values from the grid of the pre_tune phase that sets the param."""
    phases = entry.get("pre_tune")
    index = report.pre_tune
    if not isinstance(phases, list) or index is None or index >= len(phases):
        return None
    grid = (phases[index].get("params") or {}).get(report.param)
    if not isinstance(grid, list):
        return None
    never = {same_key(v) for v in report.never_winning}
    held = {same_key(v) for v in incumbent.values()}
    keep = [v for v in grid if same_key(v) not in never or same_key(v) in held]
    if not keep:  # never empty: the phase winner stays
        keep = [
            v
            for v in grid
            if any(same_key(v) == same_key(w.value) for w in report.values if w.wins)
        ][:1] or grid[:1]
    kept_keys = {same_key(v) for v in keep}
    removed = [v for v in grid if same_key(v) not in kept_keys]
    if not removed:
        return None
    phases[index]["params"][report.param] = keep
    phase_cases = tuple(int(c) for c in phases[index].get("cases") or ())
    return Trim(
        bench=bench.bench,
        param=f"{report.param} (pre_tune[{index}])",
        removed=tuple((v, phase_cases) for v in removed),
        everywhere=tuple(removed),
        kept=tuple(v for v in keep if same_key(v) in never),
    )


def _trim_note(trim: Trim, floor: str) -> str:
    never = {same_key(v) for v in trim.everywhere}
    parts = []
    if trim.everywhere:
        parts.append(
            f"trimmed {', '.join(format_value(v) for v in trim.everywhere)} (won no case and never "
            f"came within noise {floor} of a case's best)"
        )
    local = [(v, c) for v, c in trim.removed if same_key(v) not in never]
    if local:
        shown = "; ".join(
            f"{format_value(v)} from case{'s' if len(c) > 1 else ''} {', '.join(map(str, c))}"
            for v, c in local
        )
        parts.append(f"trimmed per case {shown} (not within noise of that case's best)")
    note = f"{trim.bench}.{trim.param}: " + "; ".join(parts)
    if trim.kept:
        note += f"; kept {', '.join(format_value(v) for v in trim.kept)} (incumbent)"
    return note


def _bench_entry(raw: dict[str, Any], bench: Bench) -> dict[str, Any]:
    entry = raw["spaces"][bench.position]
    assert isinstance(entry, dict)
    return entry


def prune_space(
    space: Space,
    report: SensitivityReport,
    *,
    incumbent_values: Incumbents,
    profile: str,
    per_case: bool = False,
) -> Pruned:
    """The pruned raw space (a deep copy; `space.raw` is untouched).

    With `per_case`, a case's grid also loses the values that are neither its winner nor
    within noise of its best (BatchLAS's per-size grids), except the cross-case best's value,
    which stays everywhere so that the cross-case ranking keeps a combo legal for every case.
    """
    raw: dict[str, Any] = copy.deepcopy(dict(space.raw))
    pins: list[Pin] = []
    trims: list[Trim] = []
    notes: list[str] = []
    for bench in space.benches:
        try:
            br = report.bench(bench.name)
        except KeyError:
            continue
        entry = _bench_entry(raw, bench)
        floor = f"{br.noise.pct:.2f} % ({br.noise.source})"
        tuned = set(bench.tune_params())
        for pr in br.params:
            if pr.pre_tune is not None:
                incumbent = incumbent_values.get((bench.name, pr.param), {})
                trim = _trim_phase(entry, br, pr, incumbent)
                if trim is not None:
                    trims.append(trim)
                    notes.append(_trim_note(trim, floor))
                continue
            if pr.param not in tuned:
                continue  # not a grid of this space
            incumbent = incumbent_values.get((bench.name, pr.param), {})
            if pr.verdict == "dead":
                pin = _pin(entry, br, pr, incumbent, floor)
                pins.append(pin)
                shown = sorted({format_value(v) for v in pin.values.values()})
                notes.append(
                    f"{bench.name}.{pr.param}: {pr.verdict}{' and inert' if pr.inert else ''} "
                    f"({pin.reason}); pinned into fixed at the {pin.origin} "
                    f"{', '.join(shown)}"
                )
            else:
                trim = _trim(entry, br, pr, incumbent, per_case)
                if trim is not None:
                    trims.append(trim)
                    notes.append(_trim_note(trim, floor))
    if notes:
        head = f"pruned by `benchspace sensitivity` from profile {profile}:"
        comment = raw.get("_comment")
        lines = [head, *notes]
        if comment is None:
            raw["_comment"] = lines
        elif isinstance(comment, list):
            raw["_comment"] = [*comment, *lines]
        else:
            raw["_comment"] = [comment, *lines]
    return Pruned(raw=raw, pins=tuple(pins), trims=tuple(trims), notes=tuple(notes))


def invocation_counts(space: Space, raw: Mapping[str, Any], *, source: str) -> tuple[int, int]:
    """(before, after) invocations of one repeat; the pruned JSON must load as a space."""
    try:
        pruned = parse_space(dict(raw), source=source)
    except SpaceError as exc:
        raise SpaceError(
            f"the pruned space does not validate (please report this): {exc}"
        ) from None
    return count_invocations(space), count_invocations(pruned)
