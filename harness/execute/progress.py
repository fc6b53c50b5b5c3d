"""Progress of a sweep: done/total, ETA, failures so far, current bench and case.

A live rich bar on a terminal (with the ``[progress]`` extra), plain lines otherwise,
nothing with ``--quiet``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from benchspace.harness.measurement import Measurement


def _have_rich() -> bool:
    """Whether the optional ``rich`` package (extra ``[progress]``) is installed."""
    import importlib.util

    return importlib.util.find_spec("rich") is not None


class Progress:
    """Counts finished invocations and reports them."""

    def __init__(self, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.total = 0
        self.done = 0
        self.cached = 0
        self.failures = 0
        self.label = ""
        self._t0 = time.monotonic()
        self._last_line = 0.0
        self._bar: object | None = None
        self._task: object | None = None
        if not quiet and self.stream.isatty() and _have_rich():
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("failures {task.fields[failures]}"),
                TimeRemainingColumn(),
                transient=True,
            )
            bar.start()
            self._task = bar.add_task("tune", total=0, failures=0)
            self._bar = bar

    def add_total(self, n: int) -> None:
        """Announce ``n`` more invocations."""
        self.total += n
        self._update()

    def set_label(self, label: str) -> None:
        """Name what is being measured now (bench, case)."""
        self.label = label
        self._update()

    def note(self, message: str) -> None:
        """Print a line above the bar (or plainly)."""
        if self.quiet:
            return
        if self._bar is not None:
            from rich.progress import Progress as RichProgress

            assert isinstance(self._bar, RichProgress)
            self._bar.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=self.stream, flush=True)

    def advance(self, m: Measurement, *, cached: bool = False) -> None:
        """Count one finished (or cached) invocation."""
        self.done += 1
        self.cached += int(cached)
        if not m.ok:
            self.failures += 1
        self._update(force=not m.ok and not cached)

    def eta_s(self) -> float | None:
        """Seconds left, from the rate of executed (not cached) invocations."""
        executed = self.done - self.cached
        if executed <= 0:
            return None
        rate = (time.monotonic() - self._t0) / executed
        return rate * (self.total - self.done)

    def _update(self, force: bool = False) -> None:
        if self.quiet:
            return
        if self._bar is not None:
            from rich.progress import Progress as RichProgress
            from rich.progress import TaskID

            assert isinstance(self._bar, RichProgress) and isinstance(self._task, int)
            self._bar.update(
                TaskID(self._task),
                total=self.total,
                completed=self.done,
                description=self.label,
                failures=self.failures,
            )
            return
        now = time.monotonic()
        if not force and now - self._last_line < 10.0 and self.done not in (0, self.total):
            return
        self._last_line = now
        eta = self.eta_s()
        eta_text = f", ETA {eta:.0f} s" if eta is not None else ""
        print(
            f"[{self.done}/{self.total}] {self.label}: failures {self.failures}{eta_text}",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        """Stop the live bar."""
        if self._bar is not None:
            from rich.progress import Progress as RichProgress

            assert isinstance(self._bar, RichProgress)
            self._bar.stop()
            self._bar = None
