"""The measurement store: every attempted invocation as one row of an SQLite database (WAL).

A row is written when its attempt has ended, one transaction each, so a sweep killed at any
moment loses only the attempts in flight. The cache key (executable hash + argv + env
overrides + repeat index) finds earlier attempts: an unchanged sweep re-runs nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType

from harness.errors import ProfileError
from harness.measurement import STATUSES, Measurement, Status

STORE_FORMAT = "benchspace-store"
STORE_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    cache_key TEXT NOT NULL,
    bench TEXT NOT NULL,
    case_index INTEGER NOT NULL,
    phase TEXT NOT NULL,
    params TEXT NOT NULL,
    argv TEXT NOT NULL,
    env TEXT NOT NULL,
    exe_sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    value REAL,
    spread REAL,
    row TEXT,
    repeat INTEGER NOT NULL,
    returncode INTEGER,
    stdout_tail TEXT NOT NULL,
    stderr_tail TEXT NOT NULL,
    error TEXT NOT NULL,
    duration_s REAL NOT NULL,
    started_at TEXT NOT NULL,
    host TEXT NOT NULL,
    device TEXT NOT NULL,
    extra TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_key ON attempts (cache_key);
"""

_COLUMNS = (
    "cache_key", "bench", "case_index", "phase", "params", "argv", "env", "exe_sha256",
    "status", "value", "spread", "row", "repeat", "returncode", "stdout_tail", "stderr_tail",
    "error", "duration_s", "started_at", "host", "device", "extra",
)  # fmt: skip


def _dumps(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


class Store:
    """An open measurement store; use as a context manager."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._check_format()
        except sqlite3.DatabaseError as exc:
            raise ProfileError(
                f"{self.path}: not a benchspace measurement store ({exc}); "
                "pass another --store path or move the file away"
            ) from exc

    def _check_format(self) -> None:
        rows = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        if not rows:
            with self._db:
                self._db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("format", STORE_FORMAT), ("version", str(STORE_VERSION))],
                )
            return
        if rows.get("format") != STORE_FORMAT:
            raise ProfileError(f"{self.path}: format {rows.get('format')!r} is not a store")
        version = int(rows.get("version", "0"))
        if version > STORE_VERSION:
            raise ProfileError(
                f"{self.path}: store version {version} is newer than this benchspace "
                f"understands ({STORE_VERSION}); upgrade benchspace"
            )

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def add(self, m: Measurement) -> None:
        """Record one finished attempt (its own transaction)."""
        values = (
            m.cache_key, m.bench, m.case_index, m.phase, _dumps(dict(m.params)),
            _dumps(list(m.argv)), _dumps(dict(m.env)), m.exe_sha256, m.status, m.value,
            m.spread, m.row, m.repeat, m.returncode, m.stdout_tail, m.stderr_tail, m.error,
            m.duration_s, m.started_at, m.host, m.device, _dumps(dict(m.extra)),
        )  # fmt: skip
        placeholders = ", ".join("?" for _ in _COLUMNS)
        with self._db:
            self._db.execute(
                f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values
            )

    def latest(self, keys: Iterable[str]) -> dict[str, Measurement]:
        """The most recent attempt per cache key, for the keys that have one."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Measurement] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            query = (
                f"SELECT {', '.join(_COLUMNS)} FROM attempts WHERE id IN "
                f"(SELECT MAX(id) FROM attempts WHERE cache_key IN ({marks}) GROUP BY cache_key)"
            )
            for row in self._db.execute(query, chunk):
                m = _measurement(row)
                found[m.cache_key] = m
        return found

    def attempts(self, bench: str | None = None) -> Iterator[Measurement]:
        """Every attempt in insertion order, optionally for one bench."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM attempts"
        args: tuple[str, ...] = ()
        if bench is not None:
            query += " WHERE bench = ?"
            args = (bench,)
        for row in self._db.execute(query + " ORDER BY id", args):
            yield _measurement(row)

    def count(self) -> int:
        """Number of attempts recorded."""
        return int(self._db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])


def _measurement(row: tuple[object, ...]) -> Measurement:
    d = dict(zip(_COLUMNS, row, strict=True))
    status = str(d["status"])
    if status not in STATUSES:
        raise ProfileError(f"store row has unknown status {status!r}")
    value = d["value"]
    spread = d["spread"]
    returncode = d["returncode"]
    return Measurement(
        cache_key=str(d["cache_key"]),
        bench=str(d["bench"]),
        case_index=int(str(d["case_index"])),
        phase=str(d["phase"]),
        params=json.loads(str(d["params"])),
        argv=tuple(json.loads(str(d["argv"]))),
        env=json.loads(str(d["env"])),
        exe_sha256=str(d["exe_sha256"]),
        status=_status(status),
        value=None if value is None else float(str(value)),
        spread=None if spread is None else float(str(spread)),
        row=None if d["row"] is None else str(d["row"]),
        repeat=int(str(d["repeat"])),
        returncode=None if returncode is None else int(str(returncode)),
        stdout_tail=str(d["stdout_tail"]),
        stderr_tail=str(d["stderr_tail"]),
        error=str(d["error"]),
        duration_s=float(str(d["duration_s"])),
        started_at=str(d["started_at"]),
        host=str(d["host"]),
        device=str(d["device"]),
        extra=json.loads(str(d["extra"])),
    )


def _status(text: str) -> Status:
    for status in STATUSES:
        if status == text:
            return status
    raise ProfileError(f"store row has unknown status {text!r}")
