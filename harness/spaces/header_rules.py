"""Second-pass rules of a space's ``header`` section: buckets, constants and their sources."""

from __future__ import annotations

from benchspace.harness.cxx_types import INT_RANGES, value_fits
from benchspace.harness.errors import json_path
from benchspace.harness.spaces.header_names import name_problems
from benchspace.harness.spaces.model import Bench, HeaderSpec, Space
from benchspace.harness.spaces.schema import did_you_mean, show


def header_problems(header: HeaderSpec, space: Space) -> list[str]:
    """The rules about the header section and how the benches feed it."""
    out = _bucket_rules(header) + name_problems(header)
    names = [b.name for b in space.benches]
    first: dict[str, int] = {}
    fed: set[str] = set()
    for i, const in enumerate(header.constants):
        here = json_path("header", "constants", i)
        if const.name in first:
            out.append(
                f"{here}.name: constant {const.name} is already defined by "
                f"$.header.constants[{first[const.name]}]; give each constant its own name"
            )
        first.setdefault(const.name, i)
        if const.type == "enum" and const.enum_values is None:
            out.append(f'{here}: an enum constant needs "values", its enumerators; add them')
        if const.type != "enum" and const.enum_values is not None:
            out.append(
                f'{here}.values: values only applies to enum constants; remove it or set "type": '
                '"enum"'
            )
        if const.enum_values is not None and len(set(const.enum_values)) < len(const.enum_values):
            out.append(f"{here}.values: an enumerator is listed twice; list each once")
        out += _fallback_rules(header, i)
        for k, source in enumerate(const.sources):
            fed.add(source.bench)
            out += _source_rules(header, i, k, space, names)
    for bench in space.benches:
        if bench.name in fed:
            out += _bucket_key_rules(header, bench)
        elif not bench.report_only:
            out.append(
                f"{json_path('spaces', bench.position)}: bench {show(bench.name)} feeds no header "
                'constant; name it in a constant\'s sources or mark it "report_only": true'
            )
    return out


def _bucket_rules(header: HeaderSpec) -> list[str]:
    out = []
    seen: set[str] = set()
    previous: int | None = None
    last = len(header.buckets) - 1
    for i, (name, edge) in enumerate(header.buckets):
        here = json_path("header", "buckets", i)
        if name in seen:
            out.append(f"{here}: bucket name {show(name)} is used twice; name each bucket once")
        seen.add(name)
        if i == last and edge is not None:
            out.append(
                f"{here}: the last bucket's edge must be null (it takes every larger size); "
                f'write ["{name}", null]'
            )
        elif i < last and edge is None:
            out.append(f"{here}: only the last bucket has no upper edge; give {show(name)} an edge")
        elif edge is not None and previous is not None and edge <= previous:
            out.append(
                f"{here}: edge {edge} is not above the previous edge {previous}; edges must "
                "increase"
            )
        if edge is not None:
            previous = edge
    return out


def _fallback_rules(header: HeaderSpec, i: int) -> list[str]:
    const = header.constants[i]
    here = json_path("header", "constants", i, "fallback")
    if const.fallback is None or (const.type == "enum" and const.enum_values is None):
        return []
    values = const.fallback if isinstance(const.fallback, tuple) else (const.fallback,)
    out = []
    if isinstance(const.fallback, tuple) and len(values) != len(header.buckets):
        names = ", ".join(b[0] for b in header.buckets)
        out.append(
            f"{here}: has {len(values)} values but there are {len(header.buckets)} buckets "
            f"({names}); give one value per bucket, or a single value for all"
        )
    for k, value in enumerate(values):
        if not value_fits(const.type, value, const.enum_values):
            spot = f"{here}[{k}]" if isinstance(const.fallback, tuple) else here
            out.append(
                f"{spot}: value {show(value)} does not fit {const.type}; "
                f"{_fit_hint(const.type, const.enum_values)}"
            )
    return out


def _fit_hint(ctype: str, enum_values: tuple[str, ...] | None) -> str:
    if ctype == "enum":
        return "use one of " + ", ".join(show(v) for v in enum_values or ())
    if ctype == "bool":
        return "use true, false, 0 or 1"
    if ctype in ("float", "double"):
        return "use a number"
    low, high = INT_RANGES[ctype]
    return f"use an integer from {low} to {high}"


def _bucket_key_rules(header: HeaderSpec, bench: Bench) -> list[str]:
    """A bench feeding the header needs the bucket key, a number, in every case's fixed."""
    key = header.bucket_key
    for case in bench.cases:
        value = case.fixed.get(key)
        if value is None or isinstance(value, bool | str):
            got = "no" if value is None else f"a non-numeric ({show(value)})"
            return [
                f"{json_path('spaces', bench.position, 'cases', case.index, 'fixed')}: {got} "
                f"fixed {show(key)} (the header's bucket_key), so this case cannot be placed in a "
                f"bucket; give every case of a bench that feeds the header a numeric {show(key)}"
            ]
    return []


def _source_rules(header: HeaderSpec, i: int, k: int, space: Space, names: list[str]) -> list[str]:
    const = header.constants[i]
    source = const.sources[k]
    here = json_path("header", "constants", i, "sources", k)
    bench = next((b for b in space.benches if b.name == source.bench), None)
    if bench is None:
        return [
            f"{here}.bench: no bench {show(source.bench)} in this space"
            f"{did_you_mean(source.bench, names)}; name one of its benches"
        ]
    out = []
    if bench.report_only:
        out.append(
            f"{here}.bench: bench {show(bench.name)} is report_only, so it cannot feed a "
            "constant; remove report_only from it or remove this source"
        )
    params = bench.parameter_names()
    if source.param not in params:
        out.append(
            f"{here}.param: bench {show(bench.name)} has no parameter {show(source.param)}"
            f"{did_you_mean(source.param, params)}; name one of "
            + ", ".join(show(p) for p in sorted(params))
        )
        return out
    checkable = const.type != "enum" or const.enum_values is not None
    for path, name, value in bench.located_values() if checkable else ():
        if name == source.param and not value_fits(const.type, value, const.enum_values):
            out.append(
                f"{json_path('spaces', bench.position, *path)}: value {show(value)} of "
                f"{show(name)} does not fit {const.type} (constant {const.name}); "
                f"{_fit_hint(const.type, const.enum_values)}"
            )
            break
    return out
