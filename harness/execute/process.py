"""One benchmark process: prepare, start, wait, collect; and reading its Measurement.

A run is an argv list (never a shell), with the environment merged onto the parent's
(``None`` unsets), in a fresh temporary directory, under a timeout that kills the whole
process group. Every way it can end is a Measurement with a status; nothing escapes as an
exception.

The four steps are separate so that a serial sweep can do everything but starting and
waiting while the next benchmark runs (``harness.execute.executor``): the temporary directory and
output files of the next process are made, and the last one's output read and parsed, in
time the harness would otherwise spend waiting.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import math
import os
import select
import subprocess
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from benchspace.harness.errors import BenchspaceError, ReaderError
from benchspace.harness.execute import reaper
from benchspace.harness.execute.affinity import pinned_spawn_mask, restore_mask
from benchspace.harness.execute.exe_identity import current_sha256
from benchspace.harness.execute.invoke import (
    BUILD_PLACEHOLDER,
    OUT_PLACEHOLDER,
    OUTPUT_FILES,
    Invocation,
)
from benchspace.harness.execute.metric_check import check_value
from benchspace.harness.execute.readers import Row, metric_of, read_output, select_row
from benchspace.harness.execute.scratch import (
    MAX_OUTPUT_BYTES,
    TooLarge,
    make_scratch_dir,
    output_file,
    read_fd,
    read_path,
    remove_scratch_dir,
    tail_fd,
)
from benchspace.harness.measurement import Measurement, Status


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
    stderr: str = ""
    """The whole stderr, read only when the bench's reader reads it (``stream``)."""


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


def _output_files(scratch: str, out_path: str) -> tuple[int, int]:
    """The stdout and stderr files of one invocation; when one cannot be opened (no file
    descriptor left: ``ulimit -n``) the other is closed and the scratch directory removed
    before the error goes on, so nothing of the invocation outlives it."""
    fds: list[int] = []
    try:
        for name in ("stdout", "stderr"):
            fds.append(output_file(scratch, name))
    except BaseException:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        remove_scratch_dir(scratch, out_path)
        raise
    return fds[0], fds[1]


_kill_group = reaper.kill_group


def crash_message(signum: int) -> str:
    """``killed by SIGSEGV``; a real-time or unnamed signal with its number too: ``killed by
    SIGRTMIN+3 (signal 37)`` (the number is always in the row's ``returncode``, negated)."""
    name = reaper.signal_name(signum)
    plain = name.startswith("SIG") and not name.startswith("SIGRT")
    return f"killed by {name}" if plain else f"killed by {name} (signal {signum})"


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
        self._scratch = make_scratch_dir()
        self._out_path = os.path.join(self._scratch, OUTPUT_FILES.get(inv.reader, "out.txt"))
        self._fds = _output_files(self._scratch, self._out_path)
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
        inv = self.inv
        try:
            path = _checked(inv)
            if path is not None:
                # The binary that runs is the one the row names (it may have been rebuilt).
                sha = current_sha256(path)
                if sha != inv.exe_sha256:
                    self.inv = inv = replace(inv, exe_sha256=sha)
            self._t0 = time.perf_counter()
            mask = pinned_spawn_mask(inv.cpus)  # the child inherits the forking thread's mask
            try:
                self.proc = reaper.spawn(self._popen)
            finally:
                restore_mask(mask)
        except OSError as exc:
            code = errno.errorcode.get(exc.errno or 0, "?")
            self.error = (
                f"cannot start: {inv.exe_path}: {exc.strerror or exc} ({code}); not cached: "
                "the next sweep runs it again"
            )
        except reaper.Stopping:
            self.error = f"cannot start: {inv.exe_path}: benchspace is stopping"

    def _popen(self) -> subprocess.Popen[bytes]:
        assert self._fds is not None
        return subprocess.Popen(
            self._argv,
            cwd=self._scratch,
            env=self._env,
            stdin=_devnull(),
            stdout=self._fds[0],
            stderr=self._fds[1],
            start_new_session=True,
        )

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
        reaper.release(proc.pid)

    def collect(self) -> ProcessResult:
        """Read what the process wrote, clean up, and say how it ended."""
        inv = self.inv
        if self._fds is None:
            failed = self._measurement("missing", f"executable {inv.exe} not found")
            return ProcessResult(measurement=failed, text="")
        proc = self.proc
        out_file = inv.reader in OUTPUT_FILES or any(OUT_PLACEHOLDER in a for a in inv.argv)
        text, stderr, too_large = "", "", ""
        try:
            stdout_tail, stderr_tail = tail_fd(self._fds[0]), tail_fd(self._fds[1])
            if proc is not None:
                try:
                    text, stderr = self._text(out_file)
                except TooLarge as exc:
                    too_large = (
                        f"the output is {exc.size} bytes, more than the {MAX_OUTPUT_BYTES} a "
                        "reader takes; make the benchmark print less"
                    )
        finally:
            self.discard()
        if proc is None:
            # Cannot start (ENOENT, EACCES, fork failure, a rebuild in progress): not the
            # configuration's fault, so not cached; the next sweep runs it again.
            done = self._measurement("unavailable", self.error)
            return ProcessResult(measurement=done, text="")
        code = proc.returncode
        status: Status = "ok"
        error = ""
        if not self.finished:
            status, error = "timeout", f"no result after {inv.timeout_s:g} s; process group killed"
        elif code < 0:
            status, error = "crashed", crash_message(-code)
        elif code > 0:
            status, error = "failed", f"exit status {code}"
        elif too_large:
            where = f"{inv.exe} (bench {inv.bench}, case {inv.case_index})"
            status, error = "parse_error", f"{where}: {too_large}"
        done = self._measurement(
            status,
            error,
            stdout_tail=stdout_tail,
            stderr_tail=stderr_tail,
            duration_s=self.duration_s,
            returncode=code if self.finished else None,
        )
        return ProcessResult(measurement=done, text=text, stderr=stderr)

    def _text(self, out_file: bool) -> tuple[str, str]:
        """What the reader reads: the output file or stdout; and stderr if it asks."""
        assert self._fds is not None
        if out_file:
            return read_path(self._out_path).decode("utf-8", "replace"), ""
        stdout = read_fd(self._fds[0]).decode("utf-8", "replace")
        if self.inv.stream == "stdout":
            return stdout, ""
        return stdout, read_fd(self._fds[1]).decode("utf-8", "replace")

    def discard(self) -> None:
        """Kill the process if it still runs, close the output files and remove the
        temporary directory (idempotent)."""
        if self.proc is not None and self.proc.returncode is None:
            _kill_group(self.proc.pid)
            self.proc.wait()
            reaper.release(self.proc.pid)
        if self._fds is not None:
            if self.proc is not None:
                reaper.reap_orphans_soon()
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._fds = None
            remove_scratch_dir(self._scratch, self._out_path)

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


def _checked(inv: Invocation) -> Path | None:
    """The executable when the invocation names it by a sha256 (a probe's or a test's may
    not: those are not checked)."""
    return inv.exe_path if len(inv.exe_sha256) == 64 else None


def current_binary(inv: Invocation) -> Invocation:
    """The invocation under the sha of its executable now (itself when unchanged, unhashed
    or unreadable: starting it will say why)."""
    path = _checked(inv)
    if path is None:
        return inv
    try:
        sha = current_sha256(path)
    except OSError:
        return inv
    return inv if sha == inv.exe_sha256 else replace(inv, exe_sha256=sha)


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
    return read_measurement(inv, result.measurement, result.text, stderr=result.stderr)


def read_measurement(inv: Invocation, done: Measurement, text: str, *, stderr: str = "") -> Outcome:
    """Read the metric from a finished run's output (pure); a reading failure is data."""
    source = f"{inv.exe} (bench {inv.bench}, case {inv.case_index})"
    try:
        if not text.strip() and not stderr.strip():
            raise ReaderError(f"{source}: produced no output to read")
        rows = read_output(
            inv.reader, text, pattern=inv.pattern, stream=inv.stream, stderr=stderr, source=source
        )
        row = select_row(rows, inv.row, source=source)
        value, spread = metric_of(row, inv.metric, source=source)
        check_value(value, metric=inv.metric, row=row.name, source=source)
    except BenchspaceError as exc:
        return Outcome(measurement=replace(done, status="parse_error", error=str(exc)))
    extra: dict[str, float | str] = {
        k: v for k, v in row.fields.items() if isinstance(v, int | float) and k != inv.metric
    }
    if isinstance(unit := row.fields.get("time_unit"), str):
        extra["time_unit"] = unit  # the unit the row's times were normalised to
    ok = replace(done, status="ok", value=value, spread=spread, row=row.name, extra=extra)
    return Outcome(measurement=ok, row=row)
