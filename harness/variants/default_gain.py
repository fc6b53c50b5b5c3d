"""The winner's speed-up over the library's default (pure): per case, from one profile.

A space names its library's default through its header: each constant's scalar ``fallback``
is the value the library ships for the bench parameters the constant's ``sources`` name.
Per case, the default's row (the measured configuration whose parameters equal those values)
is set against the case's best, both from the same interleaved rounds, so that neither was
timed under other clocks: the confirmation's rounds where ``tune --confirm`` re-timed both (it
always re-times the default), else the sweep's, which chose the winner and so flatter it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchspace.harness.plan import ParamValue
from benchspace.harness.profiles.model import BenchResult, MeasurementRow
from benchspace.harness.spaces.model import Space
from benchspace.harness.values import Value, render_value


@dataclass(frozen=True, kw_only=True)
class CaseGain:
    """One case: the default's and the winner's medians."""

    case_index: int
    fixed: Mapping[str, Value]
    default: Mapping[str, Value]
    default_median: float | None
    """None when the default configuration was not measured (or failed) in this case."""
    best: Mapping[str, ParamValue]
    best_median: float | None
    direction: str = "min"
    confirmed: bool = False
    """Both figures from a confirmation run (``tune --confirm`` re-timed the default and the
    winner in fresh rounds); else both from the sweep's rounds, which chose the winner."""

    @property
    def speedup(self) -> float | None:
        """How many times better the winner is than the default (>= 1 when it beat it)."""
        if not self.default_median or not self.best_median:
            return None
        if self.direction == "max":
            return self.best_median / self.default_median
        return self.default_median / self.best_median


def library_defaults(space: Space, bench: str) -> dict[str, Value]:
    """The bench parameters the header's scalar fallbacks set (the library's default)."""
    out: dict[str, Value] = {}
    if space.header is None:
        return out
    for constant in space.header.constants:
        if constant.fallback is None or isinstance(constant.fallback, tuple):
            continue
        for source in constant.sources:
            if source.bench == bench:
                out.setdefault(source.param, constant.fallback)
    return out


def _matches(row: MeasurementRow, values: Mapping[str, Value]) -> bool:
    return all(row.params.get(name) == value for name, value in values.items())


def case_gains(result: BenchResult, defaults: Mapping[str, Value]) -> list[CaseGain]:
    """Per case with a best: the default's median beside the winner's."""
    gains = []
    for best in sorted(result.per_case_best, key=lambda r: r.case_index):
        mine = [r for r in result.rows if r.case_index == best.case_index and _matches(r, defaults)]
        confirmed = best.confirmed is True and bool(mine) and mine[0].confirmed is True
        gains.append(
            CaseGain(
                case_index=best.case_index,
                fixed=best.fixed,
                default=dict(defaults),
                default_median=mine[0].median if mine and defaults else None,
                best=best.params,
                best_median=best.median,
                direction=result.direction,
                confirmed=confirmed,
            )
        )
    return gains


def held_out_gains(
    chooser: BenchResult, timer: BenchResult, defaults: Mapping[str, Value]
) -> list[CaseGain]:
    """Per case: the winner ``chooser`` picked and the default, both as ``timer`` (another,
    independent run of the same space) measured them: a speed-up from rounds that did not
    choose the winner. Cases are matched by their fixed values."""
    gains = []
    for pick in sorted(chooser.per_case_best, key=lambda r: r.case_index):
        here = [r for r in timer.rows if dict(r.fixed) == dict(pick.fixed)]
        mine = [r for r in here if r.params == pick.params]
        default = [r for r in here if defaults and _matches(r, defaults)]
        gains.append(
            CaseGain(
                case_index=pick.case_index,
                fixed=pick.fixed,
                default=dict(defaults),
                default_median=default[0].median if default else None,
                best=pick.params,
                best_median=mine[0].median if mine else None,
                direction=chooser.direction,
                confirmed=bool(mine and default),
            )
        )
    return gains


def geomean_speedup(gains: Sequence[CaseGain]) -> float | None:
    """The geometric mean of the cases' speed-ups (None when no case has one)."""
    ups = [g.speedup for g in gains if g.speedup is not None]
    if not ups:
        return None
    return math.exp(sum(math.log(u) for u in ups) / len(ups))


def _label(values: Mapping[str, ParamValue]) -> str:
    words = [f"{k}={'(unset)' if v is None else render_value(v)}" for k, v in values.items()]
    return " ".join(words) or "(none)"


def gain_lines(
    bench: str, metric: str, gains: Sequence[CaseGain], timed_in: str | None = None
) -> list[str]:
    """A plain table: one line per case, then the geometric mean and whose rounds the figures
    come from (``timed_in``: the other run that timed them, see :func:`held_out_gains`)."""
    if not gains:
        return [f"{bench}: no case has a measured best"]
    default = _label(gains[0].default) if gains[0].default else "(no header fallbacks)"
    lines = [f"{bench}: winner against the library's default ({default}), {metric}"]
    for g in gains:
        case = _label(g.fixed)
        dm = f"{g.default_median:.4g}" if g.default_median is not None else "not measured"
        bm = f"{g.best_median:.4g}" if g.best_median is not None else "-"
        up = f"{g.speedup:.3f}x" if g.speedup is not None else "-"
        lines.append(
            f"  case {g.case_index} ({case}): default {dm}, best {bm} ({_label(g.best)}): {up}"
        )
    mean = geomean_speedup(gains)
    shown = f"{mean:.3f}x" if mean is not None else "-"
    counted = sum(g.speedup is not None for g in gains)
    lines.append(f"  geometric mean speed-up over {counted} cases: {shown}")
    timed = [g for g in gains if g.speedup is not None]
    confirmed = sum(g.confirmed for g in timed)
    if timed_in is not None:
        lines.append(f"  figures from the rounds of {timed_in}, which did not choose these winners")
    elif timed and confirmed == len(timed):
        lines.append("  figures from the confirmation rounds (default and winner re-timed fresh)")
    else:
        lines.append(
            f"  figures from the sweep's rounds, which chose the winner, for "
            f"{len(timed) - confirmed} of {len(timed)} cases (`tune --confirm K` re-times the "
            "winner and the default in fresh rounds)"
        )
    return lines


def gains_data(bench: str, metric: str, gains: Sequence[CaseGain]) -> dict[str, object]:
    """The same as JSON-ready data."""
    return {
        "bench": bench,
        "metric": metric,
        "default": dict(gains[0].default) if gains else {},
        "cases": [
            {
                "case_index": g.case_index,
                "fixed": dict(g.fixed),
                "default_median": g.default_median,
                "best": dict(g.best),
                "best_median": g.best_median,
                "speedup": g.speedup,
                "confirmed": g.confirmed,
            }
            for g in gains
        ],
        "geomean_speedup": geomean_speedup(gains),
    }
