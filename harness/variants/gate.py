"""Keeping compiles off a timed CPU run: builds paused while it is in flight, or pinned apart.

``pause``: every build runs in a process group of its own; while a timed run is in flight
(``hold``) each group is stopped with SIGSTOP, and SIGCONT resumes it when the last hold ends.
A build started during a hold is stopped as soon as it registers. ``pin``: builds run on
cores of their own (``build_cpus``), timed runs on the others (``run_cpus``); nothing is
stopped. ``none`` (GPU benches, ``"overlap": true``): builds and runs overlap freely.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

Isolation = Literal["pin", "pause", "none"]
ISOLATIONS: tuple[Isolation, ...] = ("pin", "pause", "none")


@dataclass(frozen=True, kw_only=True)
class CoreSplit:
    """Which cores builds and timed runs get under ``pin`` (empty: not pinned)."""

    run_cpus: tuple[int, ...] = ()
    build_cpus: tuple[int, ...] = ()


def split_cores(cpus: Sequence[int], run_cores: int) -> CoreSplit | None:
    """The first ``run_cores`` cores for timed runs, the rest for builds; None if none remain."""
    cpus = tuple(sorted(cpus))
    if len(cpus) <= run_cores:
        return None
    return CoreSplit(run_cpus=cpus[:run_cores], build_cpus=cpus[run_cores:])


class Gate:
    """Stops the registered build process groups while a timed run holds the gate."""

    def __init__(self, *, pause: bool) -> None:
        self.pause = pause
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._holds = 0
        self._held_since: float | None = None
        self._paused_total = 0.0

    def register(self, pgid: int) -> None:
        """A build's process group started; stopped at once if a timed run is in flight."""
        with self._lock:
            self._groups.add(pgid)
            if self.pause and self._holds:
                _signal(pgid, signal.SIGSTOP)

    def unregister(self, pgid: int) -> None:
        """The build ended."""
        with self._lock:
            self._groups.discard(pgid)

    def paused_seconds(self) -> float:
        """Seconds builds have spent stopped so far (a build's time limit excludes them)."""
        with self._lock:
            now = self._paused_total
            if self._held_since is not None:
                now += time.monotonic() - self._held_since
            return now

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """A timed run is in flight: stop every build (``pause``) until the last hold ends."""
        if not self.pause:
            yield
            return
        with self._lock:
            self._holds += 1
            if self._holds == 1:
                self._held_since = time.monotonic()
                for pgid in self._groups:
                    _signal(pgid, signal.SIGSTOP)
        try:
            yield
        finally:
            with self._lock:
                self._holds -= 1
                if self._holds == 0:
                    if self._held_since is not None:
                        self._paused_total += time.monotonic() - self._held_since
                    self._held_since = None
                    for pgid in self._groups:
                        _signal(pgid, signal.SIGCONT)


def _signal(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
