"""Invocation: turn a planned task into an argv + environment (pure).

An Invocation is everything needed to run one attempt and to recognise it in the store (its
cache key); ``benchspace.harness.execute.process`` runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.execute.exe_identity import current_sha256
from benchspace.harness.execute.readers import REGISTRY, Stream
from benchspace.harness.plan import ParamValue, Task
from benchspace.harness.spaces.model import Bench, Case

OUT_PLACEHOLDER = "{out}"
BUILD_PLACEHOLDER = "{build_dir}"
"""Filled at run time with the absolute build directory; kept as-is in the cache key, so a
store stays valid when the build tree moves (another checkout, another machine)."""
TAIL_CHARS = 2000

#: Output file name per reader (from the reader table); readers without one read a stream.
OUTPUT_FILES = {name: r.output_file for name, r in REGISTRY.items() if r.output_file is not None}


DEFAULT_BACKEND = "NETLIB"
"""minibench's ``--backend`` when neither the command line nor the space's ``defaults`` sets
one: BatchLAS's CPU backend, the one every BatchLAS benchmark registers without a GPU."""
DEFAULT_DTYPE = "float"


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Sweep-wide settings that shape every argv (BatchLAS's timing flags among them)."""

    build_dir: Path = Path("build")
    backend: str = DEFAULT_BACKEND
    dtype: str = DEFAULT_DTYPE
    timeout_s: float = 600.0
    warmup: int = 2
    min_time_ms: float = 25.0
    min_iters: int = 1
    max_iters: int = 20
    host: str = ""
    device: str = ""


@dataclass(frozen=True, kw_only=True)
class Invocation:
    """Everything needed to run one attempt and to recognise it in the store."""

    bench: str
    case_index: int
    phase: str
    params: Mapping[str, ParamValue]
    exe: str
    exe_path: Path | None
    exe_sha256: str
    argv: tuple[str, ...]
    """With ``{out}`` standing for the output file in the invocation's temporary directory."""
    env: Mapping[str, str | None]
    reader: str
    pattern: str | None
    row: str | None
    metric: str
    timeout_s: float
    repeat: int
    host: str = ""
    device: str = ""
    extra_env: Mapping[str, str] = field(default_factory=dict)
    """Environment that is not part of the configuration (e.g. device pinning)."""
    build_dir: str = ""
    """Absolute build directory, for ``{build_dir}`` in flags."""
    direction: str = "min"
    """The bench's direction."""
    stream: Stream = "stdout"
    """Which stream a reader without an output file reads (the space's ``stream``)."""
    """The bench's direction (a time under ``min`` must be positive and finite)."""
    fixed: Mapping[str, ParamValue] = field(default_factory=dict)
    """The case's fixed values: part of what identifies a measurement even where no argument
    carries them (two cases with one argv are two measurements)."""
    cpus: tuple[int, ...] = ()
    """Cores the process is pinned to (a parallel sweep's worker); empty: not pinned. Like
    ``extra_env``, not part of the configuration (nor of the cache key)."""

    def __post_init__(self) -> None:
        if not self.build_dir and any(BUILD_PLACEHOLDER in a for a in self.argv):
            flag = next(a for a in self.argv if BUILD_PLACEHOLDER in a)
            raise BenchspaceError(
                f"bench {self.bench}: flag {flag!r} uses {BUILD_PLACEHOLDER}, but no build "
                "directory is known, so it would expand to an empty string; pass --build-dir"
            )

    @cached_property
    def cache_key(self) -> str:
        """sha256 of what decides the measured value: executable hash, argv, env overrides,
        the case's fixed values (typed), the reader and its settings (metric, row, pattern,
        the stream read where not stdout: stores made before it was keyed stay valid), and
        the repeat index. The host is checked apart (``Sweep``), the timeout too (a cached
        timeout is run again under a longer one)."""
        fixed = sorted((k, type(v).__name__, v) for k, v in self.fixed.items())
        reading: list[str | None] = [self.reader, self.metric, self.row, self.pattern]
        if self.stream != "stdout":
            reading.append(self.stream)
        payload = json.dumps(
            [self.exe_sha256, list(self.argv), sorted(self.env.items()), self.repeat, fixed,
             reading],
            sort_keys=True,
        )  # fmt: skip
        return hashlib.sha256(payload.encode()).hexdigest()


def resolve_executable(exe: str, build_dir: Path) -> Path | None:
    """Absolute path as given; else ``<build>/benchmarks/<exe>``, then ``<build>/<exe>``."""
    path = Path(exe)
    candidates = [path] if path.is_absolute() else [build_dir / "benchmarks" / exe, build_dir / exe]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.resolve()  # runs from a temporary working directory
    return None


def sha256_file(path: Path) -> str:
    """sha256 of a file; a stat that matches the last one seen answers without re-reading
    (see ``benchspace.harness.execute.exe_identity``), so a rebuilt file is re-hashed."""
    return current_sha256(path)


def reader_flags(bench: Bench, options: RunOptions) -> list[str]:
    """The argv a reader needs before the space's own flags."""
    reader = REGISTRY.get(bench.reader)
    return [] if reader is None else list(reader.flags(options, OUT_PLACEHOLDER))


def resolve_values(case: Case, params: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
    """Every value a case invocation sees: tuned/pre-tuned values first, then fixed."""
    values: dict[str, ParamValue] = dict(case.fixed)
    values.update(params)
    return values


def build_argv_env(
    bench: Bench, case: Case, params: Mapping[str, ParamValue], options: RunOptions
) -> tuple[tuple[str, ...], dict[str, str | None]]:
    """Reader flags, then the space's flags, then ``arg_spec``; env parameters apart."""
    values = resolve_values(case, params)
    argv = reader_flags(bench, options)
    for flag in bench.flags:
        argv.append(flag.replace("{backend}", options.backend).replace("{type}", options.dtype))
    present = {name: value for name, value in values.items() if value is not None}
    argv.extend(bench.render_args(present))
    return tuple(argv), bench.render_env(values)


@lru_cache(maxsize=16)
def _absolute(path: Path, cwd: str) -> str:
    """``path`` made absolute from ``cwd`` (asked once per invocation of a sweep)."""
    return str(path if path.is_absolute() else Path(cwd) / path)


def build_invocation(
    bench: Bench,
    task: Task,
    *,
    exe_path: Path | None,
    exe_sha256: str,
    options: RunOptions,
    repeat: int = 0,
    timeout_s: float | None = None,
) -> Invocation:
    """The invocation for one repeat of a planned task (pure). The timeout: ``timeout_s``
    (a command-line override) if given, else the bench's, else the sweep's default."""
    case = bench.cases[task.case_index]
    params = task.params()
    args, env = build_argv_env(bench, case, params, options)
    timeout = timeout_s if timeout_s is not None else bench.timeout_s
    if timeout is None:
        timeout = options.timeout_s
    return Invocation(
        bench=bench.name,
        case_index=task.case_index,
        phase=task.phase,
        params=params,
        exe=bench.exe,
        exe_path=exe_path,
        exe_sha256=exe_sha256,
        argv=(bench.exe, *args),
        env=env,
        reader=bench.reader,
        pattern=bench.pattern,
        row=bench.row,
        metric=bench.metric,
        stream=bench.stream,
        timeout_s=float(timeout),
        repeat=repeat,
        host=options.host,
        device=options.device,
        direction=bench.direction,
        build_dir=_absolute(options.build_dir, os.getcwd()) if str(options.build_dir) else "",
        fixed=dict(case.fixed),
    )
