"""Review a generated header against the checked-in one, with the profile as evidence.

For every constant and bucket whose value changes: old -> new, the measured metric of old and
new on the bucket's cases, the gain (geometric mean over those cases of the new value's speed-up
over the old, direction-aware; positive = better) with its noise, and flags. The noise is twice
the standard error of the log speed-up, from each measurement's stdev and repeat count; a
profile with one sample per configuration has no noise estimate and says so.

The result is plain data (`Review`); `generators.review_format` renders it as Markdown, text
or JSON. The JSON form is what ``port --accepted`` and ``confirm`` read.

An unchanged value whose bucket the profile's winner would have taken without the incumbent
rule (`generators.header_model`: a challenger within noise keeps the incumbent) is listed as
kept, with the challenger's gain and noise.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

from benchspace.generators.gain import noise as _noise
from benchspace.generators.gain import speedup as _speedup
from benchspace.generators.header_model import (
    BucketChoice,
    Origin,
    choose_header,
    constant_type,
    incumbents_from_header,
    pre_tune_cases,
    pre_tuned,
)
from benchspace.generators.header_parse import ParsedHeader
from benchspace.generators.value_cells import ValueCell, value_cells
from benchspace.harness.cxx_types import CxxType, env_text, literal, normalise
from benchspace.harness.errors import HeaderError
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.scoring import geomean
from benchspace.harness.spaces.model import (
    Case,
    HeaderConstant,
    HeaderSource,
    Space,
    deciding_source,
)
from benchspace.harness.values import Value

FLAGS: dict[str, str] = {
    "incumbent-not-measured": "incumbent not measured",
    "new-not-measured": "new value not measured",
    "within-noise": "gain within noise",
    "noise-unknown": "noise unknown",
    "fallback": "value from fallback",
    "incumbent": "no case in the bucket (value kept from a header)",
    "aliased": "fed by several benches",
    "inert": "knob moved nothing (possibly not read)",
    "not-in-header": "not in the checked-in header",
    "pre-tuned": "pre-tuned on other cases (one value for every bucket)",
}
"""Flag -> how reports spell it."""

_SAME = 1e-9  # without a noise estimate, "moved nothing" means identical to this precision


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseEvidence:
    """Old and new value measured on one case of the bucket."""

    case_index: int
    fixed: Mapping[str, Value]
    old: float | None
    new: float | None
    speedup: float | None
    """How many times better new is than old on this case (>1 = better)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Change:
    """One constant's value in one bucket that the generated header changes."""

    constant: str
    bucket: str
    name: str
    old: Value | None
    new: Value
    old_text: str | None
    new_text: str
    env: str
    env_old: str | None
    env_new: str
    bucket_key: str
    bucket_above: int | None
    bucket_upto: int | None
    source: HeaderSource | None
    origin: Origin
    metric: str
    direction: str
    cases: tuple[CaseEvidence, ...]
    gain: float | None
    noise: float | None
    flags: tuple[str, ...]
    consumers: tuple[Mapping[str, object], ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class Kept:
    """An unchanged value whose challenger, the profile's winner, gave way to it: within the
    measured noise (``how`` "noise", with its gain), or left unbeaten beside it by the race's
    or confirmation's verdicts (``how`` "verdict")."""

    constant: str
    bucket: str
    name: str
    value: Value
    challenger: Value
    gain: float | None
    noise: float | None
    how: str = "noise"


@dataclass(frozen=True, kw_only=True, slots=True)
class Review:
    """Every change of a generated header, with where each input came from."""

    generated: str
    header: str
    profile: str
    profile_sha256: str
    space: str
    space_sha256: str
    changes: tuple[Change, ...]
    unchanged: int
    kept: tuple[Kept, ...] = ()
    """Unchanged values the profile's winner would have replaced but for the noise."""


def _inert(tables: list[dict[Value, ValueCell]], direction: str) -> bool:
    """Whether, in every case, every value measured the same as the best within noise."""
    judged = False
    for cells in tables:
        if len(cells) < 2:
            continue
        judged = True
        ranked = sorted(cells.values(), key=lambda c: c.metric, reverse=direction == "max")
        best, worst = ranked[0], ranked[-1]
        noise = _noise([(best, worst)])
        limit = _SAME if noise is None else noise
        if best.metric <= 0 or abs(math.log(worst.metric / best.metric)) > limit:
            return False
    return judged


def _edges(space: Space, bucket: str) -> tuple[int | None, int | None]:
    assert space.header is not None
    above = None
    for name, edge in space.header.buckets:
        if name == bucket:
            return above, edge
        above = edge
    raise KeyError(bucket)


def _evidence(
    space: Space,
    profile: Profile,
    constant: HeaderConstant,
    ctype: CxxType,
    source: HeaderSource,
    cases: tuple[Case, ...],
    old: Value | None,
    new: Value,
    *,
    phase: bool = False,
) -> tuple[list[CaseEvidence], list[str], float | None, float | None]:
    result = profile.results.get(source.bench)
    if result is None:
        raise HeaderError(
            f"{profile.source}: $.results: no result for bench {source.bench!r}, which feeds "
            f"constant {constant.name}; review with the profile the header was generated from"
        )
    evidence = []
    tables = []
    pairs = []
    flags = []

    def convert(raw: object) -> Value:
        try:
            return normalise(ctype, raw)
        except ValueError as exc:
            raise HeaderError(f"{profile.source}: {source.bench}.{source.param}: {exc}") from None

    for case in cases:
        rows = result.case_rows(case.index, phase=phase)
        cells = value_cells(rows, source.param, result.direction, convert)
        tables.append(cells)
        old_cell = cells.get(old) if old is not None else None
        new_cell = cells.get(new)
        if old_cell is not None and new_cell is not None:
            pairs.append((old_cell, new_cell))
        evidence.append(
            CaseEvidence(
                case_index=case.index,
                fixed=dict(case.fixed),
                old=None if old_cell is None else old_cell.metric,
                new=None if new_cell is None else new_cell.metric,
                speedup=_speedup(old_cell, new_cell, result.direction),
            )
        )
    if old is not None and any(e.old is None for e in evidence):
        flags.append("incumbent-not-measured")
    if any(e.new is None for e in evidence):
        flags.append("new-not-measured")
    speedups = [e.speedup for e in evidence if e.speedup is not None]
    gain = geomean(speedups) - 1.0 if speedups else None
    noise = _noise(pairs) if pairs else None
    if gain is not None and noise is None:
        flags.append("noise-unknown")
    if gain is not None and noise is not None and abs(math.log1p(gain)) <= noise:
        flags.append("within-noise")
    if _inert(tables, result.direction):
        flags.append("inert")
    return evidence, flags, gain, noise


def _value(ctype: CxxType, raw: Value | None, where: str) -> Value | None:
    if raw is None:
        return None
    try:
        return normalise(ctype, raw)
    except ValueError as exc:
        raise HeaderError(f"{where}: {exc}") from None


def _change(
    space: Space,
    profile: Profile,
    index: int,
    bucket: str,
    old: Value | None,
    new: Value,
) -> Change:
    """One changed value, with its evidence from the deciding bench's cases in the bucket."""
    spec = space.header
    assert spec is not None
    constant = spec.constants[index]
    ctype = constant_type(space, index)
    flags = [] if old is not None else ["not-in-header"]
    if len({s.bench for s in constant.sources}) > 1:
        flags.append("aliased")
    deciding = deciding_source(space, constant, bucket)
    evidence: list[CaseEvidence] = []
    gain = noise = None
    metric, direction = "", "min"
    consumers: tuple[Mapping[str, object], ...] = ()
    if deciding is None:
        origin: Origin = "fallback" if constant.fallback is not None else "incumbent"
        flags.append(origin)
    else:
        origin = "profile"
        source, cases = deciding
        result = profile.results.get(source.bench)
        if result is not None:
            metric, direction = result.metric, result.direction
        consumers = tuple(
            {k: v for k, v in dataclasses.asdict(c).items() if v not in (None, ())}
            for c in space.bench(source.bench).consumers
        )
        phase = pre_tuned(space, source) and bool(result and result.phase_rows)
        if phase:
            # Its alternatives ran in the pre_tune phase, on the phase's cases: that is the
            # evidence (the phase's table), whichever bucket this is.
            bench = space.bench(source.bench)
            cases = tuple(bench.cases[i] for i in pre_tune_cases(space, source))
        evidence, more, gain, noise = _evidence(
            space, profile, constant, ctype, source, cases, old, new, phase=phase
        )
        if pre_tuned(space, source):
            # Its alternatives ran in the pre_tune phase, not on this bucket's cases.
            more = [f for f in more if f != "incumbent-not-measured"] + ["pre-tuned"]
        flags += more
    above, upto = _edges(space, bucket)
    return Change(
        constant=constant.name,
        bucket=bucket,
        name=f"{constant.name}_{bucket}",
        old=old,
        new=new,
        old_text=None if old is None else literal(ctype, old),
        new_text=literal(ctype, new),
        env=spec.env_prefix + constant.name,
        env_old=None if old is None else env_text(ctype, old),
        env_new=env_text(ctype, new),
        bucket_key=spec.bucket_key,
        bucket_above=above,
        bucket_upto=upto,
        source=None if deciding is None else deciding[0],
        origin=origin,
        metric=metric,
        direction=direction,
        cases=tuple(evidence),
        gain=gain,
        noise=noise,
        flags=tuple(flags),
        consumers=consumers,
    )


def review_header(
    space: Space, profile: Profile, generated: ParsedHeader, header: ParsedHeader
) -> Review:
    """Compare `generated` with the checked-in `header`, using `profile` as evidence (pure)."""
    spec = space.header
    if spec is None:
        raise HeaderError(f'{space.path}: $: the space has no "header" section; nothing to review')
    if not generated.banner:
        raise HeaderError(
            f"{generated.source}: not a generated header (no 'Generated by benchspace' line); "
            "pass the output of `benchspace generate` as --generated"
        )
    if f"from profile {profile.sha256[:12]} " not in generated.banner:
        raise HeaderError(
            f"{generated.source}: was generated from another profile ({generated.banner}); "
            f"review it with that profile, not {profile.source} ({profile.sha256[:12]})"
        )
    changes = []
    unchanged = 0
    kept = []
    challengers = _challengers(space, profile, header)
    for i, constant in enumerate(spec.constants):
        ctype = constant_type(space, i)
        for bucket, _ in spec.buckets:
            name = f"{constant.name}_{bucket}"
            new = _value(ctype, generated.value(name), f"{generated.source}: {name}")
            if new is None:
                raise HeaderError(
                    f"{generated.source}: no literal value for {name}; regenerate it from "
                    f"{space.path}"
                )
            old = _value(ctype, header.value(name), f"{header.source}: {name}")
            if old is not None and old == new:
                unchanged += 1
                choice = challengers.get((constant.name, bucket))
                if choice is not None and choice.value == new:
                    kept.append(_kept(constant.name, bucket, choice))
            else:
                changes.append(_change(space, profile, i, bucket, old, new))
    return Review(
        generated=generated.source,
        header=header.source,
        profile=profile.source,
        profile_sha256=profile.sha256,
        space=str(space.path),
        space_sha256=space.sha256,
        changes=tuple(changes),
        unchanged=unchanged,
        kept=tuple(kept),
    )


def _challengers(
    space: Space, profile: Profile, header: ParsedHeader
) -> dict[tuple[str, str], BucketChoice]:
    """The buckets where the profile's winner gave way (within noise, or to the verdicts)."""
    try:
        model = choose_header(
            space, profile, incumbents_from_header(space, header), keep_incumbents=True
        )
    except HeaderError:
        return {}  # the values cannot all be chosen: no claim about which were kept
    return {
        (c.constant.name, b.bucket): b
        for c in model.constants
        for b in c.buckets
        if b.challenger is not None
    }


def _kept(constant: str, bucket: str, choice: BucketChoice) -> Kept:
    assert choice.challenger is not None
    gain = choice.challenger_gain
    return Kept(
        constant=constant,
        bucket=bucket,
        name=f"{constant}_{bucket}",
        value=choice.value,
        challenger=choice.challenger,
        gain=None if gain is None else gain.gain,
        noise=None if gain is None else gain.noise,
        how=choice.kept_by or "noise",
    )
