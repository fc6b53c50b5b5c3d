"""Invocation: turn a planned task into an argv + environment, run it, and read one Measurement.

Building an invocation is pure; running one is the only place that starts a process. A run is
an argv list (never a shell), with the environment merged onto the parent's (``None`` unsets),
in a fresh temporary directory, under a timeout that kills the whole process group. Every way
it can end is a Measurement with a status; nothing escapes as an exception.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from harness.errors import BenchspaceError, ReaderError
from harness.measurement import Measurement
from harness.plan import ParamValue, Task
from harness.readers import Row, metric_of, read_output, select_row
from harness.space import Bench, Case

OUT_PLACEHOLDER = "{out}"
BUILD_PLACEHOLDER = "{build_dir}"
"""Filled at run time with the absolute build directory; kept as-is in the cache key, so a
store stays valid when the build tree moves (another checkout, another machine)."""
TAIL_CHARS = 2000

#: Output file name per reader; readers without one read stdout (csv) or stdout+stderr (regex).
OUTPUT_FILES = {"minibench-csv": "out.csv", "gbench-json": "out.json"}


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Sweep-wide settings that shape every argv (BatchLAS's timing flags among them)."""

    build_dir: Path = Path("build")
    backend: str = "CPU"
    dtype: str = "float"
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

    @cached_property
    def cache_key(self) -> str:
        """sha256 of executable hash + argv + env overrides + repeat index."""
        payload = json.dumps(
            [self.exe_sha256, list(self.argv), sorted(self.env.items()), self.repeat],
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


def resolve_executable(exe: str, build_dir: Path) -> Path | None:
    """Absolute path as given; else ``<build>/benchmarks/<exe>``, then ``<build>/<exe>``."""
    path = Path(exe)
    candidates = [path] if path.is_absolute() else [build_dir / "benchmarks" / exe, build_dir / exe]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.resolve()  # runs from a temporary working directory
    return None


_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def sha256_file(path: Path) -> str:
    """sha256 of a file, cached on (path, mtime, size) so a rebuilt file is re-hashed."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _HASH_CACHE:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        _HASH_CACHE[key] = digest.hexdigest()
    return _HASH_CACHE[key]


def reader_flags(bench: Bench, options: RunOptions) -> list[str]:
    """The argv a reader needs before the space's own flags."""
    if bench.reader == "minibench-csv":
        return [
            f"--backend={options.backend}",
            f"--type={options.dtype}",
            f"--csv={OUT_PLACEHOLDER}",
            f"--warmup={options.warmup}",
            f"--min_time={options.min_time_ms:g}",
            f"--min_iters={options.min_iters}",
            f"--max_iters={options.max_iters}",
        ]
    if bench.reader == "gbench-json":
        return [f"--benchmark_out={OUT_PLACEHOLDER}", "--benchmark_out_format=json"]
    return []


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


def build_invocation(
    bench: Bench,
    task: Task,
    *,
    exe_path: Path | None,
    exe_sha256: str,
    options: RunOptions,
    repeat: int = 0,
) -> Invocation:
    """The invocation for one repeat of a planned task (pure)."""
    case = bench.cases[task.case_index]
    params = task.params()
    args, env = build_argv_env(bench, case, params, options)
    timeout = bench.timeout_s if bench.timeout_s is not None else options.timeout_s
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
        timeout_s=float(timeout),
        repeat=repeat,
        host=options.host,
        device=options.device,
    )


def scratch_root() -> str | None:
    """Where per-invocation temporary directories go: $BENCHSPACE_TMPDIR, else a RAM-backed
    /dev/shm where there is one (directory creation and removal cost milliseconds on some
    disks, as much as a small benchmark), else the system default."""
    chosen = os.environ.get("BENCHSPACE_TMPDIR")
    if chosen:
        return chosen
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return None


_SCRATCH_IDS = itertools.count()


@contextlib.contextmanager
def _scratch_dir() -> Iterator[str]:
    """A fresh, empty working directory for one invocation, removed afterwards (cheaper than
    tempfile's: one mkdir with a name unique to this process, no random retries)."""
    root = scratch_root() or tempfile.gettempdir()
    path = os.path.join(root, f"benchspace-{os.getpid()}-{next(_SCRATCH_IDS)}")
    os.mkdir(path, 0o700)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _tail(data: bytes | str | None) -> str:
    if not data:
        return ""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text[-TAIL_CHARS:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one run produced: a Measurement and, when it was read, the selected row."""

    measurement: Measurement
    row: Row | None = None


@dataclass(frozen=True, kw_only=True)
class ProcessResult:
    """How a process ended (status ``ok`` = exit 0, not yet read) and what it wrote."""

    measurement: Measurement
    text: str


def run_invocation(inv: Invocation) -> Measurement:
    """Run one invocation and return its Measurement; never raises for a benchmark's fault."""
    return execute(inv).measurement


def execute(inv: Invocation) -> Outcome:
    """Run one invocation; the Measurement plus the row it was read from."""
    result = run_process(inv)
    if result.measurement.status != "ok":
        return Outcome(measurement=result.measurement)
    return read_measurement(inv, result.measurement, result.text)


def run_process(inv: Invocation) -> ProcessResult:
    """Start the process, wait (with the timeout), and collect its output whatever happened."""
    template = Measurement(
        bench=inv.bench,
        case_index=inv.case_index,
        phase=inv.phase,
        params=dict(inv.params),
        argv=inv.argv,
        env=dict(inv.env),
        exe_sha256=inv.exe_sha256,
        status="missing",
        repeat=inv.repeat,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        host=inv.host,
        device=inv.device,
        cache_key=inv.cache_key,
        row=inv.row,
    )
    if inv.exe_path is None:
        missing = replace(template, error=f"executable {inv.exe} not found")
        return ProcessResult(measurement=missing, text="")
    child_env: dict[str, str] | None = None  # None: inherit ours, the cheapest to spawn
    if inv.env or inv.extra_env:
        child_env = dict(os.environ)
        child_env.update(inv.extra_env)
        for var, value in inv.env.items():
            if value is None:
                child_env.pop(var, None)
            else:
                child_env[var] = value
    t0 = time.perf_counter()
    with _scratch_dir() as tmp:
        out_path = Path(tmp) / OUTPUT_FILES.get(inv.reader, "out.txt")
        argv = [str(inv.exe_path)]
        argv += [
            a.replace(OUT_PLACEHOLDER, str(out_path)).replace(BUILD_PLACEHOLDER, inv.build_dir)
            for a in inv.argv[1:]
        ]
        try:
            proc = subprocess.Popen(
                argv,
                cwd=tmp,
                env=child_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            failed = replace(template, status="failed", error=f"cannot start: {exc}")
            return ProcessResult(measurement=failed, text="")
        try:
            stdout, stderr = proc.communicate(timeout=inv.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            stdout, stderr = proc.communicate()
            timed_out = True
        finally:
            # A benchmark may leave children behind; they die with its group.
            _kill_group(proc)
        if inv.reader in OUTPUT_FILES or any(OUT_PLACEHOLDER in a for a in inv.argv):
            text = out_path.read_text("utf-8", "replace") if out_path.exists() else ""
        elif inv.reader == "regex":
            text = stdout.decode("utf-8", "replace") + "\n" + stderr.decode("utf-8", "replace")
        else:
            text = stdout.decode("utf-8", "replace")
    done = replace(
        template,
        status="ok",
        stdout_tail=_tail(stdout),
        stderr_tail=_tail(stderr),
        duration_s=time.perf_counter() - t0,
        returncode=None if timed_out else proc.returncode,
    )
    if timed_out:
        error = f"no result after {inv.timeout_s:g} s; process group killed"
        done = replace(done, status="timeout", error=error)
    elif proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        done = replace(done, status="crashed", error=f"killed by {name}")
    elif proc.returncode > 0:
        done = replace(done, status="failed", error=f"exit status {proc.returncode}")
    return ProcessResult(measurement=done, text=text)


def read_measurement(inv: Invocation, done: Measurement, text: str) -> Outcome:
    """Read the metric from a finished run's output (pure); a reading failure is data."""
    source = f"{inv.exe} (bench {inv.bench}, case {inv.case_index})"
    try:
        if not text.strip():
            raise ReaderError(f"{source}: produced no output to read")
        rows = read_output(inv.reader, text, pattern=inv.pattern)
        row = select_row(rows, inv.row, source=source)
        value, spread = metric_of(row, inv.metric, source=source)
    except BenchspaceError as exc:
        return Outcome(measurement=replace(done, status="parse_error", error=str(exc)))
    extra: dict[str, float | str] = {
        k: v for k, v in row.fields.items() if isinstance(v, int | float) and k != inv.metric
    }
    ok = replace(done, status="ok", value=value, spread=spread, row=row.name, extra=extra)
    return Outcome(measurement=ok, row=row)
