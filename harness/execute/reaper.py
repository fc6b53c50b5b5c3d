"""Every benchmark process benchspace starts, so that none outlives it.

- A registry of the live benchmark processes (each the leader of its own session and process
  group): ``spawn`` starts and registers one, ``release`` forgets it once reaped. The whole
  group of a benchmark is SIGKILLed when it ends, times out, or benchspace stops.
- Descendants that leave the benchmark's group (``setsid()``, ``setpgid()``): on Linux
  benchspace makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so such a
  descendant, once its parent has died, becomes benchspace's child instead of init's.
  ``reap_orphans`` finds those children (``/proc``), kills their process groups and reaps them,
  repeating for the descendants that killing orphans in turn; it runs after benchmarks
  (``reap_orphans_soon``: each time, or at most once a second where the kernel has no cheap
  list of children) and whenever a command ends or is stopped.
- What is not handled: a descendant whose parent is still alive in a group of its own is not
  an orphan yet (it is caught once that parent dies, i.e. at the next scan after the group
  kill); processes of another user (no permission to kill); anything started through a
  third party (a daemon, ssh, a container runtime); and benchspace itself killed by SIGKILL
  (nothing runs then: the benchmark's group finishes by itself).
- ``handled()``: SIGINT, SIGTERM and SIGHUP kill every registered group, stop new starts, and
  raise ``Terminated`` in the main thread, so that the sweep unwinds through its ``finally``
  blocks (scratch directories removed, store closed) and ``main()`` prints one line and exits
  128 + n.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

_PR_SET_CHILD_SUBREAPER = 36
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_LOCK = threading.Lock()
_LIVE: dict[int, subprocess.Popen[bytes]] = {}
_state = {"stopping": 0, "spawning": 0, "pending": 0, "hunt": 0}


class Terminated(KeyboardInterrupt):
    """benchspace was asked to stop by a signal (SIGINT, SIGTERM, SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        """The signal's name (``SIGTERM``)."""
        return signal_name(self.signum)


class Stopping(Exception):
    """A start was refused: benchspace is stopping."""


def signal_name(signum: int) -> str:
    """``SIGSEGV``; ``SIGRTMIN+3`` for real-time signals; ``signal 99`` for anything else."""
    low, high = int(signal.SIGRTMIN), int(signal.SIGRTMAX)
    if low < signum < high:
        return f"SIGRTMIN+{signum - low}"
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def set_subreaper(on: bool) -> bool:
    """Make this process the reaper of its orphaned descendants, or stop (Linux); True when
    the kernel agreed."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def spawn(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Start a benchmark process and register it (a stop signal waits until it is)."""
    main = threading.current_thread() is threading.main_thread()
    with _LOCK:
        if _state["stopping"]:
            raise Stopping("benchspace is stopping")
        if main:
            _state["spawning"] = 1
        try:
            proc = start()
            _LIVE[proc.pid] = proc
        finally:
            if main:
                _state["spawning"] = 0
    pending = _state["pending"]
    if main and pending:
        _state["pending"] = 0
        raise Terminated(pending)
    return proc


def release(pid: int) -> None:
    """Forget a reaped process."""
    with _LOCK:
        _LIVE.pop(pid, None)


def kill_group(pid: int) -> None:
    """SIGKILL a process group (gone already is fine)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _kill_live() -> None:
    for _ in range(3):
        try:
            pids = list(_LIVE)
        except RuntimeError:  # changed while copied (another thread)
            continue
        for pid in pids:
            kill_group(pid)
        return


SCAN_INTERVAL_S = 1.0
"""Without ``/proc/<pid>/task/<tid>/children`` (a kernel option), finding our children means
reading every process's stat (about 0.5 ms for 100 processes): then at most once a second
between benchmarks, and always when a command ends."""
_scan = {"last": 0.0, "cheap": 1.0}


def _own_children() -> list[str] | None:
    """Our children's pids from the kernel's per-thread lists; None where it has none."""
    pids: list[str] = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as fh:
                pids += fh.read().split()
    except FileNotFoundError:
        _scan["cheap"] = 0.0
        return None
    except OSError:
        return pids
    return pids


def _children() -> list[tuple[int, int, int]]:
    """(pid, process group, session) of every child of this process."""
    me = os.getpid()
    listed = _own_children() if _scan["cheap"] else None
    names = listed if listed is not None else [e for e in os.listdir("/proc") if e.isdigit()]
    out = []
    for name in names:
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        if int(fields[1]) == me:
            out.append((int(name), int(fields[2]), int(fields[3])))
    return out


def reap_orphans_soon() -> None:
    """``reap_orphans`` after a benchmark: every time where listing our children is cheap,
    else at most every SCAN_INTERVAL_S."""
    now = time.monotonic()
    if _scan["cheap"] or now - _scan["last"] >= SCAN_INTERVAL_S:
        _scan["last"] = now
        reap_orphans()


def reap_orphans() -> int:
    """Kill and reap the orphaned descendants of benchmarks that reparented to benchspace
    (children of ours that are no registered benchmark and left our session); their count.
    Only inside ``handled()`` (the command line's process, where every child that left our
    session is a benchmark's): a library user's or a Dask worker's other children are theirs."""
    if not _state["hunt"]:
        return 0
    own_session = os.getsid(0)
    killed = 0
    for _ in range(8):  # killing one may orphan its own descendants
        with _LOCK:
            found = [(p, g) for p, g, sid in _children() if p not in _LIVE and sid != own_session]
            for pid, group in found:
                kill_group(group)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
        killed += len(found)
        if not found:
            break
    return killed


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _kill_live()
    if _state["stopping"]:
        return  # a second signal while unwinding: the groups are killed again, no more
    _state["stopping"] = signum
    if _state["spawning"]:
        _state["pending"] = signum  # raised once the process being started is registered
        return
    raise Terminated(signum)


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Stop on SIGINT, SIGTERM and SIGHUP, and reap orphaned descendants, as described above
    (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _on_signal) for s in STOP_SIGNALS}
    _state["hunt"] = int(set_subreaper(True))
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        reap_orphans()
        if _state["hunt"]:
            set_subreaper(False)
        _state["hunt"] = 0
        _state["stopping"] = 0
        _state["pending"] = 0
