"""One benchmark process: prepare, start, wait, collect; and reading its Measurement.

A run is an argv list (never a shell), with the environment merged onto the parent's
(``None`` unsets), in a fresh temporary directory, under a timeout that kills the whole
process group. Every way it can end is a Measurement with a status; nothing escapes as an
exception.

The four steps are separate so that a serial sweep can do everything but starting and
waiting while the next benchmark runs (``harness.executor``): the temporary directory and
output files of the next process are made, and the last one's output read and parsed, in
time the harness would otherwise spend waiting.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from harness.errors import BenchspaceError, ReaderError
from harness.invoke import (
    BUILD_PLACEHOLDER,
    OUT_PLACEHOLDER,
    OUTPUT_FILES,
    TAIL_CHARS,
    Invocation,
)
from harness.measurement import Measurement, Status
from harness.readers import Row, metric_of, read_output, select_row


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


def _make_scratch_dir() -> str:
    """A fresh, empty working directory for one invocation (cheaper than tempfile's: one
    mkdir with a name unique to this process, no random retries)."""
    root = scratch_root() or tempfile.gettempdir()
    path = os.path.join(root, f"benchspace-{os.getpid()}-{next(_SCRATCH_IDS)}")
    os.mkdir(path, 0o700)
    return path


def _remove_scratch_dir(path: str, known: str) -> None:
    """Remove a scratch directory: the reader's output file and an rmdir when the benchmark
    left nothing else (the common case), else the whole tree."""
    with contextlib.suppress(OSError):
        os.unlink(known)
    try:
        os.rmdir(path)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


def _output_file(scratch: str, name: str) -> int:
    """An unnamed file for a stream of the process (nothing appears in its directory)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create(f"benchspace-{name}", os.MFD_CLOEXEC)
    path = os.path.join(scratch, f".benchspace-{name}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    os.unlink(path)
    return fd


def _read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _read_path(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


def _tail(data: bytes) -> str:
    return data[-4 * TAIL_CHARS :].decode("utf-8", "replace")[-TAIL_CHARS:] if data else ""


def _child_env(inv: Invocation) -> dict[str, str] | None:
    """The child's environment; None (inherit ours, the cheapest to spawn) without overrides."""
    if not inv.env and not inv.extra_env:
        return None
    child_env = dict(os.environ)
    child_env.update(inv.extra_env)
    for var, value in inv.env.items():
        if value is None:
            child_env.pop(var, None)
        else:
            child_env[var] = value
    return child_env


def _wait(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Wait for the process to end; False when the timeout came first. Sleeps in one
    ``poll`` on a pidfd where the kernel has them (no polling loop, no added latency)."""
    if proc.returncode is not None:
        return True
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd: the standard library's wait
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        deadline = time.monotonic() + timeout_s
        while not poller.poll(max(0, math.ceil(1000 * (deadline - time.monotonic())))):
            if time.monotonic() >= deadline:
                return False
    finally:
        os.close(pidfd)
    proc.wait()
    return True


@functools.cache
def _devnull() -> int:
    """One read-only /dev/null for every child's stdin (not an open and close per start)."""
    return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class Process:
    """One invocation's process. Construction prepares it (temporary directory, output
    files, argv, environment) without starting anything; ``start``, ``wait`` and ``collect``
    follow, and ``discard`` undoes a preparation that will not run."""

    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        self.error = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self.finished = False
        self.duration_s = 0.0
        self.started_at = ""
        self._t0 = 0.0
        self._fds: tuple[int, int] | None = None
        self._scratch = ""
        self._out_path = ""
        self._argv: list[str] = []
        if inv.exe_path is None:
            return
        self._scratch = _make_scratch_dir()
        self._out_path = os.path.join(self._scratch, OUTPUT_FILES.get(inv.reader, "out.txt"))
        self._fds = (_output_file(self._scratch, "stdout"), _output_file(self._scratch, "stderr"))
        self._argv = [str(inv.exe_path)]
        self._argv += [
            a.replace(OUT_PLACEHOLDER, self._out_path).replace(BUILD_PLACEHOLDER, inv.build_dir)
            for a in inv.argv[1:]
        ]
        self._env = _child_env(inv)

    def start(self) -> None:
        """Start the process (a failure to start is kept for ``collect``)."""
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        if self._fds is None:
            return
        self._t0 = time.perf_counter()
        try:
            self.proc = subprocess.Popen(
                self._argv,
                cwd=self._scratch,
                env=self._env,
                stdin=_devnull(),
                stdout=self._fds[0],
                stderr=self._fds[1],
                start_new_session=True,
            )
        except OSError as exc:
            self.error = f"cannot start: {exc}"

    def wait(self) -> None:
        """Wait for the process (the timeout counts from ``start``), killing its group on
        timeout; a benchmark's leftover children die with its group either way."""
        proc = self.proc
        if proc is None:
            return
        remaining = max(0.0, self._t0 + self.inv.timeout_s - time.perf_counter())
        self.finished = _wait(proc, remaining)
        self.duration_s = time.perf_counter() - self._t0
        _kill_group(proc.pid)
        if not self.finished:
            proc.wait()

    def collect(self) -> ProcessResult:
        """Read what the process wrote, clean up, and say how it ended."""
        inv = self.inv
        if self._fds is None:
            failed = self._measurement("missing", f"executable {inv.exe} not found")
            return ProcessResult(measurement=failed, text="")
        try:
            stdout, stderr = _read_fd(self._fds[0]), _read_fd(self._fds[1])
            out_file = inv.reader in OUTPUT_FILES or any(OUT_PLACEHOLDER in a for a in inv.argv)
            output = _read_path(self._out_path) if out_file and self.proc is not None else b""
        finally:
            self.discard()
        proc = self.proc
        if proc is None:
            return ProcessResult(measurement=self._measurement("failed", self.error), text="")
        if out_file:
            text = output.decode("utf-8", "replace")
        elif inv.reader == "regex":
            text = stdout.decode("utf-8", "replace") + "\n" + stderr.decode("utf-8", "replace")
        else:
            text = stdout.decode("utf-8", "replace")
        code = proc.returncode
        status: Status = "ok"
        error = ""
        if not self.finished:
            status, error = "timeout", f"no result after {inv.timeout_s:g} s; process group killed"
        elif code < 0:
            status, error = "crashed", f"killed by {signal.Signals(-code).name}"
        elif code > 0:
            status, error = "failed", f"exit status {code}"
        done = self._measurement(
            status,
            error,
            stdout_tail=_tail(stdout),
            stderr_tail=_tail(stderr),
            duration_s=self.duration_s,
            returncode=code if self.finished else None,
        )
        return ProcessResult(measurement=done, text=text)

    def discard(self) -> None:
        """Kill the process if it still runs, close the output files and remove the
        temporary directory (idempotent)."""
        if self.proc is not None and self.proc.returncode is None:
            _kill_group(self.proc.pid)
            self.proc.wait()
        if self._fds is not None:
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._fds = None
            _remove_scratch_dir(self._scratch, self._out_path)

    def _measurement(
        self,
        status: Status,
        error: str,
        *,
        stdout_tail: str = "",
        stderr_tail: str = "",
        duration_s: float = 0.0,
        returncode: int | None = None,
    ) -> Measurement:
        inv = self.inv
        return Measurement(
            bench=inv.bench,
            case_index=inv.case_index,
            phase=inv.phase,
            params=dict(inv.params),
            argv=inv.argv,
            env=dict(inv.env),
            exe_sha256=inv.exe_sha256,
            status=status,
            error=error,
            repeat=inv.repeat,
            started_at=self.started_at,
            host=inv.host,
            device=inv.device,
            cache_key=inv.cache_key,
            row=inv.row,
            stdout_tail=stdout_tail,
            stderr_tail=stderr_tail,
            duration_s=duration_s,
            returncode=returncode,
        )


def run_process(inv: Invocation) -> ProcessResult:
    """Start the process, wait (with the timeout), and collect its output whatever happened."""
    process = Process(inv)
    process.start()
    process.wait()
    return process.collect()


def run_invocation(inv: Invocation) -> Measurement:
    """Run one invocation and return its Measurement; never raises for a benchmark's fault."""
    return execute(inv).measurement


def execute(inv: Invocation) -> Outcome:
    """Run one invocation; the Measurement plus the row it was read from."""
    return outcome_of(inv, run_process(inv))


def outcome_of(inv: Invocation, result: ProcessResult) -> Outcome:
    """Read a finished process's result: its Measurement plus the row it was read from."""
    if result.measurement.status != "ok":
        return Outcome(measurement=result.measurement)
    return read_measurement(inv, result.measurement, result.text)


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
