"""Scratch space of one invocation: its working directory and its output files, read back
bounded.

A benchmark's stdout and stderr go straight to unnamed files (memfd, or unlinked files in the
scratch directory), never through a pipe into benchspace's memory; what benchspace reads back
is their tails (the last TAIL_CHARS characters, read from the end) and, for the reader, at
most MAX_OUTPUT_BYTES (more is the benchmark's fault: a ``parse_error``). An output flood costs
the scratch file system, not benchspace's memory.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import tempfile

from benchspace.harness.execute.invoke import TAIL_CHARS


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


def make_scratch_dir() -> str:
    """A fresh, empty working directory for one invocation (cheaper than tempfile's: one
    mkdir with a name unique to this process). A name already taken is the leftover of a
    killed process that had this PID (or of another PID namespace sharing the folder): it is
    stepped over, never reused or removed."""
    root = scratch_root() or tempfile.gettempdir()
    pid = os.getpid()
    while True:
        path = os.path.join(root, f"benchspace-{pid}-{next(_SCRATCH_IDS)}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path


def remove_scratch_dir(path: str, known: str) -> None:
    """Remove a scratch directory: the reader's output file and an rmdir when the benchmark
    left nothing else (the common case), else the whole tree."""
    with contextlib.suppress(OSError):
        os.unlink(known)
    try:
        os.rmdir(path)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


def output_file(scratch: str, name: str) -> int:
    """An unnamed file for a stream of the process (nothing appears in its directory)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create(f"benchspace-{name}", os.MFD_CLOEXEC)
    path = os.path.join(scratch, f".benchspace-{name}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    os.unlink(path)
    return fd


MAX_OUTPUT_BYTES = 32 << 20
"""The most output a reader is given (more is a ``parse_error``; only tails are kept)."""


class TooLarge(Exception):
    """Output over MAX_OUTPUT_BYTES."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def read_fd(fd: int, start: int = 0) -> bytes:
    size = os.fstat(fd).st_size
    if size - start > MAX_OUTPUT_BYTES:
        raise TooLarge(size)
    chunks, offset = [], max(0, start)
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def tail_fd(fd: int) -> str:
    """The last TAIL_CHARS characters a stream received (read from its end only)."""
    return tail(read_fd(fd, os.fstat(fd).st_size - 4 * TAIL_CHARS))


def read_path(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def tail(data: bytes) -> str:
    return data[-4 * TAIL_CHARS :].decode("utf-8", "replace")[-TAIL_CHARS:] if data else ""
