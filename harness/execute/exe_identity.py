"""The identity of an executable, checked per invocation: stat first, re-hash only on change.

A benchmark executable can be rebuilt while a sweep runs. Every invocation asks for the
executable's sha256 just before it starts; a stat (device, inode, size, mtime) that matches
the last one seen answers from the cache in microseconds, anything else re-hashes the file.
A sha that differs from the last one known for the path is a *change*: it is recorded here
(``take_changes``) for the sweep to report, and the invocation runs — and is stored — under
the sha of the binary that actually runs, so a rebuilt binary's numbers never serve the old
one's cache key (putting the old binary back finds the old binary's rows only).

What a stat cannot see: a file rewritten in place within one mtime tick keeping its size, and
a replacement between the stat and the exec (microseconds). Both are left to the hash taken
at the next check.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_Stat = tuple[int, int, int, int]


@dataclass(frozen=True, kw_only=True)
class ExecutableChange:
    """An executable whose content changed while benchspace ran."""

    path: str
    old_sha256: str
    new_sha256: str
    seen_at: str
    """ISO time (UTC) of the check that saw the change."""

    def line(self) -> str:
        """One warning line for the terminal."""
        return (
            f"warning: {self.path} changed during the sweep (sha256 {self.old_sha256[:12]} -> "
            f"{self.new_sha256[:12]}); later rows carry the new sha and are cached under it"
        )

    def as_dict(self) -> dict[str, str]:
        """The change as recorded in a profile's provenance."""
        return {
            "path": self.path,
            "old_sha256": self.old_sha256,
            "new_sha256": self.new_sha256,
            "seen_at": self.seen_at,
        }


_LOCK = threading.Lock()
_KNOWN: dict[str, tuple[_Stat, str]] = {}
_CHANGES: list[ExecutableChange] = []


def _stat_key(st: os.stat_result) -> _Stat:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _hash(path: str) -> tuple[_Stat, str]:
    """The file's stat and sha256, from one open file; retried while the file is being
    written (its stat changes under the hash)."""
    for _ in range(5):
        with open(path, "rb") as fh:
            before = _stat_key(os.fstat(fh.fileno()))
            digest = hashlib.sha256()
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
            if _stat_key(os.stat(path)) == before:
                return before, digest.hexdigest()
    return before, digest.hexdigest()


def current_sha256(path: str | Path) -> str:
    """The sha256 of the file at ``path`` now (OSError when it cannot be read)."""
    key = os.path.abspath(path)
    seen = _stat_key(os.stat(key))
    with _LOCK:
        known = _KNOWN.get(key)
    if known is not None and known[0] == seen:
        return known[1]
    stat, sha = _hash(key)
    with _LOCK:
        previous = _KNOWN.get(key)
        if previous is not None and previous[1] != sha:
            when = datetime.now(UTC).isoformat(timespec="seconds")
            _CHANGES.append(
                ExecutableChange(path=key, old_sha256=previous[1], new_sha256=sha, seen_at=when)
            )
        _KNOWN[key] = (stat, sha)
    return sha


def take_changes() -> list[ExecutableChange]:
    """The changes seen since the last call (each is reported once)."""
    with _LOCK:
        out = list(_CHANGES)
        _CHANGES.clear()
    return out
