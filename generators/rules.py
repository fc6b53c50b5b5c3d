"""Rules a header-fed space must keep before anything is measured or generated.

1. Every bench feeds a constant or is ``report_only`` (nothing is measured and then dropped).
2. Each constant's incumbent (the value the checked-in header ships) is in the grid of every
   case that decides its bucket, or a retune could "win" by downgrading it to the best of a
   grid that never held it.

`check_header_rules` is what ``tune --validate``, ``generate``, ``review`` and ``confirm`` call
(through `generators.session`); `add_incumbents` is what ``--include-incumbent`` does to a
space before a sweep.
"""

from __future__ import annotations

import dataclasses

from benchspace.generators.header_model import Incumbents, constant_type
from benchspace.harness.cxx_types import CxxType, normalise
from benchspace.harness.errors import json_path
from benchspace.harness.spaces.model import Bench, Case, Space, deciding_source
from benchspace.harness.values import Value


def case_grid(bench: Bench, case: Case, param: str) -> tuple[Value | None, ...]:
    """The values `param` can take in `case`: its own grid, a pre_tune grid, or its fixed value.

    A parameter the case neither tunes nor fixes takes the union of the other cases' grids.
    """
    if param in case.tune:
        return case.tune[param]
    for phase in bench.pre_tune:
        if param in phase.params:
            return phase.params[param]
    if param in case.fixed:
        return (case.fixed[param],)
    return bench.grid_union().get(param, ())


def _normalised(ctype: CxxType, grid: tuple[Value | None, ...]) -> list[Value | None]:
    out: list[Value | None] = []
    for raw in grid:
        try:
            out.append(None if raw is None else normalise(ctype, raw))
        except ValueError:
            out.append(raw)
    return out


def _plain_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def feed_problems(space: Space) -> list[str]:
    """Benches of a header-fed space that feed no constant and are not report_only."""
    if space.header is None:
        return []
    fed = {s.bench for c in space.header.constants for s in c.sources}
    return [
        f"{space.path}: {json_path('spaces', b.position)}: bench {b.name!r} feeds no header "
        'constant; name it in a constant\'s sources or mark it "report_only": true'
        for b in space.benches
        if b.name not in fed and not b.report_only
    ]


def incumbent_problems(
    space: Space, incumbents: Incumbents, *, header: str = "the checked-in header"
) -> list[str]:
    """Cases whose grid lacks the incumbent of a constant's bucket they decide."""
    if space.header is None:
        return []
    out = []
    for i, constant in enumerate(space.header.constants):
        ctype = constant_type(space, i)
        for bucket, _ in space.header.buckets:
            incumbent = incumbents.get(constant.name, {}).get(bucket)
            deciding = deciding_source(space, constant, bucket)
            if incumbent is None or deciding is None:
                continue
            source, cases = deciding
            bench = space.bench(source.bench)
            for case in cases:
                grid = case_grid(bench, case, source.param)
                if incumbent in _normalised(ctype, grid):
                    continue
                where = json_path("spaces", bench.position, "cases", case.index)
                shown = ", ".join("null" if v is None else repr(v) for v in grid)
                out.append(
                    f"{space.path}: {where}: constant {constant.name} bucket {bucket}: the "
                    f"incumbent {incumbent!r} ({header}) is not in the grid of "
                    f"{bench.name}.{source.param} [{shown}]; add it to the grid, or pass "
                    "--include-incumbent"
                )
    return out


def check_header_rules(
    space: Space,
    incumbents: Incumbents,
    *,
    header: str = "the checked-in header",
    include_incumbent: bool = False,
) -> list[str]:
    """Every header rule the space breaks, one line each (empty when it keeps them all).

    With `include_incumbent`, incumbents missing from a grid are not problems (they are added
    to the sweep, or compete only where they were measured).
    """
    problems = feed_problems(space)
    if not include_incumbent:
        problems += incumbent_problems(space, incumbents, header=header)
    return problems


def add_incumbents(space: Space, incumbents: Incumbents) -> Space:
    """The space with each missing incumbent added to the grid of every case it must be in.

    A pre-tuned parameter gets it in its pre_tune phase (whose winner every case shares); a
    parameter a case fixes is left alone (its value is not the sweep's to choose).
    """
    if space.header is None:
        return space
    benches = {b.name: b for b in space.benches}
    for i, constant in enumerate(space.header.constants):
        ctype = constant_type(space, i)
        for bucket, _ in space.header.buckets:
            incumbent = incumbents.get(constant.name, {}).get(bucket)
            deciding = deciding_source(space, constant, bucket)
            if incumbent is None or deciding is None:
                continue
            source, cases = deciding
            for case in cases:
                bench = benches[source.bench]
                current = bench.cases[case.index]
                grid = case_grid(bench, current, source.param)
                if source.param in current.fixed or incumbent in _normalised(ctype, grid):
                    continue
                # Spell the incumbent as the grid does (a bool constant may sweep 0/1).
                spelled: Value = incumbent
                if isinstance(incumbent, bool) and any(_plain_int(v) for v in grid):
                    spelled = int(incumbent)
                benches[bench.name] = _with_value(bench, current, source.param, (*grid, spelled))
    return dataclasses.replace(space, benches=tuple(benches[b.name] for b in space.benches))


def _with_value(bench: Bench, case: Case, param: str, grid: tuple[Value | None, ...]) -> Bench:
    """`bench` with `param`'s grid for `case` (or its pre_tune phase) replaced by `grid`."""
    phases = list(bench.pre_tune)
    for phase in phases:
        if param in phase.params:
            phases[phase.index] = dataclasses.replace(phase, params={**phase.params, param: grid})
            return dataclasses.replace(bench, pre_tune=tuple(phases))
    cases = list(bench.cases)
    cases[case.index] = dataclasses.replace(case, tune={**case.tune, param: grid})
    return dataclasses.replace(bench, cases=tuple(cases))
