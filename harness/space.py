"""Space files (format 1): the frozen model, the loader and the invocation count."""

from __future__ import annotations

import hashlib
import json
import math
import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import SpaceError, json_path
from harness.measurement import Value
from harness.space_schema import read_json, schema_problems

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


def render_value(value: Value) -> str:
    """One argv word or env value: booleans as 1/0 (what strtol-based overrides read)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


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
class Sample:
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
    flags: tuple[str, ...] = ()
    timeout_s: float | None = None
    repeats: int | None = None
    sample: Sample | None = None
    batch: BatchSpec | None = None
    consumers: tuple[Consumer, ...] = ()
    report_only: bool = False
    position: int = 0

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


def _kind(value: object) -> str:
    """The comparison kind of a value: booleans are not numbers here."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "null"


def _sort_key(value: Value) -> tuple[float, str]:
    return (0.0, value) if isinstance(value, str) else (float(value), "")


def union_values(grids: Iterable[Sequence[Value | None]]) -> tuple[Value | None, ...]:
    """Union of grids without duplicates (1 and 1.0 are one value, 1 and true are two).

    ``None`` comes first; the rest is sorted when all of one kind, else kept in first-seen order.
    """
    seen: dict[tuple[str, object], Value | None] = {}
    for grid in grids:
        for value in grid:
            seen.setdefault((_kind(value), value), value)
    values = [v for v in seen.values() if v is not None]
    if len({_kind(v) for v in values}) == 1:
        values.sort(key=_sort_key)
    head: list[Value | None] = [None] if any(v is None for v in seen.values()) else []
    return (*head, *values)


# ---------------------------------------------------------------- building the model


def _plain(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """The mapping without its comment keys."""
    return {k: v for k, v in mapping.items() if not k.startswith("_")}


def _grids(mapping: Mapping[str, Any]) -> dict[str, tuple[Value | None, ...]]:
    return {k: tuple(v) for k, v in _plain(mapping).items()}


def _build_bench(position: int, raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> Bench:
    def get(key: str, default: Any = None) -> Any:
        return raw[key] if key in raw else defaults.get(key, default)

    cases = tuple(
        Case(index=i, fixed=_plain(c.get("fixed", {})), tune=_grids(c.get("tune", {})))
        for i, c in enumerate(raw["cases"])
    )
    all_cases = tuple(range(len(cases)))
    phases = tuple(
        PreTunePhase(index=i, params=_grids(p["params"]), cases=tuple(p.get("cases", all_cases)))
        for i, p in enumerate(raw.get("pre_tune", []))
    )
    sample_raw = raw.get("sample")
    sample = None
    if sample_raw is not None:
        sample = Sample(
            param=sample_raw["param"],
            policy=sample_raw["policy"],
            budget=sample_raw["budget"],
            alpha=float(sample_raw.get("alpha", 0.75)),
            seed=sample_raw.get("seed", 0),
        )
    batch_raw = raw.get("batch")
    batch = None
    if batch_raw is not None:
        batch = BatchSpec(param=batch_raw["param"], size=batch_raw.get("size", 64))
    consumers = tuple(
        Consumer(
            bench=c.get("bench"),
            cases=tuple(c["cases"]) if "cases" in c else None,
            exe=c.get("exe"),
            args=tuple(c.get("args", ())),
            row=c.get("row"),
            metric=c.get("metric"),
            direction=c.get("direction"),
        )
        for c in raw.get("consumers", [])
    )
    timeout = get("timeout_s")
    return Bench(
        name=raw["bench"],
        exe=raw.get("exe", ""),
        metric=get("metric", ""),
        direction=get("direction", "min"),
        arg_spec=tuple(ArgItem.parse(a) for a in raw.get("arg_spec", [])),
        cases=cases,
        pre_tune=phases,
        env=_plain(raw.get("env", {})),
        row=get("row"),
        reader=get("reader", DEFAULT_READER),
        pattern=get("pattern"),
        flags=tuple(get("flags", ())),
        timeout_s=None if timeout is None else float(timeout),
        repeats=get("repeats"),
        sample=sample,
        batch=batch,
        consumers=consumers,
        report_only=bool(raw.get("report_only", False)),
        position=position,
    )


def _build_header(raw: Mapping[str, Any]) -> HeaderSpec:
    constants = []
    for c in raw["constants"]:
        fallback = c.get("fallback")
        constants.append(
            HeaderConstant(
                name=c["name"],
                type=c["type"],
                sources=tuple(
                    HeaderSource(bench=s["bench"], param=s["param"]) for s in c["sources"]
                ),
                fallback=tuple(fallback) if isinstance(fallback, list) else fallback,
                enum_values=tuple(c["values"]) if "values" in c else None,
                doc=c.get("doc"),
                min=c.get("min"),
                max=c.get("max"),
            )
        )
    buckets = raw.get("buckets")
    return HeaderSpec(
        path=raw["path"],
        namespace=raw["namespace"],
        env_prefix=raw["env_prefix"],
        bucket_key=raw.get("bucket_key", "n"),
        buckets=DEFAULT_BUCKETS if buckets is None else tuple((b[0], b[1]) for b in buckets),
        constants=tuple(constants),
        guard=raw.get("guard"),
    )


def _raise(source: str, problems: Sequence[str]) -> None:
    if problems:
        raise SpaceError("\n".join(f"{source}: {line}" for line in problems))


def parse_space(
    data: object, *, source: str, sha256: str = "", raw: Mapping[str, Any] | None = None
) -> Space:
    """Validate parsed JSON (schema, then cross-field rules) and build the model.

    Raises SpaceError whose message has one line per problem, each naming `source`. ``raw``
    is the document as written (grid files not expanded), kept for tools that rewrite it.
    """
    _raise(source, schema_problems(data))
    assert isinstance(data, dict)  # the schema guarantees an object
    defaults = _plain(data.get("defaults", {}))
    space = Space(
        path=Path(source),
        sha256=sha256,
        format=data.get("format", 1),
        version=data.get("version", 1),
        benches=tuple(_build_bench(i, b, defaults) for i, b in enumerate(data["spaces"])),
        defaults=defaults,
        header=_build_header(data["header"]) if "header" in data else None,
        raw=data if raw is None else raw,
    )
    from harness.space_rules import space_problems  # the rules import this module's classes

    _raise(source, space_problems(space))
    return space


def load_space(path: str | Path) -> Space:
    """Read and validate a space file (both passes); raises SpaceError."""
    source = str(path)
    data, digest = read_json(Path(path), source)
    expanded, files = expand_grid_files(data, Path(path).parent, source)
    if files:
        # The space's identity covers the grids it reads from other files.
        h = hashlib.sha256(digest.encode())
        for name, text in files:
            h.update(name.encode() + b"\0" + text.encode())
        digest = h.hexdigest()
    return parse_space(expanded, source=source, sha256=digest, raw=data)  # type: ignore[arg-type]


def read_grid_file(path: Path) -> list[str]:
    """One value per line; blank lines and lines starting with '#' are skipped."""
    lines = path.read_text("utf-8").splitlines()
    return [s for line in lines if (s := line.strip()) and not s.startswith("#")]


def expand_grid_files(
    data: object, base: Path, source: str
) -> tuple[object, list[tuple[str, str]]]:
    """Replace every grid written as ``{"file": PATH}`` (relative to the space file) by the
    file's values. Returns the expanded copy and (path, text) of every file read."""
    files: list[tuple[str, str]] = []
    if not isinstance(data, dict) or not isinstance(data.get("spaces"), list):
        return data, files

    def grids(mapping: object, where: str) -> object:
        if not isinstance(mapping, dict):
            return mapping
        out: dict[str, Any] = {}
        for key, grid in mapping.items():
            if isinstance(grid, dict) and set(grid) == {"file"} and isinstance(grid["file"], str):
                target = base / grid["file"]
                try:
                    values = read_grid_file(target)
                    files.append((grid["file"], target.read_text("utf-8")))
                except OSError as exc:
                    raise SpaceError(
                        f"{source}: {where}.{key}.file: cannot read {grid['file']!r} "
                        f"({exc.strerror}); the path is relative to the space file"
                    ) from None
                if not values:
                    raise SpaceError(
                        f"{source}: {where}.{key}.file: {grid['file']!r} lists no values; "
                        "write one value per line"
                    )
                out[key] = values
            else:
                out[key] = grid
        return out

    doc = json.loads(json.dumps(data))
    for i, bench in enumerate(doc["spaces"]):
        if not isinstance(bench, dict):
            continue
        for j, case in enumerate(bench.get("cases") or []):
            if isinstance(case, dict) and "tune" in case:
                case["tune"] = grids(case["tune"], json_path("spaces", i, "cases", j, "tune"))
        for j, phase in enumerate(bench.get("pre_tune") or []):
            if isinstance(phase, dict) and "params" in phase:
                where = json_path("spaces", i, "pre_tune", j, "params")
                phase["params"] = grids(phase["params"], where)
    return doc, files


# ---------------------------------------------------------------- what a sweep will run


def bench_invocations(bench: Bench) -> int:
    """Invocations one repeat of a sweep of `bench` runs: pre_tune phases, then each case.

    A phase runs every combo of its grids on each of its cases. The main sweep runs, for each
    case, the combos of the union grid legal for it, deduplicated per case: a case receives
    only the names it tunes (pre-tuned names are resolved before), so it runs the product of
    its own grid sizes; a sampled parameter contributes at most its budget per case.
    """
    total = sum(
        math.prod(len(grid) for grid in phase.params.values()) * len(phase.cases)
        for phase in bench.pre_tune
    )
    pre_tuned = set(bench.pre_tune_params())
    for case in bench.cases:
        combos = 1
        for name, grid in case.tune.items():
            size = 1 if name in pre_tuned else len(grid)
            if bench.sample is not None and name == bench.sample.param:
                size = min(size, bench.sample.budget)
            combos *= size
        total += combos
    return total


def count_invocations(space: Space) -> int:
    """Invocations one repeat of a sweep of the whole space runs (see `bench_invocations`)."""
    return sum(bench_invocations(b) for b in space.benches)


def count_with_repeats(space: Space, *, repeats: int = 1) -> int:
    """Invocations including each bench's ``repeats`` (`repeats` where a bench sets none)."""
    return sum(bench_invocations(b) * (b.repeats or repeats) for b in space.benches)


def case_count(space: Space) -> int:
    """Number of cases over all benches."""
    return sum(len(b.cases) for b in space.benches)
