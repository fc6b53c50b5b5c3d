"""Second validation pass of space files: the cross-field rules a JSON Schema cannot state.

Each rule returns ``"$.path: what is wrong; what to do"`` lines; `space_problems` runs them all
so that one run of ``benchspace validate`` reports every mistake of a file.
"""

from __future__ import annotations

import re

from benchspace.harness.errors import json_path
from benchspace.harness.execute.readers import REGISTRY
from benchspace.harness.spaces.header_rules import header_problems
from benchspace.harness.spaces.model import Bench, Space, template_fields
from benchspace.harness.spaces.param_rules import (
    Where,
    arg_spec_rules,
    case_rules,
    env_rules,
    grid_rules,
    kind_rules,
    pre_tune_rules,
)
from benchspace.harness.spaces.schema import did_you_mean, show
from benchspace.harness.spaces.variant_rules import variant_rules

FLAG_FIELDS = ("backend", "type", "out", "build_dir")
MULTI_ROW_READERS = tuple(name for name, r in REGISTRY.items() if r.multi_row)


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


def bench_problems(bench: Bench, space: Space) -> list[str]:
    """The rules about one bench entry."""
    at = Where(bench, space)
    out: list[str] = []
    if not bench.metric:
        out.append(
            f'{at()}: no metric; set "metric" (the column, field or group to read) here or '
            'in "defaults"'
        )
    out += arg_spec_rules(bench, at)
    out += env_rules(bench, at)
    out += case_rules(bench, at)
    out += pre_tune_rules(bench, at)
    out += grid_rules(bench, at)
    out += kind_rules(bench, at)
    out += _reader_rules(bench, at)
    out += _flag_rules(bench, at)
    out += _sample_rules(bench, at)
    out += _batch_rules(bench, at)
    out += _consumer_rules(bench, at, space)
    out += variant_rules(bench, at)
    return out


def _reader_rules(bench: Bench, at: Where) -> list[str]:
    """What the reader table says a bench of that reader needs (or must not set)."""
    out = []
    reader = REGISTRY.get(bench.reader)
    if reader is None:  # the schema admits only registered readers
        return [f"{at('reader')}: unknown reader {show(bench.reader)}"]
    if not reader.multi_row and "row" in at.raw:
        out.append(
            f"{at('row')}: the {bench.reader} reader returns one row, so row selects nothing; "
            "remove it"
        )
    if reader.needs_pattern:
        if bench.pattern is None:
            out.append(
                f'{at()}: reader {bench.reader} needs "pattern", a regular expression whose '
                "named groups are the fields; add it"
            )
        else:
            out += _pattern_rules(bench, at)
    elif "pattern" in at.raw:
        readers = " or ".join(n for n, r in REGISTRY.items() if r.needs_pattern)
        out.append(
            f"{at('pattern')}: pattern is only read by the {readers} reader, and this bench "
            f'uses {bench.reader}; remove it or set "reader": "{readers}"'
        )
    if reader.output_file is not None and at.raw.get("stream", "stdout") != "stdout":
        streamed = ", ".join(n for n, r in REGISTRY.items() if r.output_file is None)
        out.append(
            f"{at('stream')}: the {bench.reader} reader reads the file the benchmark writes, "
            f'not a stream; remove "stream" (only {streamed} read one)'
        )
    if reader.needs_row and bench.row is None:
        out.append(
            f'{at()}: reader {bench.reader} needs "row": a Google Benchmark executable reports '
            "one row per registered benchmark and argument set; set row to the benchmark's "
            'name, e.g. "BM_Name/"'
        )
    return out


def _pattern_rules(bench: Bench, at: Where) -> list[str]:
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


def _flag_rules(bench: Bench, at: Where) -> list[str]:
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


def _sample_rules(bench: Bench, at: Where) -> list[str]:
    if bench.sample is None or bench.sample.param in bench.tune_params():
        return []
    tuned = bench.tune_params()
    listed = ", ".join(show(t) for t in tuned) or "none"
    return [
        f"{at('sample', 'param')}: {show(bench.sample.param)} is not tuned by this bench's cases"
        f"{did_you_mean(bench.sample.param, tuned)}; name a tuned parameter ({listed})"
    ]


def _batch_rules(bench: Bench, at: Where) -> list[str]:
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


def _consumer_rules(bench: Bench, at: Where, space: Space) -> list[str]:
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
