"""The measurement store: every attempted invocation as one row of an SQLite database (WAL).

A row is written when its attempt has ended, one transaction each, so a sweep killed at any
moment loses only the attempts in flight. Commits do not fsync (WAL, ``synchronous=NORMAL``:
a killed process loses nothing, a power cut at most the last transactions), and the log is
copied into the database by a background checkpoint, so no commit waits for the disk. The
cache key (executable hash + argv + env overrides + repeat index) finds earlier attempts: an
unchanged sweep re-runs nothing.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType

from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import Measurement
from benchspace.harness.store_check import (
    STORE_FORMAT,
    STORE_VERSION,
    check_store,
    hold_lock,
    store_error,
)
from benchspace.harness.store_rows import damaged_file, read_rows
from benchspace.harness.variants.records import insert_build, select_builds, upgrade_builds
from benchspace.harness.variants.spec import BuildAttempt

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


_INSERT = (
    f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
)


def _dumps(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def _not_recorded(path: Path, exc: sqlite3.OperationalError) -> ProfileError:
    return ProfileError(
        f"{path}: cannot record a measurement ({exc}); free some space or fix the file and "
        "re-run: the measurements recorded so far are kept"
    )


def _values(m: Measurement) -> tuple[object, ...]:
    return (
        m.cache_key, m.bench, m.case_index, m.phase, _dumps(dict(m.params)),
        _dumps(list(m.argv)), _dumps(dict(m.env)), m.exe_sha256, m.status, m.value,
        m.spread, m.row, m.repeat, m.returncode, m.stdout_tail, m.stderr_tail, m.error,
        m.duration_s, m.started_at, m.host, m.device, _dumps(dict(m.extra)),
    )  # fmt: skip


class Store:
    """An open measurement store; use as a context manager.

    The file is checked read-only before anything is written to it (``check_store``): a file
    that is not a benchspace store (another SQLite database, a future version, a damaged
    ``meta`` table) is refused unchanged. With ``lock``, the store is held for one writer: a
    second sweep on the same store waits for the first to finish (an exclusive ``flock`` on
    ``<store>.lock``; ``on_wait`` is told once), then finds everything the first one measured
    in the cache and runs only the rest.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        lock: bool = False,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._checkpointer: _Checkpointer | None = None
        self._since_checkpoint = 0
        self._lock = None
        if lock:
            check_store(self.path, _COLUMNS)  # refuse a foreign file before making a lock file
            self._lock = hold_lock(self.path, on_wait)
        try:
            self._open()
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    def _open(self) -> None:
        fresh = check_store(self.path, _COLUMNS)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProfileError(
                f"{self.path.parent}: cannot create the store's directory ({exc.strerror}); "
                "pass another --store path"
            ) from None
        try:
            # Autocommit: an INSERT is its own transaction (no BEGIN and COMMIT statements
            # around it), which is all a row needs.
            self._db = sqlite3.connect(
                self.path, timeout=30.0, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            # A page cache large enough for the cache-key index of a 10^6-row store (the
            # default 2 MiB makes every lookup and insert a read at that size).
            self._db.execute("PRAGMA cache_size=-262144")
            if fresh:
                self._db.executescript(_SCHEMA)
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                    [("format", STORE_FORMAT), ("version", str(STORE_VERSION))],
                )
                self._db.execute("COMMIT")
            self._upgrade()
            # Checkpoints (copying the log into the database, with an fsync that can take
            # tens of milliseconds) run in a thread of their own, never inside a commit.
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            # A log restarted after a checkpoint is also cut back to this size on disk.
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_PAGES * 4096}")
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc) from None

    def _upgrade(self) -> None:
        """Version 1 → 2: the ``builds`` table (compile-time variants); nothing else moves."""
        upgrade_builds(self._db)  # CREATE ... IF NOT EXISTS: a no-op on a current store
        row = self._db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if row is not None and str(row[0]) != str(STORE_VERSION):
            self._db.execute(
                "UPDATE meta SET value = ? WHERE key = 'version'", (str(STORE_VERSION),)
            )

    def add_build(self, attempt: BuildAttempt) -> None:
        """Record one attempt to build a variant (the ``builds`` table)."""
        try:
            insert_build(self._db, attempt)
        except sqlite3.OperationalError as exc:
            raise _not_recorded(self.path, exc) from None

    def builds(self, *, key: str | None = None, bench: str | None = None) -> list[BuildAttempt]:
        """Build attempts in recorded order, optionally of one variant key or one bench."""
        return list(select_builds(self._db, key=key, bench=bench))

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
        """Checkpoint what the log holds and close the connection."""
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _logged(self, rows: int = 1) -> None:
        """Count committed rows; every CHECKPOINT_ROWS of them, ask for a checkpoint."""
        self._since_checkpoint += rows
        if self._since_checkpoint >= CHECKPOINT_ROWS:
            self._since_checkpoint = 0
            if self._checkpointer is None:
                self._checkpointer = _Checkpointer(self.path)
            self._checkpointer.request()

    def add(self, m: Measurement) -> None:
        """Record one finished attempt (one statement, its own transaction)."""
        try:
            self._db.execute(_INSERT, _values(m))
        except sqlite3.OperationalError as exc:  # a full disk, a read-only or vanished file
            raise _not_recorded(self.path, exc) from None
        except sqlite3.DatabaseError as exc:  # a damaged page, a constraint that is not ours
            raise damaged_file(self.path, exc) from None
        self._logged()

    def add_many(self, ms: Sequence[Measurement]) -> None:
        """Record attempts that ended together (one batched process) in one transaction."""
        if len(ms) < 2:
            for m in ms:
                self.add(m)
            return
        try:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(_INSERT, map(_values, ms))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            raise _not_recorded(self.path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None
        self._logged(len(ms))

    def _read(self, query: str, args: tuple[object, ...]) -> Iterator[Measurement]:
        try:
            cursor = self._db.execute(query, args)
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None
        return read_rows(self.path, cursor)

    def find(self, key: str) -> Measurement | None:
        """The most recent attempt with this cache key, if any."""
        return next(self._read(self._find_query, (key,)), None)

    _find_query = (
        f"SELECT id, {', '.join(_COLUMNS)} FROM attempts WHERE cache_key = ? "
        "AND status != 'unavailable' ORDER BY id DESC LIMIT 1"
    )
    """An ``unavailable`` attempt (the executable could not start) is never a cache hit."""

    def latest(self, bench: str) -> dict[str, Measurement]:
        """Per cache key, the bench's most recent attempt that can be a cache hit (what
        ``find`` answers, for every key of the bench in one query)."""
        query = (
            f"SELECT id, {', '.join(_COLUMNS)} FROM attempts WHERE id IN (SELECT MAX(id) FROM "
            "attempts WHERE bench = ? AND status != 'unavailable' GROUP BY cache_key)"
        )
        return {m.cache_key: m for m in self._read(query, (bench,))}

    def latest_of(self, bench: str, keys: Sequence[str]) -> dict[str, tuple[int, Measurement]]:
        """`latest` for these cache keys only, each with its row id (a sweep asks for its plan
        a slice at a time instead of holding the bench's every attempt)."""
        out: dict[str, tuple[int, Measurement]] = {}
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            part = list(keys[start : start + _KEYS_PER_QUERY])
            marks = ", ".join("?" * len(part))
            query = (
                f"SELECT id, {', '.join(_COLUMNS)} FROM attempts WHERE id IN (SELECT MAX(id) "
                f"FROM attempts WHERE cache_key IN ({marks}) AND bench = ? AND status != "
                "'unavailable' GROUP BY cache_key)"
            )
            try:
                rows = self._db.execute(query, (*part, bench)).fetchall()
            except sqlite3.DatabaseError as exc:
                raise damaged_file(self.path, exc) from None
            for row, m in zip(rows, read_rows(self.path, iter(rows)), strict=True):
                out[m.cache_key] = (int(row[0]), m)
        return out

    def last_id(self) -> int:
        """The row id of the newest attempt (0 in an empty store): attempts stored later have
        larger ids."""
        try:
            row = self._db.execute("SELECT MAX(id) FROM attempts").fetchone()
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None
        return int(row[0] or 0)

    def attempts(self, bench: str | None = None) -> Iterator[Measurement]:
        """Every attempt in insertion order, optionally for one bench."""
        query = f"SELECT id, {', '.join(_COLUMNS)} FROM attempts"
        args: tuple[str, ...] = ()
        if bench is not None:
            query += " WHERE bench = ?"
            args = (bench,)
        yield from self._read(query + " ORDER BY id", args)

    def span(self) -> tuple[int, str, str]:
        """(attempts, first and last started_at) of the campaign the store holds."""
        query = "SELECT COUNT(*), MIN(started_at), MAX(started_at) FROM attempts"
        try:
            n, first, last = self._db.execute(query).fetchone()
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None
        return int(n), str(first or ""), str(last or "")

    def executables(self, bench: str) -> list[tuple[str, int, str]]:
        """(executable sha256, attempts, the last one's started_at) of each build of the bench's
        executable the store holds attempts of, the most recent build first."""
        query = (
            "SELECT exe_sha256, COUNT(*), MAX(started_at) FROM attempts WHERE bench = ? "
            "AND status != 'unavailable' GROUP BY exe_sha256 ORDER BY MAX(id) DESC"
        )
        try:
            rows = self._db.execute(query, (bench,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None
        return [(str(sha), int(n), str(last or "")) for sha, n, last in rows]

    def count(self) -> int:
        """Number of attempts recorded."""
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise damaged_file(self.path, exc) from None


_KEYS_PER_QUERY = 500
"""Cache keys per ``latest_of`` query (SQLite allows 999 parameters in older builds)."""


CHECKPOINT_ROWS = 256
"""Rows between checkpoints (about 700 pages of log; SQLite's own default is 1000 pages)."""


WAL_LIMIT_PAGES = 4096
"""Log pages (16 MiB at SQLite's default page size) beyond which the background checkpoint
truncates the log, so that it stays bounded however fast rows arrive."""


class _Checkpointer:
    """A thread with its own connection that checkpoints the log when asked (a passive
    checkpoint: it never blocks the writer; SQLite releases the interpreter while it works)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wanted = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="store-checkpoint", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wanted.set()

    def stop(self) -> None:
        self._stopping = True
        self._wanted.set()
        self._thread.join()

    def _run(self) -> None:
        db = sqlite3.connect(self._path, timeout=30.0)
        try:
            while True:
                self._wanted.wait()
                self._wanted.clear()
                if self._stopping:
                    return
                with contextlib.suppress(sqlite3.Error):
                    _busy, logged, _done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if logged > WAL_LIMIT_PAGES:
                        # The writer outran the passive checkpoints (it never paused for one
                        # to finish, so the log was never restarted): copy it all and truncate
                        # it, holding the writer back for that one moment.
                        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            db.close()
