"""Space rules about a bench's parameters: arguments, env, cases, pre_tune phases and grids.

Each rule returns ``"$.path: what is wrong; what to do"`` lines (see `harness.spaces.rules`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from benchspace.harness.errors import json_path
from benchspace.harness.spaces.model import Bench, Space, template_fields
from benchspace.harness.spaces.schema import did_you_mean, show
from benchspace.harness.values import Value, kind_of, same_key


class Where:
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


def arg_spec_rules(bench: Bench, at: Where) -> list[str]:
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


def env_rules(bench: Bench, at: Where) -> list[str]:
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


def case_rules(bench: Bench, at: Where) -> list[str]:
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


def pre_tune_rules(bench: Bench, at: Where) -> list[str]:
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


def grid_rules(bench: Bench, at: Where) -> list[str]:
    out = []
    reached = set(bench.arg_names()) | set(bench.env) | set(bench.compile)
    reported: set[str] = set()
    for path, name, grid in _grids(bench):
        firsts: dict[tuple[str, object], int] = {}
        for i, value in enumerate(grid):
            if value is None:
                if name not in bench.env:
                    out.append(
                        f"{at(*path, i)}: null (leave the variable unset) only applies to env "
                        f"parameters, and {show(name)} is not one; remove null or pass "
                        f"{show(name)} through env"
                    )
                continue
            key = same_key(value)  # 1 and 1.0 collide, 1 and true do not
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
                f"arg_spec nor env (nor compile), so every value would measure the same thing; "
                f"add it to arg_spec or env{did_you_mean(name, reached)}"
            )
    return out


_KIND_WORDS = {"bool": "true or false", "number": "a number", "string": "a string"}


def _kind(value: Value) -> str:
    return _KIND_WORDS[kind_of(value)]


def kind_rules(bench: Bench, at: Where) -> list[str]:
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
