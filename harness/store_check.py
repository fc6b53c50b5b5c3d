"""Before a store is opened for writing: is the file a benchspace store, and is it free?

``check_store`` reads the file through a read-only SQLite connection (``mode=ro``) and
refuses, without changing a byte, anything that is not a benchspace measurement store of a
version this benchspace understands. ``hold_lock`` makes one sweep at a time the writer of a
store: an exclusive ``flock`` on ``<store>.lock`` (released by the kernel when the process
dies, so a stale lock file never blocks anyone); a second sweep waits for the first, says so
once, and then finds the first one's measurements in the cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import sys
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

from benchspace.harness.errors import ProfileError

STORE_FORMAT = "benchspace-store"
STORE_VERSION = 2
"""2: the ``builds`` table (compile-time variants) beside ``attempts``."""

_FIX = "pass another --store path or move the file away"


def store_error(path: Path, exc: sqlite3.Error) -> ProfileError:
    """The one-line error for an SQLite failure on a store (a lock has its own)."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return ProfileError(
            f"{path}: the store is locked by another process ({text}); wait until it is "
            "done, or pass another --store path"
        )
    if "not a database" in text:
        return ProfileError(f"{path}: not a benchspace measurement store (not an SQLite "
                            f"database: {text}); {_FIX}")  # fmt: skip
    return ProfileError(f"{path}: cannot be read as a measurement store ({text}); {_FIX}")


def _ro_uri(path: Path) -> str:
    """A read-only URI. Without a write-ahead log beside the file there is nothing but the
    file to read, and ``immutable`` keeps SQLite from creating the ``-shm`` and ``-wal``
    files a read-only reader of a WAL database otherwise leaves behind."""
    uri = "file:" + urllib.parse.quote(str(path.absolute())) + "?mode=ro"
    return uri if Path(f"{path}-wal").exists() else uri + "&immutable=1"


def check_store(path: Path, columns: Sequence[str]) -> bool:
    """Refuse (ProfileError) a file that is not a benchspace store; True when there is none
    yet (no file, an empty file or database, or benchspace's own tables left empty by a killed
    start)."""
    if path.is_dir():
        raise ProfileError(f"{path}: is a directory, not a measurement store; {_FIX}")
    if not path.exists() or path.stat().st_size == 0:
        return True
    try:
        db = sqlite3.connect(_ro_uri(path), uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        raise store_error(path, exc) from None
    try:
        tables = {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return True  # an empty database (one being created): nothing in it to lose
        if "meta" not in tables or "attempts" not in tables:
            raise ProfileError(
                f"{path}: not a benchspace measurement store (an SQLite database without its "
                f"meta and attempts tables); {_FIX}"
            )
        triggers = sorted(
            str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        )
        if triggers:  # benchspace makes none: one would change or refuse what a sweep writes
            raise ProfileError(
                f"{path}: table attempts has a trigger benchspace did not make "
                f"({', '.join(triggers)}); the store is damaged: pass a new --store"
            )
        have = {str(r[1]) for r in db.execute("PRAGMA table_info(attempts)")}
        lacking = [c for c in ("id", *columns) if c not in have]
        if lacking:
            raise ProfileError(
                f"{path}: not a benchspace measurement store (its attempts table lacks "
                f"{', '.join(lacking)}); {_FIX}"
            )
        meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
        if not meta:
            if db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 0:
                return True
            raise ProfileError(f"{path}: a measurement store without its meta rows; {_FIX}")
        _check_meta(path, meta)
    except sqlite3.Error as exc:
        raise store_error(path, exc) from None
    finally:
        db.close()
    return False


def _check_meta(path: Path, meta: dict[str, str]) -> None:
    if meta.get("format") != STORE_FORMAT:
        raise ProfileError(
            f"{path}: not a benchspace measurement store (format {meta.get('format')!r}, "
            f"expected {STORE_FORMAT!r}); {_FIX}"
        )
    text = meta.get("version", "")
    if not text.isdigit():
        raise ProfileError(
            f"{path}: store version {text!r} is not a whole number; the store is damaged: {_FIX}"
        )
    if int(text) > STORE_VERSION:
        raise ProfileError(
            f"{path}: store version {int(text)} is newer than this benchspace understands "
            f"({STORE_VERSION}); upgrade benchspace"
        )


class StoreLock:
    """An exclusive flock held on ``<store>.lock`` until ``release``."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        """Unlock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def hold_lock(path: Path, on_wait: Callable[[str], None] | None = None) -> StoreLock:
    """Become the one writer of the store at ``path``, waiting for another sweep if need be."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise ProfileError(
            f"{lock_path}: cannot create the store's lock file ({exc.strerror}); {_FIX}"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            (on_wait or _say)(
                f"waiting for PID {holder}, which is sweeping into {path}, to finish (lock "
                f"{lock_path}); then only what it did not measure runs"
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return StoreLock(fd)
