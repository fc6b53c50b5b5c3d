"""Space files (format 1): the frozen model, header buckets and invocation counts.

Records only: `benchspace.harness.spaces.load` reads a file, checks it and builds these.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchspace.harness.errors import SpaceError
from benchspace.harness.execute.readers.base import Stream
from benchspace.harness.values import Value, kind_of, order_key, render_value, same_key

DEFAULT_READER = "minibench-csv"
DEFAULT_BUCKETS: tuple[tuple[str, int | None], ...] = (
    ("TINY", 64),
    ("SMALL", 128),
    ("MEDIUM", 256),
    ("LARGE", 512),
    ("XLARGE", None),
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOOSE_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)")


def template_fields(text: str) -> list[tuple[str, str | None]]:
    """Split a template into (literal, placeholder-or-None) parts; raise ValueError if malformed."""
    parts: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None and (not _IDENTIFIER.fullmatch(name) or spec or conversion is not None):
            raise ValueError(f"placeholder {{{name}}} is not a plain {{name}}")
        parts.append((literal, name))
    return parts


@dataclass(frozen=True, kw_only=True)
class ArgItem:
    """One ``arg_spec`` entry: a bare parameter name, or a template with ``{name}`` fields."""

    text: str
    names: tuple[str, ...]
    is_param: bool

    @classmethod
    def parse(cls, text: str) -> ArgItem:
        """Classify an entry; a malformed template keeps no names (the rules report it)."""
        if _IDENTIFIER.fullmatch(text):
            return cls(text=text, names=(text,), is_param=True)
        try:
            fields = [f for _, f in template_fields(text) if f is not None]
        except ValueError:
            fields = _LOOSE_FIELD.findall(text)  # what the author meant, for the other rules
        return cls(text=text, names=tuple(dict.fromkeys(fields)), is_param=False)

    def render(self, values: Mapping[str, Value]) -> str:
        """The argv word for these parameter values (see `render_value` for the spelling)."""
        if self.is_param:
            return render_value(values[self.text])
        out = []
        for literal, name in template_fields(self.text):
            out.append(literal)
            if name is not None:
                out.append(render_value(values[name]))
        return "".join(out)


@dataclass(frozen=True, kw_only=True)
class Case:
    """One problem size: the values it pins and its own grid (``None`` = leave an env var unset)."""

    index: int
    fixed: Mapping[str, Value]
    tune: Mapping[str, tuple[Value | None, ...]]


@dataclass(frozen=True, kw_only=True)
class PreTunePhase:
    """Grids tuned before the main sweep; the winners become fixed for every case."""

    index: int
    params: Mapping[str, tuple[Value | None, ...]]
    cases: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class SampleSpec:
    """Budgeted sampling of one large categorical grid, per case."""

    param: str
    policy: str
    budget: int
    alpha: float = 0.75
    seed: int = 0


@dataclass(frozen=True, kw_only=True)
class BatchSpec:
    """Configurations differing only in ``param`` share a process, ``size`` at a time."""

    param: str
    size: int = 64


@dataclass(frozen=True, kw_only=True)
class Consumer:
    """Where a bench's constants must be confirmed: a bench of the space, or an executable."""

    bench: str | None = None
    cases: tuple[int, ...] | None = None
    exe: str | None = None
    args: tuple[str, ...] = ()
    row: str | None = None
    metric: str | None = None
    direction: str | None = None


BUILD_PLACEHOLDERS = ("defines", "exe", "variant_dir", "source_dir", "build_dir")
"""What a ``build.command`` word may name (see ``benchspace.harness.variants.spec``)."""


@dataclass(frozen=True, kw_only=True)
class BuildSpec:
    """How a bench's executable is built, once per compile-time value set (``build``)."""

    command: tuple[str, ...]
    timeout_s: float | None = None
    """None: ten times the bench's first build (see ``benchspace.harness.variants``)."""
    inputs: tuple[str, ...] = ()
    """Globs relative to ``{source_dir}``; their contents are part of a variant's key."""
    deliver: str = "define"
    """``define``: ``{defines}`` is one ``-DNAME=value`` per compile parameter; ``header``:
    ``{variant_dir}/benchspace_variant.hh`` holds them and ``{defines}`` is ``-I{variant_dir}``."""
    overlap: bool = False
    """True (GPU benches): builds may run while a timed run is in flight."""


@dataclass(frozen=True, kw_only=True)
class Bench:
    """One bench entry, with ``defaults`` already applied."""

    name: str
    exe: str = ""
    """The executable; empty means ``<name>_benchmark``."""
    metric: str
    direction: str = "min"
    arg_spec: tuple[ArgItem, ...] = ()
    cases: tuple[Case, ...] = ()
    pre_tune: tuple[PreTunePhase, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    row: str | None = None
    reader: str = DEFAULT_READER
    pattern: str | None = None
    stream: Stream = "stdout"
    """Which stream a reader without an output file reads: stdout, stderr or both."""
    flags: tuple[str, ...] = ()
    timeout_s: float | None = None
    repeats: int | None = None
    sample: SampleSpec | None = None
    batch: BatchSpec | None = None
    consumers: tuple[Consumer, ...] = ()
    report_only: bool = False
    position: int = 0
    compile: tuple[str, ...] = ()
    """Parameters delivered at build time (never in argv or env), in declared order."""
    build: BuildSpec | None = None

    def __post_init__(self) -> None:
        if not self.exe:
            object.__setattr__(self, "exe", f"{self.name}_benchmark")

    def tune_params(self) -> tuple[str, ...]:
        """Names tuned by the cases' grids, in first-seen order (pre-tuned ones excluded)."""
        return tuple(dict.fromkeys(k for case in self.cases for k in case.tune))

    def pre_tune_params(self) -> tuple[str, ...]:
        """Names tuned by the pre_tune phases, in order."""
        return tuple(dict.fromkeys(k for phase in self.pre_tune for k in phase.params))

    def arg_names(self) -> tuple[str, ...]:
        """Parameter names the arguments use, in argument order."""
        return tuple(dict.fromkeys(n for item in self.arg_spec for n in item.names))

    def grid_union(self) -> dict[str, tuple[Value | None, ...]]:
        """Per tuned name, the union of the cases' values: ``None`` first, then sorted."""
        return {
            name: union_values(c.tune.get(name, ()) for c in self.cases)
            for name in self.tune_params()
        }

    def parameter_names(self) -> set[str]:
        """Every name the bench gives a value to or passes: fixed, tuned, pre-tuned and env."""
        names = set(self.env) | set(self.pre_tune_params())
        for case in self.cases:
            names |= set(case.fixed) | set(case.tune)
        return names

    def located_values(self) -> Iterator[tuple[tuple[str | int, ...], str, Value]]:
        """Every non-null parameter value with its path inside the bench entry, in file order."""
        for case in self.cases:
            for name, value in case.fixed.items():
                yield ("cases", case.index, "fixed", name), name, value
            for name, grid in case.tune.items():
                for i, v in enumerate(grid):
                    if v is not None:
                        yield ("cases", case.index, "tune", name, i), name, v
        for phase in self.pre_tune:
            for name, grid in phase.params.items():
                for i, v in enumerate(grid):
                    if v is not None:
                        yield ("pre_tune", phase.index, "params", name, i), name, v

    def render_args(self, values: Mapping[str, Value]) -> tuple[str, ...]:
        """The positional argv words (after the flags) for fully resolved parameter values."""
        return tuple(item.render(values) for item in self.arg_spec)

    def render_env(self, values: Mapping[str, Value | None]) -> dict[str, str | None]:
        """Env overrides for resolved values: ``None`` (or no value) means unset."""
        out: dict[str, str | None] = {}
        for param, variable in self.env.items():
            value = values.get(param)
            out[variable] = None if value is None else render_value(value)
        return out


@dataclass(frozen=True, kw_only=True)
class HeaderSource:
    """One bench parameter feeding a header constant."""

    bench: str
    param: str


@dataclass(frozen=True, kw_only=True)
class HeaderConstant:
    """One constant family of the generated header (one value per bucket)."""

    name: str
    type: str
    sources: tuple[HeaderSource, ...]
    fallback: Value | tuple[Value, ...] | None = None
    enum_values: tuple[str, ...] | None = None
    doc: str | None = None
    min: int | float | None = None
    """Smallest value an environment override may set (None: the type's range)."""
    max: int | float | None = None
    """Largest value an environment override may set (None: the type's range)."""


@dataclass(frozen=True, kw_only=True)
class HeaderSpec:
    """The ``header`` section: how profile results become a bucketed constexpr header."""

    path: str
    namespace: str
    env_prefix: str
    bucket_key: str = "n"
    buckets: tuple[tuple[str, int | None], ...] = DEFAULT_BUCKETS
    constants: tuple[HeaderConstant, ...] = ()
    guard: str | None = None


@dataclass(frozen=True, kw_only=True)
class Space:
    """A loaded, validated space file."""

    path: Path
    sha256: str
    format: int
    version: int
    benches: tuple[Bench, ...]
    defaults: Mapping[str, object]
    header: HeaderSpec | None
    raw: Mapping[str, Any]

    def bench(self, name: str) -> Bench:
        """The bench called `name`; a SpaceError names the known benches otherwise."""
        for bench in self.benches:
            if bench.name == name:
                return bench
        known = ", ".join(repr(b.name) for b in self.benches)
        raise SpaceError(f"{self.path}: no bench {name!r}; known benches: {known}")


def union_values(grids: Iterable[Sequence[Value | None]]) -> tuple[Value | None, ...]:
    """Union of grids without duplicates (1 and 1.0 are one value, 1 and true are two).

    ``None`` comes first; the rest is sorted when all of one kind, else kept in first-seen order.
    """
    seen: dict[tuple[str, object], Value | None] = {}
    for grid in grids:
        for value in grid:
            seen.setdefault(same_key(value), value)
    values = [v for v in seen.values() if v is not None]
    if len({kind_of(v) for v in values}) == 1:
        values.sort(key=order_key)
    head: list[Value | None] = [None] if any(v is None for v in seen.values()) else []
    return (*head, *values)


# ---------------------------------------------------------------- header buckets


def bucket_of(header: HeaderSpec, key: Value) -> str:
    """The bucket a bucket-key value falls in (edges are inclusive upper bounds)."""
    for name, edge in header.buckets:
        if edge is None or float(key) <= edge:
            return name
    return header.buckets[-1][0]


def bucket_cases(space: Space, source: HeaderSource, bucket: str) -> tuple[Case, ...]:
    """The cases of `source`'s bench whose fixed bucket key falls in `bucket`."""
    assert space.header is not None
    key = space.header.bucket_key
    bench = space.bench(source.bench)
    return tuple(
        c
        for c in bench.cases
        if isinstance(c.fixed.get(key), int | float)
        and bucket_of(space.header, c.fixed[key]) == bucket
    )


def deciding_source(
    space: Space, constant: HeaderConstant, bucket: str
) -> tuple[HeaderSource, tuple[Case, ...]] | None:
    """The first source whose bench has cases in `bucket`, with those cases; None if none."""
    for source in constant.sources:
        cases = bucket_cases(space, source, bucket)
        if cases:
            return source, cases
    return None


# ---------------------------------------------------------------- what a sweep will run


def bench_invocations(bench: Bench) -> int:
    """Invocations one repeat of a sweep of `bench` runs: pre_tune phases, then each case.

    A phase runs every combo of its grids on each of its cases. The main sweep runs, for each
    case, the combos of the union grid legal for it, deduplicated per case: a case receives
    only the names it tunes (pre-tuned names are resolved before), so it runs the product of
    its own grid sizes; a sampled parameter contributes at most its budget per case.
    """
    total = sum(phase_combos(phase) * len(phase.cases) for phase in bench.pre_tune)
    return total + sum(case_combos(bench, case) for case in bench.cases)


def phase_combos(phase: PreTunePhase) -> int:
    """Combinations a pre_tune phase runs on each of its cases."""
    return math.prod(len(grid) for grid in phase.params.values())


def case_combos(bench: Bench, case: Case) -> int:
    """Configurations the main sweep runs on `case` (pre-tuned names resolved before; a
    sampled parameter at most its budget)."""
    pre_tuned = set(bench.pre_tune_params())
    combos = 1
    for name, grid in case.tune.items():
        size = 1 if name in pre_tuned else len(grid)
        if bench.sample is not None and name == bench.sample.param:
            size = min(size, bench.sample.budget)
        combos *= size
    return combos


def count_invocations(space: Space) -> int:
    """Invocations one repeat of a sweep of the whole space runs (see `bench_invocations`)."""
    return sum(bench_invocations(b) for b in space.benches)


def count_with_repeats(space: Space, *, repeats: int = 1) -> int:
    """Invocations including each bench's ``repeats`` (`repeats` where a bench sets none)."""
    return sum(bench_invocations(b) * (b.repeats or repeats) for b in space.benches)


def case_count(space: Space) -> int:
    """Number of cases over all benches."""
    return sum(len(b.cases) for b in space.benches)
