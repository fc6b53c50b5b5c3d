"""compare: two profiles of one space side by side (old hardware against new, say) (pure).

Per bench and case (cases are matched by their fixed values), each profile's winner
(``per_case_best``: its parameters and value), the ratio NEW/OLD of the winners' values, and
the noise of that ratio, from each profile's noise floor for the bench (harness/analysis/
noise.py: pooled over all its measurements, from repeats, else from reported spreads; the
floor is twice the standard error of a difference between two medians of one profile, so
one median's standard error is floor / (2 sqrt 2)): twice the standard error of the
cross-profile difference, ``sqrt((floor_old**2 + floor_new**2) / 2)``; unknown when either
profile cannot say. A pooled floor, not the two winners' own few repeats, because a standard
deviation of two or three samples can be anything. A ratio whose log lies within the noise is
"within noise"; otherwise it is better or worse in the bench's direction; with the noise
unknown (a profile without repeats or spreads, BatchLAS's) it is "noise unknown". Where
NEW measured OLD's winning configuration, its value there says what keeping OLD's winner
would cost on NEW.

Profiles tuned with different spaces (both record the space's hash and the hashes differ)
are refused unless allowed; the meta values that differ (host, GPU, commit, executables ...)
are listed, not refused: telling them apart is what a compare is for. Which header values a
generate from NEW would change is computed by the command (harness/cli/compare.py), which
fills `ProfileComparison.header`. harness/analysis/compare_format.py renders the records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchspace.harness.analysis.noise import measured_noise
from benchspace.harness.errors import ProfileError
from benchspace.harness.plan import ParamValue
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, Profile
from benchspace.harness.profiles.scoring import better
from benchspace.harness.values import Value, same_key


@dataclass(frozen=True, kw_only=True)
class Winner:
    """A case's best configuration in one profile."""

    params: Mapping[str, ParamValue]
    value: float
    rel_error: float | None
    """Relative standard error of the value (None: the profile cannot say)."""
    n: int | None


@dataclass(frozen=True, kw_only=True)
class CaseComparison:
    """One case in both profiles."""

    case_index: int
    """NEW's index of the case (OLD's when only OLD has it)."""
    fixed: Mapping[str, Value]
    old: Winner | None
    new: Winner | None
    ratio: float | None
    """NEW's winning value over OLD's (None unless both have one)."""
    noise: float | None
    """The ratio's noise: a relative difference (0.03 = 3 %) its log must exceed to count."""
    verdict: str
    """``better``, ``worse``, ``within noise`` or ``equal`` (NEW against OLD, in the bench's
    direction), ``only in OLD`` or ``only in NEW``."""
    same_winner: bool
    old_winner_on_new: float | None
    """NEW's value of OLD's winning configuration in this case, when NEW measured it."""


@dataclass(frozen=True, kw_only=True)
class BenchComparison:
    """One bench in both profiles (or in one of them)."""

    bench: str
    metric: str
    direction: str
    cases: tuple[CaseComparison, ...]
    only_in: str | None = None
    """``OLD`` or ``NEW`` when the other profile does not have the bench."""

    @property
    def geomean_ratio(self) -> float | None:
        """The geometric mean of the cases' ratios NEW/OLD (None without a matched case)."""
        ratios = [c.ratio for c in self.cases if c.ratio is not None and c.ratio > 0]
        if not ratios:
            return None
        return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


@dataclass(frozen=True, kw_only=True)
class Difference:
    """A meta value that differs between the two profiles."""

    key: str
    old: Any
    new: Any


@dataclass(frozen=True, kw_only=True)
class HeaderChange:
    """One header value a generate from NEW writes differently from one from OLD."""

    constant: str
    bucket: str
    old: Value | None
    new: Value | None
    old_origin: str
    new_origin: str
    """Where the value comes from (``profile``, ``fallback``, ``incumbent``, ...)."""


@dataclass(frozen=True, kw_only=True)
class ProfileComparison:
    """Two profiles compared."""

    old_source: str
    new_source: str
    old_sha256: str
    new_sha256: str
    differences: tuple[Difference, ...]
    unrecorded: tuple[str, ...]
    """``OLD`` and/or ``NEW`` when that profile records no provenance (BatchLAS's): its space,
    executables and host cannot be compared."""
    benches: tuple[BenchComparison, ...]
    header: tuple[HeaderChange, ...] | None = None
    """None when not computed (see `header_note`)."""
    header_unchanged: int = 0
    """How many header values the two generates agree on."""
    header_note: str = ""


_META_KEYS = ("backend", "dtype", "hostname", "platform")
_PROVENANCE_KEYS = ("host", "cpu", "gpu", "driver", "git_commit", "git_dirty", "options")


def meta_values(profile: Profile) -> dict[str, Any]:
    """The meta values a comparison shows when they differ, by display key."""
    meta = profile.meta
    out: dict[str, Any] = {key: getattr(meta, key) for key in _META_KEYS}
    prov = meta.provenance
    if prov is not None:
        out["space_path"] = prov.space_path
        out["space_sha256"] = prov.space_sha256
        for key in _PROVENANCE_KEYS:
            out[key] = prov.other.get(key)
        for exe, digest in sorted((prov.executables or {}).items()):
            out[f"executables.{exe}"] = digest
    return out


def meta_differences(old: Profile, new: Profile) -> tuple[Difference, ...]:
    """The meta values that differ (a value one profile does not record counts as None)."""
    a, b = meta_values(old), meta_values(new)
    keys = list(dict.fromkeys([*a, *b]))
    return tuple(
        Difference(key=k, old=a.get(k), new=b.get(k)) for k in keys if a.get(k) != b.get(k)
    )


def _fixed_sets(result: BenchResult) -> set[str]:
    return {_case_key(r.fixed) for r in result.per_case_best}


def space_differences(old: Profile, new: Profile, *, limit: int = 4) -> list[str]:
    """What differs between the benches the two profiles swept, as far as they record it."""
    out: list[str] = []
    for side, a, b in (("OLD", old, new), ("NEW", new, old)):
        only = [name for name in a.results if name not in b.results]
        if only:
            out.append(f"benches only in {side}: {', '.join(only)}")
    for name, a_result in old.results.items():
        b_result = new.results.get(name)
        if b_result is None:
            continue
        for what, x, y in (
            ("arg_spec", list(a_result.arg_spec), list(b_result.arg_spec)),
            ("env", dict(a_result.env_spec), dict(b_result.env_spec)),
            ("metric", a_result.metric, b_result.metric),
        ):
            if x != y:
                out.append(f"{name}.{what} {json.dumps(x)} → {json.dumps(y)}")
        xs, ys = _fixed_sets(a_result), _fixed_sets(b_result)
        if xs != ys:
            out.append(f"{name}: {len(xs - ys)} cases only in OLD, {len(ys - xs)} only in NEW")
    return out[:limit] + ([f"{len(out) - limit} more"] if len(out) > limit else [])


def check_same_space(old: Profile, new: Profile, *, allow: bool) -> None:
    """Refuse profiles tuned with different spaces (both hashes known and different)."""
    a, b = old.space_sha256, new.space_sha256
    if allow or not a or not b or a == b:
        return
    seen = space_differences(old, new)
    detail = f" ({'; '.join(seen)})" if seen else " (same benches, arg_specs and cases)"
    raise ProfileError(
        f"{old.source} and {new.source} were tuned with different spaces: "
        f"$.meta.provenance.space_sha256 {a[:12]}… ({old.space_path}) against {b[:12]}… "
        f"({new.space_path}){detail}; compare profiles of one space, or pass "
        "--allow-different-spaces"
    )


def rel_error(row: MeasurementRow) -> float | None:
    """A value's relative standard error: from its repeats, else from its reported spread."""
    if row.rel_error is not None:
        return row.rel_error
    if row.spread is not None and row.spread > 0 and row.median:
        return row.spread / math.sqrt(max(row.n or 1, 1)) / abs(row.median)
    return None


def _winner(row: MeasurementRow) -> Winner | None:
    if row.median is None:
        return None
    return Winner(params=dict(row.params), value=row.median, rel_error=rel_error(row), n=row.n)


def _case_key(fixed: Mapping[str, Value]) -> str:
    return json.dumps({k: same_key(v) for k, v in fixed.items()}, sort_keys=True)


def _same_params(a: Mapping[str, ParamValue], b: Mapping[str, ParamValue]) -> bool:
    return {k: same_key(v) for k, v in a.items()} == {k: same_key(v) for k, v in b.items()}


def _verdict(ratio: float, noise: float | None, direction: str) -> str:
    if ratio == 1.0:
        return "equal"
    if noise is None:
        # Without a spread a difference cannot be told from noise: no better or worse.
        return "noise unknown"
    if abs(math.log(ratio)) <= noise:
        return "within noise"
    return "better" if better(ratio, 1.0, direction) else "worse"


def ratio_noise(old: BenchResult | None, new: BenchResult | None) -> float | None:
    """The noise of a ratio between the two profiles' values of one bench (0.03 = 3 %)."""
    if old is None or new is None:
        return None
    a, _, _ = measured_noise(old.measurements)
    b, _, _ = measured_noise(new.measurements)
    if a is None or b is None:
        return None
    return math.sqrt((a * a + b * b) / 2.0) / 100.0


def compare_case(
    old: MeasurementRow | None,
    new: MeasurementRow | None,
    new_result: BenchResult | None,
    noise: float | None = None,
) -> CaseComparison:
    """One case: both winners, their ratio and its noise."""
    some = new if new is not None else old
    assert some is not None
    direction = new_result.direction if new_result is not None else "min"
    a = None if old is None else _winner(old)
    b = None if new is None else _winner(new)
    ratio = None
    verdict = "only in NEW" if a is None else "only in OLD"
    if a is not None and b is not None and a.value > 0 and b.value > 0:
        ratio = b.value / a.value
        verdict = _verdict(ratio, noise, direction)
    else:
        noise = None
    on_new = None
    if a is not None and new_result is not None:
        for row in new_result.case_rows(some.case_index):
            if _same_params(row.params, a.params) and row.median is not None:
                on_new = row.median
                break
    return CaseComparison(
        case_index=some.case_index,
        fixed=dict(some.fixed),
        old=a,
        new=b,
        ratio=ratio,
        noise=noise,
        verdict=verdict,
        same_winner=a is not None and b is not None and _same_params(a.params, b.params),
        old_winner_on_new=on_new,
    )


def compare_bench(old: BenchResult | None, new: BenchResult | None) -> BenchComparison:
    """One bench: its cases matched by their fixed values, in NEW's order then OLD's."""
    some = new if new is not None else old
    assert some is not None
    olds = {_case_key(r.fixed): r for r in (old.per_case_best if old else ())}
    news = {_case_key(r.fixed): r for r in (new.per_case_best if new else ())}
    keys = list(dict.fromkeys([*news, *olds]))
    noise = ratio_noise(old, new)
    return BenchComparison(
        bench=some.bench,
        metric=some.metric,
        direction=some.direction,
        cases=tuple(compare_case(olds.get(k), news.get(k), new, noise) for k in keys),
        only_in=None if old is not None and new is not None else ("NEW" if old is None else "OLD"),
    )


def compare_profiles(
    old: Profile, new: Profile, *, allow_different_spaces: bool = False
) -> ProfileComparison:
    """Compare every bench of two profiles (refusing different spaces unless allowed)."""
    check_same_space(old, new, allow=allow_different_spaces)
    names: Sequence[str] = list(dict.fromkeys([*new.results, *old.results]))
    return ProfileComparison(
        old_source=old.source,
        new_source=new.source,
        old_sha256=old.sha256,
        new_sha256=new.sha256,
        differences=meta_differences(old, new),
        unrecorded=tuple(
            side for side, p in (("OLD", old), ("NEW", new)) if p.meta.provenance is None
        ),
        benches=tuple(compare_bench(old.results.get(n), new.results.get(n)) for n in names),
    )
