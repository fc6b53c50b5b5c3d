"""How a race's verdicts settle a bucket (pure), so that noise cannot flip a value the
statistics did not separate (harness/sweep/decide.py).

Per case of the bucket, the configurations the verdict left standing are the tied ones
(``tie``: shown within the margin of the winner either way), the unbeaten ones (``cap``: none
of them beaten when the race or the confirmation ended) or the winner alone (``separated``).
The values of the bucket's parameter standing in every case are the bucket's unbeaten values:

- the incumbent among them stays (it was not beaten, however the point estimates fell);
- else, when every case ended ``tie``, the smallest of them (in the constant's order) is taken:
  a canonical choice among values shown equivalent, the same whichever measured fastest;
- else nothing is settled here (a ``cap`` without the incumbent: the best score wins, as the
  header model scores it; a ``cap``'s unbeaten set may hold values that merely lacked samples).

A pre-tuned parameter (one winner from its pre_tune phase, for every bucket) is settled by the
phase's own verdict (its ``decided``) the same way: the incumbent stays when that verdict left
it standing, and is replaced when the phase beat it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from benchspace.harness.profiles.model import (
    BenchResult,
    MeasurementRow,
    PreTunePhaseResult,
    Verdict,
)
from benchspace.harness.spaces.model import Case
from benchspace.harness.values import Value


def _standing(row: MeasurementRow) -> tuple[Mapping[str, object], ...]:
    v = row.decided
    assert v is not None
    if v.decided == "tie" and v.tied:
        return tuple(v.tied)
    if v.decided == "cap" and v.unbeaten:
        return tuple(v.unbeaten)
    return (row.params,)


def unbeaten_values(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    convert: Callable[[object], Value],
) -> tuple[set[Value], bool] | None:
    """The values of `param` standing in every case of the bucket, and whether every case
    ended ``tie``; None when a case has no verdict."""
    bests = {row.case_index: row for row in result.per_case_best}
    if not cases:
        return None
    values: set[Value] | None = None
    all_tie = True
    for case in cases:
        row = bests.get(case.index)
        if row is None or row.decided is None:
            return None
        all_tie &= row.decided.decided == "tie"
        mine = {convert(p[param]) for p in _standing(row) if p.get(param) is not None}
        values = mine if values is None else values & mine
    return (values or set()), all_tie


def settled(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    incumbent: Value | None,
    convert: Callable[[object], Value],
    order: Callable[[Value], object],
) -> Value | None:
    """The value the verdicts settle the bucket on (module docstring), or None."""
    found = unbeaten_values(result, cases, param, convert)
    if found is None:
        return None
    values, all_tie = found
    if incumbent is not None and incumbent in values:
        return incumbent
    if all_tie and values:
        return min(values, key=order)  # type: ignore[arg-type]
    return None


def tie_keeps(
    result: BenchResult,
    cases: Sequence[Case],
    param: str,
    incumbent: Value,
    convert: Callable[[object], Value],
) -> bool:
    """Whether the race tied the incumbent with the winner in every case of the bucket."""
    found = unbeaten_values(result, cases, param, convert)
    return found is not None and found[1] and incumbent in found[0]


def unresolved(
    result: BenchResult, cases: Sequence[Case], param: str
) -> list[tuple[int, tuple[object, ...], Verdict]]:
    """The bucket's cases whose cap left several values of `param` unbeaten at a resolution
    coarser than the margin (more rounds than it ran would resolve it: the profile's
    ``rounds_for_margin``): (case, the unbeaten values, the case's verdict). A retune may
    stand by another of those values."""
    bests = {row.case_index: row for row in result.per_case_best}
    out: list[tuple[int, tuple[object, ...], Verdict]] = []
    for case in cases:
        row = bests.get(case.index)
        found = _coarse_cap(None if row is None else row.decided, param)
        if found is not None:
            out.append((case.index, *found))
    return out


def _coarse_cap(v: Verdict | None, param: str) -> tuple[tuple[object, ...], Verdict] | None:
    """A cap's unbeaten values of `param` (two or more) and the verdict, when it resolved less
    than the margin; else None."""
    if v is None or v.decided != "cap" or v.resolves_pct is None:
        return None
    if v.rounds_for_margin is None or v.rounds_for_margin <= v.rounds:
        return None
    values = tuple(dict.fromkeys(p.get(param) for p in v.unbeaten if p.get(param) is not None))
    return (values, v) if len(values) > 1 else None


def _unresolved_words(param: str, values: Sequence[object], v: Verdict) -> str:
    """ "<param> <values> unbeaten, resolving only gaps over X % (...)" of a coarse cap."""
    read = "" if v.read_pct is None else f"they read within {v.read_pct:.1f} %; "
    return (
        f"{param} {', '.join(map(repr, values))} unbeaten, resolving only gaps over "
        f"{v.resolves_pct:.1f} % ({read}the margin would take ~{v.rounds_for_margin} rounds); "
        "a retune may pick another of them"
    )


def unresolved_notes(
    name: str, value: Value, param: str, result: BenchResult, cases: Sequence[Case]
) -> list[str]:
    """A note per case of the bucket `name` whose cap could not resolve the margin between
    values of its parameter (:func:`unresolved`)."""
    return [
        f"{name}: {value!r} stands on a cap: case {case} left {_unresolved_words(param, values, v)}"
        for case, values, v in unresolved(result, cases, param)
    ]


def tuning_phase(result: BenchResult, param: str) -> PreTunePhaseResult | None:
    """The pre_tune phase that resolved `param`, when the profile says how (its ``decided``)."""
    return next(
        (
            p
            for p in result.pre_tune
            if param in p.params and p.decided is not None and p.resolved_params is not None
        ),
        None,
    )


def phase_standing(
    result: BenchResult, param: str, convert: Callable[[object], Value]
) -> set[Value] | None:
    """The values of a pre-tuned `param` its phase's verdict left standing (the tied, the
    unbeaten, or the winner alone); None when the profile does not say."""
    phase = tuning_phase(result, param)
    if phase is None or phase.decided is None or phase.resolved_params is None:
        return None
    v = phase.decided
    combos: Sequence[Mapping[str, object]] = (phase.resolved_params,)
    if v.decided == "tie" and v.tied:
        combos = v.tied
    elif v.decided == "cap" and v.unbeaten:
        combos = v.unbeaten
    return {convert(c[param]) for c in combos if c.get(param) is not None}


def phase_unresolved_note(name: str, value: Value, param: str, result: BenchResult) -> str | None:
    """A note when the pre_tune phase deciding constant `name` (a pre-tuned `param`) ended at
    a cap that left several of its values unbeaten, short of resolving the margin."""
    phase = tuning_phase(result, param)
    found = _coarse_cap(None if phase is None else phase.decided, param)
    if found is None:
        return None
    values, v = found
    words = _unresolved_words(param, values, v)
    return f"{name}: {value!r} stands on a cap of its pre_tune phase: {words}"
