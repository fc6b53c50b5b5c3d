"""The one file layer: every file a user names is read, written and checked here.

What the operating system, the decoder and the parser raise (``OSError`` for a missing file, a
directory, a file without read permission, a full disk; ``UnicodeDecodeError`` for bytes that
are not UTF-8; ``RecursionError`` for JSON nested thousands of levels deep) becomes one of the
error family (harness/errors.py), whose one-line message names the file and the fix. Callers
pass the error class of their layer (``SpaceError``, ``ProfileError``, ``HeaderError``) and
the noun that fix messages use (``"space file"``, ``"profile"``).

Outputs are checked before the work that produces them (`check_output`): a sweep of hours
must not end in ``IsADirectoryError``; `guard_output`, the one guard every writing command
calls, also refuses an output that is one of the files the command read (its space, profile,
header, grid files, executables, shapes, selector), symbolic links resolved. Writes are atomic
(a temporary file in the target's directory, then ``os.replace``), so a failed write (a full
disk) keeps the old file; a symbolic link is written through (its target replaced, the link
kept). Writers of a shared file hold `locked` around their read-edit-write.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import json
import os
import stat
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from benchspace.harness.errors import BenchspaceError

Error = type[BenchspaceError]

MAX_BYTES = 256 << 20
"""The most read from what is not a regular file (a device, a pipe), 256 MiB, in chunks: a
path such as ``/dev/zero`` must not fill the memory. A regular file is read whole by its size,
whatever it is (a profile of 10^6 measurements is about 270 MiB), with no buffer allocated up
front: a small file needs little memory (a command runs under ``ulimit -v 200000``)."""

CHUNK = 1 << 20


class FileError(BenchspaceError):
    """A file cannot be read or written (missing, a directory, no permission, disk full)."""


_NOT_REGULAR = (
    "is not a regular file (a device, a pipe or a socket), which an atomic write would replace; "
    "give the path of a file"
)


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_bytes(
    path: str | Path,
    *,
    error: Error = FileError,
    kind: str = "file",
    missing: str = "",
    source: str = "",
) -> bytes:
    """The file's bytes; `missing` (default "no such KIND; check the path") ends the message
    for a file that does not exist; `source` (default the path) names the file."""
    source = source or str(path)
    try:
        with open(path, "rb") as fh:
            blob, limit = read_all(fh)
    except FileNotFoundError:
        raise error(f"{source}: {missing or f'no such {kind}; check the path'}") from None
    except IsADirectoryError:
        raise error(f"{source}: is a directory; give the path of a {kind}") from None
    except NotADirectoryError:
        raise error(f"{source}: a folder on the path is a file; check the path") from None
    except PermissionError:
        raise error(
            f"{source}: cannot be read (permission denied); check the file's permissions"
        ) from None
    except OSError as exc:
        raise error(f"{source}: cannot be read ({_reason(exc)}); check the file") from None
    if len(blob) > limit:
        raise error(
            f"{source}: larger than {MAX_BYTES >> 20} MiB; this is not a {kind} (check the path)"
        )
    return blob


def read_all(fh: BinaryIO) -> tuple[bytes, int]:
    """The rest of an open file and the most it may hold: a regular file whole, by its size
    (limit: that size, or what it grew to); anything else in chunks up to MAX_BYTES + 1 (the
    caller refuses more than MAX_BYTES)."""
    if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        blob = fh.read()  # sized by fstat: no larger buffer than the file
        return blob, max(MAX_BYTES, len(blob))
    chunks: list[bytes] = []
    total = 0
    while total <= MAX_BYTES:
        chunk = fh.read(min(CHUNK, MAX_BYTES + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks), MAX_BYTES


def gunzipped(blob: bytes, source: str, *, error: Error = FileError, kind: str = "file") -> bytes:
    """The bytes of a ``.gz`` file decompressed (a file kept compressed: a selector's
    catalogue, a profile of thousands of rows)."""
    try:
        data = gzip.decompress(blob)
    except (OSError, EOFError, zlib.error) as exc:
        raise error(
            f"{source}: not a gzip file ({exc}); name the uncompressed {kind} without .gz"
        ) from None
    if len(data) > MAX_BYTES:
        raise error(f"{source}: larger than {MAX_BYTES >> 20} MiB decompressed; not a {kind}")
    return data


def decode(blob: bytes, source: str, *, error: Error = FileError, bom: bool = False) -> str:
    """UTF-8 text of `blob` (a byte-order mark skipped when `bom`)."""
    try:
        return blob.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{source}: byte {exc.start} is not UTF-8; save the file as UTF-8") from None


def read_text(
    path: str | Path,
    *,
    error: Error = FileError,
    kind: str = "file",
    missing: str = "",
    source: str = "",
) -> str:
    """The file's UTF-8 text."""
    blob = read_bytes(path, error=error, kind=kind, missing=missing, source=source)
    return decode(blob, source or str(path), error=error)


def parse_json(
    text: str | bytes,
    source: str,
    *,
    error: Error = FileError,
    kind: str = "file",
    fix: str = "fix the syntax",
    **loads: Any,
) -> Any:
    """Parse JSON text; invalid syntax and nesting too deep for the parser are `error`."""
    try:
        return json.loads(text, **loads)
    except json.JSONDecodeError as exc:
        raise error(
            f"{source}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}; {fix}"
        ) from None
    except RecursionError:
        raise error(f"{source}: $: nested too deeply to be a {kind}") from None


def read_json(
    path: str | Path, *, error: Error = FileError, kind: str = "file", missing: str = ""
) -> Any:
    """The parsed JSON document of a UTF-8 file."""
    text = read_text(path, error=error, kind=kind, missing=missing)
    return parse_json(text, str(path), error=error, kind=kind)


def read_object(
    path: str | Path, *, error: Error = FileError, kind: str = "file", missing: str = ""
) -> dict[str, Any]:
    """A JSON file whose document is an object."""
    data = read_json(path, error=error, kind=kind, missing=missing)
    if not isinstance(data, dict):
        raise error(f"{path}: $: a {kind} is a JSON object")
    return data


def check_output(path: str | Path, *, option: str) -> None:
    """Refuse, before any work, an output path that cannot be written: a directory, a path
    under a file, a folder without write permission. Nothing is left behind: the test file
    is made and removed in the nearest existing folder (missing folders are made later)."""
    target = Path(path)
    try:
        if target.is_dir():
            raise FileError(f"{option} {path}: is a directory; give the path of a file")
        if target.exists() and not target.is_file():
            raise FileError(f"{option} {path}: {_NOT_REGULAR}")
        folder = target.parent
        while not folder.exists() and folder != folder.parent:
            if folder.is_symlink():  # a dangling link: mkdir would fail
                break
            folder = folder.parent
    except OSError as exc:  # a name too long, a loop of symbolic links
        raise FileError(f"{option} {path}: {_reason(exc)}; choose another {option} path") from None
    if not folder.is_dir():
        raise FileError(
            f"{option} {path}: {folder} is not a directory; choose another {option} path"
        )
    try:
        fd, tmp = tempfile.mkstemp(prefix=".benchspace-write-check.", dir=folder)
    except OSError as exc:
        raise FileError(
            f"{option} {path}: cannot write in {folder} ({_reason(exc)}); choose another "
            f"{option} path or make the folder writable"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def check_not_input(
    path: str | Path, *, option: str, inputs: Sequence[tuple[str | Path | None, str]]
) -> None:
    """Refuse an output that is one of the command's inputs (`inputs`: (path, what it is))."""
    target = Path(path)
    for other, what in inputs:
        if other is None:
            continue
        same = target.resolve() == Path(other).resolve()
        if same or (target.exists() and Path(other).exists() and target.samefile(other)):
            raise FileError(
                f"{option} {path}: is {what} ({other}); write the output to another file"
            )


def guard_output(
    path: str | Path, *, option: str, inputs: Iterable[tuple[str | Path | None, str]]
) -> None:
    """The one output guard of every command that writes: `path` must be writable
    (`check_output`) and none of the `inputs` the command read (symbolic links resolved)."""
    check_output(path, option=option)
    check_not_input(path, option=option, inputs=list(inputs))


@contextlib.contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold an advisory lock (``flock``) on the sidecar ``PATH.lock`` while `path` is read,
    edited and written, so that two writers of one shared file (two ``port``s into one
    header) run one after the other and neither loses the other's edit. The holder removes
    the sidecar when done; a waiter that then gets the lock of a removed sidecar tries again,
    so nothing is left behind and no two writers ever hold live locks at once."""
    lock = Path(os.path.realpath(path))
    lock = lock.with_name(lock.name + ".lock")
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise write_error(lock, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(lock)
            except FileNotFoundError:
                continue  # the previous holder removed it: lock the new one
            if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
                continue
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(lock)
            return
        finally:
            os.close(fd)  # closing releases the lock


def write_error(path: str | Path, exc: OSError) -> FileError:
    """The one-line error for a failed write (the old file, if any, is unchanged)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return FileError(
            f"{path}: cannot be written ({_reason(exc)}); free some space and re-run "
            "(the previous file, if any, is unchanged)"
        )
    return FileError(
        f"{path}: cannot be written ({_reason(exc)}); choose another path or fix the folder"
    )


def write_bytes_atomic(path: str | Path, data: bytes, *, mode: int | None = None) -> None:
    """Write through a temporary file in the same directory and ``os.replace``; the file gets
    `mode`, else the mode a plain ``open()`` would give (0666 & ~umask). A symbolic link is
    written through: its target gets the new bytes, the link stays."""
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.exists() and not target.is_file() and not target.is_dir():
        # os.replace would put a plain file where a device or a pipe was (/dev/null, as root).
        raise FileError(f"{path}: {_NOT_REGULAR}")
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise write_error(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = None) -> None:
    """Write UTF-8 text atomically (no newline translation)."""
    write_bytes_atomic(path, text.encode("utf-8"), mode=mode)
