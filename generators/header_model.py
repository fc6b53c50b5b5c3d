"""Choose each constant's value per bucket from a profile, with the evidence for the choice.

A bucket's value is chosen jointly over every case of the deciding bench that falls in the
bucket (by the case's fixed ``bucket_key``): per case, each value of the source parameter gets
the case's best metric among measurements with that value; only values measured in every case
compete; the winner has the best geometric mean of ratio-to-case-best. A tie goes to the
incumbent if it is tied, else to the smaller value; a bucket the profile's verdicts settle
(generators/ties.py: the incumbent not beaten, or the canonical value among values tied) takes
that value. ``sources`` is a precedence list: the first
bench with cases in a bucket decides it. Buckets no case reaches take the ``fallback``, else the
incumbent (the value in the checked-in header), else they are an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from benchspace.generators.gain import Gain, bucket_gain
from benchspace.generators.header_parse import ParsedHeader
from benchspace.generators.ties import (
    phase_standing,
    phase_unresolved_note,
    settled,
    unbeaten_values,
    unresolved_notes,
)
from benchspace.generators.value_cells import case_best, value_cells
from benchspace.harness.cxx_types import CxxType, cxx_type, normalise
from benchspace.harness.errors import HeaderError, json_path
from benchspace.harness.profiles.model import BenchResult, Profile
from benchspace.harness.profiles.scoring import geomean, ratio
from benchspace.harness.spaces.model import (
    Case,
    HeaderConstant,
    HeaderSource,
    HeaderSpec,
    Space,
    deciding_source,
)
from benchspace.harness.values import Value

Origin = Literal["profile", "fallback", "incumbent", "held"]
"""Where a value came from; ``held``: a change a consumer rejected, the old value kept."""
Incumbents = Mapping[str, Mapping[str, Value]]
"""Constant family -> bucket -> the value the checked-in header ships."""

_TIE = 1e-12  # relative: scores this close are a tie (floating-point noise, not a win)


@dataclass(frozen=True, kw_only=True, slots=True)
class Candidate:
    """One value measured in every case of a bucket, scored."""

    value: Value
    score: float
    """Geometric mean over the bucket's cases of ratio to the case's best (1.0 = best)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BucketChoice:
    """The value of one constant in one bucket, and why."""

    bucket: str
    value: Value
    origin: Origin
    source: HeaderSource | None
    cases: tuple[int, ...]
    """Indices of the deciding bench's cases in this bucket."""
    candidates: tuple[Candidate, ...]
    """Values measured in every case, best first."""
    partial: tuple[Value, ...]
    """Values measured in some but not all cases (they could not compete)."""
    incumbent: Value | None
    pre_tuned: bool = False
    """The source parameter is pre-tuned: one winner, chosen on the phase's cases, for all."""
    held_reason: str = ""
    """Why a ``held`` value was kept (the consumer's verdict)."""
    challenger: Value | None = None
    """The profile's winner, when the incumbent was kept because it did not win beyond noise."""
    challenger_gain: Gain | None = None
    """The challenger's gain over the kept incumbent, with its noise."""

    @property
    def kept_by(self) -> str | None:
        """Why the profile's winner gave way: "noise" (`challenger_gain`), "verdict", or None."""
        if self.challenger is None:
            return None
        return "verdict" if self.challenger_gain is None else "noise"


@dataclass(frozen=True, kw_only=True, slots=True)
class ConstantChoice:
    """One constant family: its type and one choice per bucket."""

    constant: HeaderConstant
    ctype: CxxType
    buckets: tuple[BucketChoice, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class HeaderModel:
    """Everything a header needs: the spec and each constant's chosen values."""

    spec: HeaderSpec
    constants: tuple[ConstantChoice, ...]
    notes: tuple[str, ...]


def declared_bounds(constant: HeaderConstant) -> tuple[int | float | None, int | float | None]:
    """The constant's optional ``min``/``max``, else none (the type's range)."""
    low = constant.min
    high = constant.max
    return (
        low if isinstance(low, int | float) else None,
        high if isinstance(high, int | float) else None,
    )


def constant_type(space: Space, index: int) -> CxxType:
    """The C++ type of header constant `index`; HeaderError names the constant if invalid."""
    assert space.header is not None
    constant = space.header.constants[index]
    try:
        return cxx_type(
            constant.name, constant.type, constant.enum_values, declared_bounds(constant)
        )
    except ValueError as exc:
        raise HeaderError(
            f"{space.path}: {json_path('header', 'constants', index)}: {exc}"
        ) from None


def pre_tuned(space: Space, source: HeaderSource) -> bool:
    """Whether the source parameter is tuned by a pre_tune phase (one winner for every case)."""
    return source.param in space.bench(source.bench).pre_tune_params()


def pre_tune_cases(space: Space, source: HeaderSource) -> tuple[int, ...]:
    """The cases the pre_tune phase tuning the source parameter runs on."""
    bench = space.bench(source.bench)
    return next((p.cases for p in bench.pre_tune if source.param in p.params), ())


def incumbents_from_header(space: Space, parsed: ParsedHeader) -> dict[str, dict[str, Value]]:
    """The checked-in values of the space's constants, normalised to their types."""
    assert space.header is not None
    out: dict[str, dict[str, Value]] = {}
    for i, constant in enumerate(space.header.constants):
        ctype = constant_type(space, i)
        for bucket, _ in space.header.buckets:
            name = f"{constant.name}_{bucket}"
            raw = parsed.value(name)
            if raw is None:
                continue
            try:
                value = normalise(ctype, raw)
            except ValueError as exc:
                line = parsed.constants[name][0].line + 1
                raise HeaderError(
                    f"{parsed.source}:{line}: {name}: {exc}; fix the header or the constant's "
                    f"type in {space.path}"
                ) from None
            out.setdefault(constant.name, {})[bucket] = value
    return out


def _choose_bucket(
    *,
    space: Space,
    index: int,
    ctype: CxxType,
    bucket: str,
    source: HeaderSource,
    cases: tuple[Case, ...],
    result: BenchResult,
    incumbent: Value | None,
    keep_incumbent: bool,
) -> BucketChoice:
    constant = space.header.constants[index] if space.header else None
    assert constant is not None
    where = f"{space.path}: {json_path('header', 'constants', index)}"

    def convert(raw: object) -> Value:
        try:
            return normalise(ctype, raw)
        except ValueError as exc:
            raise HeaderError(
                f"{where}: constant {constant.name}: {source.bench}.{source.param} value {exc}"
            ) from None

    tables = []
    for case in cases:
        rows = result.case_rows(case.index)
        if not rows:
            raise HeaderError(
                f"{where}: constant {constant.name} bucket {bucket}: case {case.index} of bench "
                f"{source.bench!r} ({dict(case.fixed)}) has no successful measurement in the "
                "profile; fix its failures and re-run the sweep"
            )
        cells = value_cells(rows, source.param, result.direction, convert)
        tables.append((case_best(rows, result.direction), cells))
    seen = [set(cells) for _, cells in tables]
    common = set.intersection(*seen)
    partial = set.union(*seen) - common
    order = ctype.sort_key
    if not common:
        grids = "; ".join(
            f"case {c.index}: {sorted(s, key=order)}" for c, s in zip(cases, seen, strict=True)
        )
        raise HeaderError(
            f"{where}: constant {constant.name} bucket {bucket}: no value of "
            f"{source.bench}.{source.param} was measured in every case of the bucket ({grids}); "
            "give those cases' grids a common value"
        )
    candidates = sorted(
        (
            Candidate(
                value=v,
                score=geomean(
                    [ratio(cells[v].metric, best, result.direction) for best, cells in tables]
                ),
            )
            for v in common
        ),
        key=lambda c: (c.score, order(c.value)),
    )
    top = candidates[0].score
    tied = [c.value for c in candidates if c.score <= top * (1 + _TIE)]
    winner = incumbent if incumbent is not None and incumbent in tied else min(tied, key=order)
    challenger: Value | None = None
    kept: Gain | None = None
    # With the profile's verdicts on every case (a sweep that recorded them), they decide
    # whether a competing incumbent was beaten; the spread rule below is for profiles without
    # them and for pre-tuned parameters (whose alternatives ran in the phase).
    verdicts = (
        not pre_tuned(space, source)
        and incumbent in common
        and unbeaten_values(result, cases, source.param, convert) is not None
    )
    if keep_incumbent:
        pick = settled(result, cases, source.param, incumbent, convert, order)
        if pick is not None and pick != winner:
            # The race's (or confirmation's) verdicts did not separate them: the incumbent
            # stays, or among values shown tied the canonical one (generators/ties.py).
            challenger, winner = winner, pick
    if pre_tuned(space, source) and (standing := phase_standing(result, source.param, convert)):
        verdicts = True  # the phase's own verdict settles it: the incumbent stays if standing
        if keep_incumbent and incumbent in standing and winner != incumbent:
            challenger, winner = winner, incumbent
    if keep_incumbent and incumbent is not None and winner != incumbent and not verdicts:
        if pre_tuned(space, source) and result.phase_rows:
            # The alternatives ran in the pre_tune phase: judge on the phase's table.
            phase = [result.case_rows(i, phase=True) for i in pre_tune_cases(space, source)]
            judged = [value_cells(r, source.param, result.direction, convert) for r in phase if r]
        else:
            judged = [cells for _, cells in tables]
        if judged and all(incumbent in c and winner in c for c in judged):
            gain = bucket_gain([(c[incumbent], c[winner]) for c in judged], result.direction)
            if gain.noise is not None and not gain.beyond_noise:
                challenger, kept, winner = winner, gain, incumbent
    return BucketChoice(
        bucket=bucket,
        value=winner,
        origin="profile",
        source=source,
        cases=tuple(c.index for c in cases),
        candidates=tuple(candidates),
        partial=tuple(sorted(partial, key=order)),
        incumbent=incumbent,
        pre_tuned=pre_tuned(space, source),
        challenger=challenger,
        challenger_gain=kept,
    )


def _fallback(space: Space, index: int, ctype: CxxType, bucket_index: int) -> Value | None:
    assert space.header is not None
    fallback = space.header.constants[index].fallback
    if fallback is None:
        return None
    raw = fallback[bucket_index] if isinstance(fallback, tuple) else fallback
    try:
        return normalise(ctype, raw)
    except ValueError as exc:
        where = json_path("header", "constants", index, "fallback")
        raise HeaderError(f"{space.path}: {where}: {exc}") from None


def choose_header(
    space: Space, profile: Profile, incumbents: Incumbents, *, keep_incumbents: bool = False
) -> HeaderModel:
    """Choose every constant's value in every bucket; raise HeaderError when one cannot be.

    With `keep_incumbents`, an incumbent stays unless a challenger beats it beyond the noise.
    """
    spec = space.header
    if spec is None:
        raise HeaderError(
            f'{space.path}: $: the space has no "header" section; add one that maps bench '
            "parameters to constants"
        )
    constants = []
    notes = []
    for i, constant in enumerate(spec.constants):
        ctype = constant_type(space, i)
        for source in constant.sources:
            if source.bench not in profile.results:
                raise HeaderError(
                    f"{profile.source}: $.results: no result for bench {source.bench!r}, which "
                    f"feeds constant {constant.name}; re-run the sweep with it (or remove it "
                    f"from the constant's sources in {space.path})"
                )
        choices = []
        for b, (bucket, _) in enumerate(spec.buckets):
            incumbent = incumbents.get(constant.name, {}).get(bucket)
            deciding = deciding_source(space, constant, bucket)
            if deciding is not None:
                source, cases = deciding
                choice = _choose_bucket(
                    space=space,
                    index=i,
                    ctype=ctype,
                    bucket=bucket,
                    source=source,
                    cases=cases,
                    result=profile.results[source.bench],
                    incumbent=incumbent,
                    keep_incumbent=keep_incumbents,
                )
                competed = [c.value for c in choice.candidates]
                if not choice.pre_tuned and incumbent is not None and incumbent not in competed:
                    notes.append(
                        f"{constant.name}_{bucket}: the incumbent {incumbent!r} was not measured "
                        f"in every case of the bucket, so it could not compete"
                    )
                if not choice.pre_tuned:
                    result = profile.results[source.bench]
                    notes += unresolved_notes(
                        f"{constant.name}_{bucket}", choice.value, source.param, result, cases
                    )
                choices.append(choice)
                continue
            value = _fallback(space, i, ctype, b)
            origin: Origin = "fallback"
            if value is None:
                value, origin = incumbent, "incumbent"
            if value is None:
                raise HeaderError(
                    f"{space.path}: {json_path('header', 'constants', i)}: constant "
                    f"{constant.name} bucket {bucket}: no case of "
                    + ", ".join(repr(s.bench) for s in constant.sources)
                    + " falls in this bucket, there is no fallback and no checked-in value; "
                    'add a "fallback" or a case in the bucket'
                )
            choices.append(
                BucketChoice(
                    bucket=bucket,
                    value=value,
                    origin=origin,
                    source=None,
                    cases=(),
                    candidates=(),
                    partial=(),
                    incumbent=incumbent,
                )
            )
        for source in dict.fromkeys(c.source for c in choices if c.source and c.pre_tuned):
            on = ", ".join(map(str, pre_tune_cases(space, source)))
            notes.append(
                f"{constant.name}: {source.bench}.{source.param} is pre-tuned (on cases {on}); "
                "every bucket it decides takes that one winner"
            )
            value = next(c.value for c in choices if c.source == source)
            result = profile.results[source.bench]
            note = phase_unresolved_note(constant.name, value, source.param, result)
            notes += [] if note is None else [note]
        constants.append(ConstantChoice(constant=constant, ctype=ctype, buckets=tuple(choices)))
    return HeaderModel(spec=spec, constants=tuple(constants), notes=tuple(notes))


Holds = Mapping[tuple[str, str], tuple[Value, str]]
"""(constant, bucket) -> (value to keep, why): changes a consumer rejected."""


def apply_holds(model: HeaderModel, holds: Holds) -> HeaderModel:
    """The model with every held (constant, bucket) set back to its kept value (pure)."""
    constants = []
    for choice in model.constants:
        buckets = []
        for b in choice.buckets:
            held = holds.get((choice.constant.name, b.bucket))
            # A kept incumbent that a consumer also rejected the challenger of is held too.
            if held is not None and (held[0] != b.value or b.challenger is not None):
                b = replace(b, value=held[0], origin="held", held_reason=held[1])
            buckets.append(b)
        constants.append(replace(choice, buckets=tuple(buckets)))
    return replace(model, constants=tuple(constants))
