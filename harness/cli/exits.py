"""How a command ends when the system, not the user, is the problem: one line, a documented
exit code (harness/errors.py: EXIT_RESOURCES, EXIT_OUTPUT), never a traceback.

Exhausted file descriptors, processes or threads and memory end in EXIT_RESOURCES (71);
standard output or error that cannot be written (a full device, an I/O error) in EXIT_OUTPUT
(74), the stream then pointed at /dev/null so that the interpreter's own flush at exit does
not fail a second time.
"""

from __future__ import annotations

import errno
import os
import resource
import sys
from typing import TextIO

from benchspace.harness.errors import EXIT_OUTPUT

STREAM_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG})
"""Errors of a device that standard output or error is written to."""
MEMORY = "out of memory; raise the limit (ulimit -v) or free memory"
PROCESSES = (
    "the system's limit of processes or threads is reached; raise it (ulimit -u) or run fewer jobs"
)


def exhaustion(exc: OSError) -> str:
    """The one line for an error of exhausted system resources; empty for any other."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EMFILE, errno.ENFILE):
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return (f"{reason}: at most {soft} open files per process; raise the limit (ulimit -n "
                "1024) or run fewer jobs")  # fmt: skip
    if exc.errno == errno.EAGAIN:
        return f"{reason}: {PROCESSES}"
    if exc.errno == errno.ENOMEM:
        return f"{reason}: {MEMORY}"
    return ""


def failed(stream: TextIO) -> bool:
    """Whether `stream` cannot be written: its flush fails."""
    try:
        stream.flush()
    except OSError:
        return True
    return False


def silence(stream: TextIO) -> None:
    """Point a stream that cannot be written at /dev/null, so that the interpreter's flush at
    exit does not fail again (a second message, a traceback, exit 120)."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def say(line: str, code: int) -> int:
    """Print one line on stderr and give `code`; EXIT_OUTPUT when stderr cannot be written."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        silence(sys.stderr)
        return EXIT_OUTPUT
    return code
