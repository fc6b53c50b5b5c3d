"""Loading a space file: read the JSON and its grid files, check the shape, build, check the rules.

One way: `harness.spaces.schema` (JSON and schema) → `harness.spaces.model` (the records) →
`benchspace.harness.spaces.rules` (cross-field rules); nothing here is imported back by those.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchspace.harness.errors import PathError, SpaceError, json_path
from benchspace.harness.files import MAX_BYTES, decode, read_all
from benchspace.harness.project_paths import find_project_root, inside_project
from benchspace.harness.spaces.model import (
    DEFAULT_BUCKETS,
    DEFAULT_READER,
    ArgItem,
    BatchSpec,
    Bench,
    BuildSpec,
    Case,
    Consumer,
    HeaderConstant,
    HeaderSource,
    HeaderSpec,
    PreTunePhase,
    SampleSpec,
    Space,
)
from benchspace.harness.spaces.rules import space_problems
from benchspace.harness.spaces.schema import read_json, schema_problems
from benchspace.harness.spaces.text_rules import string_problems
from benchspace.harness.values import Value


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
        sample = SampleSpec(
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
    build_raw = raw.get("build")
    build = None
    if build_raw is not None:
        build_timeout = build_raw.get("timeout_s")
        build = BuildSpec(
            command=tuple(build_raw["command"]),
            timeout_s=None if build_timeout is None else float(build_timeout),
            inputs=tuple(build_raw.get("inputs", ())),
            deliver=build_raw.get("deliver", "define"),
            overlap=bool(build_raw.get("overlap", False)),
        )
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
        stream=get("stream", "stdout"),
        flags=tuple(get("flags", ())),
        timeout_s=None if timeout is None else float(timeout),
        repeats=get("repeats"),
        sample=sample,
        batch=batch,
        consumers=consumers,
        report_only=bool(raw.get("report_only", False)),
        position=position,
        compile=tuple(raw.get("compile", ())),
        build=build,
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
    _raise(source, string_problems(data) or schema_problems(data))
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
    _raise(source, space_problems(space))
    return space


def load_space(path: str | Path, *, allow_outside_root: bool = False) -> Space:
    """Read and validate a space file (both passes); raises SpaceError.

    Grid files must lie inside the space's project (`harness.project_paths`; the space's own
    directory when it is in no project) unless `allow_outside_root`.
    """
    source = str(path)
    data, digest = read_json(Path(path), source)
    expanded, files = expand_grid_files(
        data, Path(path).parent, source, allow_outside_root=allow_outside_root
    )
    if files:
        # The space's identity covers the grids it reads from other files.
        h = hashlib.sha256(digest.encode())
        for name, text in files:
            h.update(name.encode() + b"\0" + text.encode())
        digest = h.hexdigest()
    return parse_space(expanded, source=source, sha256=digest, raw=data)  # type: ignore[arg-type]


def read_grid_file(path: Path, *, source: str = "") -> list[str]:
    """One value per line; blank lines and lines starting with '#' are skipped."""
    return grid_values(grid_text(path, source=source or str(path)))


def grid_values(text: str) -> list[str]:
    """The values of a grid file's text."""
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


def grid_text(path: Path, *, source: str, named: str = "") -> str:
    """The UTF-8 text of a grid file; SpaceError (`source`: ... `named`) when it cannot be read
    (missing, a directory, no permission) or is not UTF-8."""
    shown = repr(named or str(path))
    try:
        with open(path, "rb") as fh:
            blob, limit = read_all(fh)
    except OSError as exc:
        raise SpaceError(
            f"{source}: cannot read {shown} ({exc.strerror or type(exc).__name__})"
            "; the path is relative to the space file"
        ) from None
    if len(blob) > limit:
        raise SpaceError(f"{source}: {shown}: larger than {MAX_BYTES >> 20} MiB; check the path")
    return decode(blob, f"{source}: {shown}", error=SpaceError)


def expand_grid_files(
    data: object, base: Path, source: str, *, allow_outside_root: bool = False
) -> tuple[object, list[tuple[str, str]]]:
    """Replace every grid written as ``{"file": PATH}`` (relative to the space file) by the
    file's values. Returns the expanded copy and (path, text) of every file read."""
    files: list[tuple[str, str]] = []
    root = find_project_root(base) or base
    if not isinstance(data, dict) or not isinstance(data.get("spaces"), list):
        return data, files

    def grids(mapping: object, where: str) -> object:
        if not isinstance(mapping, dict):
            return mapping
        out: dict[str, Any] = {}
        for key, grid in mapping.items():
            if isinstance(grid, dict) and set(grid) == {"file"} and isinstance(grid["file"], str):
                try:
                    target = inside_project(
                        Path(os.path.abspath(base / grid["file"])),
                        root,
                        where=f"{source}: {where}.{key}.file",
                        allow_outside=allow_outside_root,
                        shown=grid["file"],
                    )
                except PathError as exc:
                    raise SpaceError(str(exc)) from None
                text = grid_text(target, source=f"{source}: {where}.{key}.file", named=grid["file"])
                values = grid_values(text)
                files.append((grid["file"], text))
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
        cases, phases = bench.get("cases"), bench.get("pre_tune")
        for j, case in enumerate(cases if isinstance(cases, list) else []):
            if isinstance(case, dict) and "tune" in case:
                case["tune"] = grids(case["tune"], json_path("spaces", i, "cases", j, "tune"))
        for j, phase in enumerate(phases if isinstance(phases, list) else []):
            if isinstance(phase, dict) and "params" in phase:
                where = json_path("spaces", i, "pre_tune", j, "params")
                phase["params"] = grids(phase["params"], where)
    return doc, files
