"""Building one variant: in a folder of its own, atomically, within a time limit.

The command runs in a temporary folder (``.tmp-<key>-<pid>-<n>``) beside the variant's final
one, in a process group of its own; only when it exits 0 having written ``{exe}`` is the
folder renamed to its final name (``rename`` is atomic). A build killed at any moment, even
with ``kill -9`` of benchspace itself, leaves at most a temporary folder that no lookup ever
reads (`sweep_stale` removes those of dead processes); a variant is reused only when its store
row says ``built`` and the executable's sha256 still matches it.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import platform
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from benchspace.harness.execute import reaper
from benchspace.harness.execute.exe_identity import current_sha256
from benchspace.harness.spaces.model import Bench
from benchspace.harness.variants.gate import Gate
from benchspace.harness.variants.spec import (
    HEADER_NAME,
    BuildAttempt,
    BuildStatus,
    CompileValues,
    expand_command,
    header_text,
    tail,
)

_counter = itertools.count()
_POLL_S = 0.02


def variant_folder(root: Path, key: str) -> Path:
    """The final folder of the variant with this key."""
    return root / key[:24]


def sweep_stale(root: Path) -> int:
    """Remove temporary folders left by builds of processes that are gone; returns how many."""
    removed = 0
    if not root.is_dir():
        return 0
    for path in root.glob(".tmp-*"):
        parts = path.name.split("-")
        pid = int(parts[2]) if len(parts) > 3 and parts[2].isdigit() else -1
        if pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _pinned(cpus: tuple[int, ...]) -> Iterator[None]:
    """This thread on ``cpus`` while it forks (the child inherits the mask), then back."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def build_variant(
    bench: Bench,
    values: CompileValues,
    *,
    key: str,
    root: Path,
    source_dir: Path,
    build_dir: Path,
    limit: Callable[[], float],
    compiler: str = "",
    cpus: tuple[int, ...] = (),
    gate: Gate | None = None,
) -> BuildAttempt:
    """Run the bench's build for one value set; a failure or a timeout is data (the row)."""
    assert bench.build is not None
    root.mkdir(parents=True, exist_ok=True)
    final = variant_folder(root, key)
    tmp = root / f".tmp-{key[:24]}-{os.getpid()}-{next(_counter)}"
    tmp.mkdir()
    exe_name = Path(bench.exe).name
    if bench.build.deliver == "header":
        (tmp / HEADER_NAME).write_text(header_text(bench.name, values), encoding="utf-8")
    argv = expand_command(
        bench.build,
        values,
        exe=str(tmp / exe_name),
        variant_dir=str(tmp),
        source_dir=str(source_dir),
        build_dir=str(build_dir),
    )
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    log_path = tmp / "build.log"
    paused_before = gate.paused_seconds() if gate is not None else 0.0
    t0 = time.monotonic()
    status = "build_failed"
    note = ""
    with open(log_path, "wb") as log:
        try:
            with _pinned(cpus):
                # Registered like a benchmark: benchspace's orphan reaper leaves it alone, and
                # a stop signal kills its whole group.
                proc = reaper.spawn(
                    lambda: subprocess.Popen(
                        argv,
                        cwd=source_dir,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,  # its own process group: paused, killed whole
                    )
                )
        except OSError as exc:
            proc = None
            note = f"cannot start {argv[0]!r}: {exc.strerror or exc}"
        if proc is not None:
            if gate is not None:
                gate.register(proc.pid)
            try:
                status, note = _wait(proc, t0, limit, gate, paused_before)
            finally:
                if gate is not None:
                    gate.unregister(proc.pid)
                reaper.release(proc.pid)
    paused = (gate.paused_seconds() if gate is not None else 0.0) - paused_before
    seconds = max(0.0, time.monotonic() - t0 - paused)
    log_text = log_path.read_text(encoding="utf-8", errors="replace")
    exe = tmp / exe_name
    if status == "built" and not (exe.is_file() and os.access(exe, os.X_OK)):
        status, note = "build_failed", "the command exited 0 but wrote no executable {exe}"
    record = functools.partial(
        BuildAttempt,
        key=key,
        bench=bench.name,
        values=values,
        seconds=seconds,
        command=tuple(argv),
        compiler=compiler,
        started_at=started_at,
        host=platform.node(),
    )
    if status != "built":
        shutil.rmtree(tmp, ignore_errors=True)
        failed: BuildStatus = "build_timeout" if status == "build_timeout" else "build_failed"
        return record(status=failed, log_tail=tail(log_text + (f"\n{note}" if note else "")))
    sha = current_sha256(exe)
    if final.exists():  # a variant built by a run killed before it was recorded
        shutil.rmtree(final)
    os.rename(tmp, final)
    return record(status="built", log_tail=tail(log_text), artefact_sha256=sha, path=str(final))


def _wait(
    proc: subprocess.Popen[bytes],
    t0: float,
    limit: Callable[[], float],
    gate: Gate | None,
    paused_before: float,
) -> tuple[str, str]:
    """Wait for the build; kill its whole group past the limit (paused time not counted)."""
    while True:
        try:
            code = proc.wait(timeout=_POLL_S)
        except subprocess.TimeoutExpired:
            paused = (gate.paused_seconds() if gate is not None else 0.0) - paused_before
            elapsed = time.monotonic() - t0 - paused
            allowed = limit()
            if elapsed > allowed:
                _kill_group(proc)
                return "build_timeout", f"build killed after {allowed:.1f} s (its time limit)"
            continue
        if code == 0:
            return "built", ""
        return "build_failed", f"the build command exited with status {code}"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGCONT)  # a stopped group must run to die
    proc.wait()
