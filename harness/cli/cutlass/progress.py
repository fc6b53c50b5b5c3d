"""Progress of a long cutlass command on stderr, with the elapsed time: a status line rewritten
in place on a terminal, else one line per stage (a log or a pipe sees each stage as it starts).
Stdout keeps only the command's result."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """``say(step)`` for each stage; ``done()`` clears the terminal's status line."""

    def __init__(self, command: str, stream: TextIO | None = None) -> None:
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self.start = time.monotonic()

    def say(self, step: str) -> None:
        """Show that ``step`` starts now."""
        line = f"[{time.monotonic() - self.start:5.0f} s] {step}"
        if self.live:
            print(f"\r{line:<78}", end="", file=self.stream, flush=True)
        else:
            print(f"{self.command}: {line}", file=self.stream, flush=True)

    def done(self) -> None:
        """Clear the status line (on a terminal; a log keeps its lines)."""
        if self.live:
            print(f"\r{'':<78}\r", end="", file=self.stream, flush=True)


def progress(command: str) -> tuple[Callable[[str], None], Callable[[], None]]:
    """``(say, done)`` of a new `Progress` on stderr."""
    p = Progress(command)
    return p.say, p.done
