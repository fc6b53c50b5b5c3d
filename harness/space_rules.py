"""Second validation pass of space files: the cross-field rules a JSON Schema cannot state.

Each rule returns ``"$.path: what is wrong; what to do"`` lines; `space_problems` runs them all
so that one run of ``benchspace validate`` reports every mistake of a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from harness.errors import json_path
from harness.measurement import Value
from harness.space import Bench, Space, template_fields
from harness.space_header_rules import header_problems
from harness.space_schema import did_you_mean, show

FLAG_FIELDS = ("backend", "type", "out", "build_dir")
MULTI_ROW_READERS = ("minibench-csv", "gbench-json", "csv")


def space_problems(space: Space) -> list[str]:
    """Every cross-field problem of a schema-valid space, in file order."""
    out = _duplicate_names(space)
    for bench in space.benches:
        out += bench_problems(bench, space)
    out += _shared_executables(space)
    if space.header is not None:
        out += header_problems(space.header, space)
    return out


def _duplicate_names(space: Space) -> list[str]:
    first: dict[str, int] = {}
    out = []
    for bench in space.benches:
        if bench.name in first:
            out.append(
                f"{json_path('spaces', bench.position, 'bench')}: bench name {show(bench.name)} "
                f"is already used by $.spaces[{first[bench.name]}]; give each bench its own name"
            )
        first.setdefault(bench.name, bench.position)
    return out


# ---------------------------------------------------------------- one bench


class _Where:
    """Paths inside one bench entry, pointing at ``defaults`` for keys the bench inherits."""

    def __init__(self, bench: Bench, space: Space) -> None:
        self.bench = bench
        self.raw: Mapping[str, Any] = space.raw["spaces"][bench.position]
        self.defaults = space.defaults

    def __call__(self, *parts: str | int) -> str:
        return json_path("spaces", self.bench.position, *parts)

    def key(self, key: str, *more: str | int) -> str:
        if key not in self.raw and key in self.defaults:
            return json_path("defaults", key, *more)
        return self(key, *more)


def _grids(bench: Bench) -> Iterator[tuple[tuple[str | int, ...], str, tuple[Value | None, ...]]]:
    """Every grid of the bench with its path: case grids, then pre_tune grids."""
    for case in bench.cases:
        for name, grid in case.tune.items():
            yield ("cases", case.index, "tune", name), name, grid
    for phase in bench.pre_tune:
        for name, grid in phase.params.items():
            yield ("pre_tune", phase.index, "params", name), name, grid


def bench_problems(bench: Bench, space: Space) -> list[str]:
    """The rules about one bench entry."""
    at = _Where(bench, space)
    out: list[str] = []
    if not bench.metric:
        out.append(
            f'{at()}: no metric; set "metric" (the column, field or group to read) here or '
            'in "defaults"'
        )
    out += _arg_spec_rules(bench, at)
    out += _env_rules(bench, at)
    out += _case_rules(bench, at)
    out += _pre_tune_rules(bench, at)
    out += _grid_rules(bench, at)
    out += _kind_rules(bench, at)
    out += _reader_rules(bench, at)
    out += _flag_rules(bench, at)
    out += _sample_rules(bench, at)
    out += _batch_rules(bench, at)
    out += _consumer_rules(bench, at, space)
    return out


def _arg_spec_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    known = bench.parameter_names()
    for i, item in enumerate(bench.arg_spec):
        if not item.is_param:
            try:
                template_fields(item.text)
            except ValueError as exc:
                out.append(
                    f"{at('arg_spec', i)}: template {show(item.text)} is malformed: {exc}; "
                    "write placeholders as {name} and double a literal brace ({{ or }})"
                )
                continue
        for name in item.names:
            if name in bench.env:
                out.append(
                    f"{at('arg_spec', i)}: {show(name)} is an env parameter (env.{name} = "
                    f"{bench.env[name]}), and env parameters never appear in arg_spec; remove it "
                    "here or from env"
                )
            elif name not in known:
                literal = " (if it is a literal argument, put it in flags)" if item.is_param else ""
                out.append(
                    f"{at('arg_spec', i)}: {show(name)} names no parameter of any case"
                    f"{did_you_mean(name, known)}; give it a value in the cases' fixed or tune"
                    f"{literal}"
                )
    return out


def _env_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    owner: dict[str, str] = {}
    valued = set(bench.pre_tune_params())
    for case in bench.cases:
        valued |= set(case.fixed) | set(case.tune)
    for param, variable in bench.env.items():
        if variable in owner:
            out.append(
                f"{at('env', param)}: variable {variable} is already set by parameter "
                f"{show(owner[variable])}; give each parameter its own variable"
            )
        owner.setdefault(variable, param)
        if param not in valued:
            out.append(
                f"{at('env', param)}: parameter {show(param)} gets no value from any case or "
                f"pre_tune phase, so {variable} would never be set; add a grid for it to the "
                "cases' tune, or remove it from env"
            )
    return out


def _case_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    tuned = bench.tune_params()
    first_tuner = {name: next(c.index for c in bench.cases if name in c.tune) for name in tuned}
    args = bench.arg_names()
    everywhere = {
        name for name in args if any(name in c.fixed or name in c.tune for c in bench.cases)
    }
    pre = set(bench.pre_tune_params())
    for case in bench.cases:
        for name in case.tune:
            if name in case.fixed:
                out.append(
                    f"{at('cases', case.index, 'tune', name)}: {show(name)} is both fixed and "
                    "tuned in this case; remove it from fixed or from tune"
                )
        for name in tuned:
            if name in case.tune:
                continue
            j = first_tuner[name]
            if name in case.fixed:
                out.append(
                    f"{at('cases', case.index, 'fixed', name)}: {show(name)} is fixed here but "
                    f"tuned in cases[{j}]; move it into tune as a one-value grid: "
                    f'"{name}": [{show(case.fixed[name])}]'
                )
            else:
                out.append(
                    f"{at('cases', case.index, 'tune')}: no grid for {show(name)}, which "
                    f'cases[{j}] tunes; add "{name}": [...] (a one-value list pins it)'
                )
        for name in args:
            # Names no case knows are reported at arg_spec; a missing grid is reported above.
            reported = name not in everywhere or name in pre or name in bench.env or name in tuned
            if not reported and name not in case.fixed and name not in case.tune:
                out.append(
                    f"{at('cases', case.index)}: no value for {show(name)}, which arg_spec "
                    "uses; add it to this case's fixed or tune"
                )
    return out


def _pre_tune_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    n = len(bench.cases)
    seen: dict[str, int] = {}
    for phase in bench.pre_tune:
        for name in phase.params:
            here = at("pre_tune", phase.index, "params", name)
            if name in seen:
                out.append(
                    f"{here}: {show(name)} is already pre-tuned by pre_tune[{seen[name]}]; "
                    "tune it in one phase"
                )
            seen.setdefault(name, phase.index)
            places = [
                f"cases[{case.index}].{part}"
                for case in bench.cases
                for part in ("fixed", "tune")
                if name in getattr(case, part)
            ]
            if places:
                out.append(
                    f"{here}: {show(name)} is pre-tuned, so its winner is fixed for every case; "
                    f"remove it from {', '.join(places)}"
                )
        listed: set[int] = set()
        for k, index in enumerate(phase.cases):
            here = at("pre_tune", phase.index, "cases", k)
            if index >= n:
                out.append(
                    f"{here}: case index {index} is out of range: this bench has {n} "
                    f"case{'s' if n != 1 else ''} (0..{n - 1}); use an existing index"
                )
            elif index in listed:
                out.append(f"{here}: case index {index} is listed twice; list each case once")
            listed.add(index)
    return out


def _grid_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    reached = set(bench.arg_names()) | set(bench.env)
    reported: set[str] = set()
    for path, name, grid in _grids(bench):
        firsts: dict[tuple[str, Value], int] = {}
        for i, value in enumerate(grid):
            if value is None:
                if name not in bench.env:
                    out.append(
                        f"{at(*path, i)}: null (leave the variable unset) only applies to env "
                        f"parameters, and {show(name)} is not one; remove null or pass "
                        f"{show(name)} through env"
                    )
                continue
            key = (_kind(value), value)  # 1 and 1.0 collide, 1 and true do not
            if key in firsts:
                out.append(
                    f"{at(*path, i)}: value {show(value)} repeats index {firsts[key]} of this "
                    "grid; list each value once"
                )
            firsts.setdefault(key, i)
        if name not in reached and name not in reported:
            reported.add(name)
            out.append(
                f"{at(*path)}: {show(name)} is tuned but reaches the executable neither through "
                f"arg_spec nor env, so every value would measure the same thing; add it to "
                f"arg_spec or env{did_you_mean(name, reached)}"
            )
    return out


def _kind(value: Value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return "a string"


def _kind_rules(bench: Bench, at: _Where) -> list[str]:
    """One kind of value per parameter: a quoted "16" among numbers is a mistake."""
    out = []
    values: dict[str, list[Value]] = {}
    for _, name, value in bench.located_values():
        values.setdefault(name, []).append(value)
    majority: dict[str, str] = {}
    for name, vs in values.items():
        kinds = [_kind(v) for v in vs]
        majority[name] = max(dict.fromkeys(kinds), key=kinds.count)
    for path, name, value in bench.located_values():
        want = majority[name]
        if _kind(value) == want:
            continue
        word = want
        if want == "a number" and all(isinstance(v, int) for v in values[name] if _kind(v) == want):
            word = "an integer"
        out.append(
            f"{at(*path)}: value {show(value)} is not {word} like the other values of "
            f"{show(name)}; write {word} (or change the other values to match)"
        )
    return out


def _reader_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    if bench.reader == "regex":
        if "row" in at.raw:
            out.append(
                f"{at('row')}: the regex reader returns one row, so row selects nothing; remove it"
            )
        if bench.pattern is None:
            out.append(
                f'{at()}: reader regex needs "pattern", a regular expression whose named groups '
                "are the fields; add it"
            )
        else:
            out += _pattern_rules(bench, at)
    elif "pattern" in at.raw:
        out.append(
            f"{at('pattern')}: pattern is only read by the regex reader, and this bench uses "
            f'{bench.reader}; remove it or set "reader": "regex"'
        )
    if bench.reader == "gbench-json" and bench.row is None:
        out.append(
            f'{at()}: reader gbench-json needs "row": a Google Benchmark executable reports one '
            "row per registered benchmark and argument set; set row to the benchmark's name, "
            'e.g. "BM_Name/"'
        )
    return out


def _pattern_rules(bench: Bench, at: _Where) -> list[str]:
    assert bench.pattern is not None
    try:
        compiled = re.compile(bench.pattern)
    except re.error as exc:
        return [f"{at.key('pattern')}: pattern does not compile: {exc}; fix the expression"]
    groups = list(compiled.groupindex)
    if not groups:
        return [
            f"{at.key('pattern')}: pattern has no named groups, so it yields no fields; name the "
            "metric's group, e.g. (?P<speed>[0-9.]+)"
        ]
    if bench.metric and bench.metric not in groups:
        listed = ", ".join(show(g) for g in groups)
        return [
            f"{at.key('metric')}: metric {show(bench.metric)} is not a named group of the pattern "
            f"({listed}){did_you_mean(bench.metric, groups)}; name one of them"
        ]
    return []


def _flag_rules(bench: Bench, at: _Where) -> list[str]:
    out = []
    for k, flag in enumerate(bench.flags):
        try:
            fields = [f for _, f in template_fields(flag) if f is not None]
        except ValueError as exc:
            out.append(
                f"{at.key('flags', k)}: flag {show(flag)} is malformed: {exc}; write "
                "placeholders as {backend}, {type}, {out} or {build_dir} and double a literal brace"
            )
            continue
        for name in fields:
            if name not in FLAG_FIELDS:
                out.append(
                    f"{at.key('flags', k)}: flag {show(flag)} uses {{{name}}}, but flags may only "
                    "use {backend}, {type}, {out} and {build_dir}; pass parameter values "
                    "through arg_spec"
                )
    return out


def _sample_rules(bench: Bench, at: _Where) -> list[str]:
    if bench.sample is None or bench.sample.param in bench.tune_params():
        return []
    tuned = bench.tune_params()
    listed = ", ".join(show(t) for t in tuned) or "none"
    return [
        f"{at('sample', 'param')}: {show(bench.sample.param)} is not tuned by this bench's cases"
        f"{did_you_mean(bench.sample.param, tuned)}; name a tuned parameter ({listed})"
    ]


def _batch_rules(bench: Bench, at: _Where) -> list[str]:
    if bench.batch is None:
        return []
    param = bench.batch.param
    bare = [item for item in bench.arg_spec if item.is_param and item.text == param]
    if param not in bench.tune_params():
        tuned = ", ".join(show(t) for t in bench.tune_params()) or "none"
        return [
            f"{at('batch', 'param')}: {show(param)} is not tuned by this bench's cases"
            f"{did_you_mean(param, bench.tune_params())}; name a tuned parameter ({tuned})"
        ]
    if len(bare) != 1 or any(param in item.names for item in bench.arg_spec if not item.is_param):
        return [
            f"{at('batch', 'param')}: {show(param)} must appear in arg_spec exactly once, as a "
            "bare name (it expands into one argument per configuration)"
        ]
    if param in bench.env:
        return [f"{at('batch', 'param')}: {show(param)} is an env parameter; batch an argument"]
    return []


def _consumer_rules(bench: Bench, at: _Where, space: Space) -> list[str]:
    out = []
    names = [b.name for b in space.benches]
    for k, consumer in enumerate(bench.consumers):
        here = at("consumers", k)
        if (consumer.bench is None) == (consumer.exe is None):
            which = 'both "bench" and' if consumer.bench is not None else 'neither "bench" nor'
            out.append(
                f'{here}: has {which} "exe"; give a bench of this space or an executable, one '
                "of the two"
            )
            continue
        if consumer.exe is not None:
            if consumer.cases is not None:
                out.append(
                    f"{at('consumers', k, 'cases')}: cases only applies to a bench consumer; "
                    "give the executable's arguments in args"
                )
            continue
        if consumer.args:
            out.append(
                f"{at('consumers', k, 'args')}: args only applies to an exe consumer; a bench "
                "consumer takes its arguments from its cases"
            )
        target = next((b for b in space.benches if b.name == consumer.bench), None)
        if target is None:
            out.append(
                f"{at('consumers', k, 'bench')}: no bench {show(consumer.bench)} in this space"
                f"{did_you_mean(str(consumer.bench), names)}; name one of its benches"
            )
            continue
        n = len(target.cases)
        for m, index in enumerate(consumer.cases or ()):
            if index >= n:
                out.append(
                    f"{at('consumers', k, 'cases', m)}: case index {index} is out of range: "
                    f"bench {show(target.name)} has {n} case{'s' if n != 1 else ''} (0..{n - 1})"
                )
    return out


def _shared_executables(space: Space) -> list[str]:
    """A bench sharing an executable with a bench that selects a row must select one too."""
    out = []
    by_exe: dict[str, list[Bench]] = {}
    for bench in space.benches:
        by_exe.setdefault(bench.exe, []).append(bench)
    for exe, benches in by_exe.items():
        with_row = [b for b in benches if b.row is not None]
        if not with_row:
            continue
        other = with_row[0]
        for bench in benches:
            if bench.row is None and bench.batch is None and bench.reader in MULTI_ROW_READERS:
                out.append(
                    f"{json_path('spaces', bench.position)}: executable {show(exe)} is shared "
                    f"with bench {show(other.name)}, which selects row {show(other.row)}, so it "
                    'emits several rows; set "row" here too'
                )
    return out
