"""The store's ``builds`` table: one row per attempt to build a variant.

Store version 2 added it; a version-1 store gains the (empty) table when it is next opened for
writing (``upgrade_builds``), so its measurements stay where they are.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from benchspace.harness.variants.spec import BUILD_STATUSES, BuildAttempt, BuildStatus

BUILDS_SCHEMA = """
CREATE TABLE IF NOT EXISTS builds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    variant_key TEXT NOT NULL,
    bench TEXT NOT NULL,
    compile_values TEXT NOT NULL,
    status TEXT NOT NULL,
    seconds REAL NOT NULL,
    log_tail TEXT NOT NULL,
    artefact_sha256 TEXT NOT NULL,
    path TEXT NOT NULL,
    command TEXT NOT NULL,
    compiler TEXT NOT NULL,
    started_at TEXT NOT NULL,
    host TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS builds_key ON builds (variant_key);
"""

_COLUMNS = (
    "variant_key", "bench", "compile_values", "status", "seconds", "log_tail",
    "artefact_sha256", "path", "command", "compiler", "started_at", "host",
)  # fmt: skip
_INSERT = f"INSERT INTO builds ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM builds"


def upgrade_builds(db: sqlite3.Connection) -> None:
    """Create the table where it is missing (a fresh store, or one of version 1)."""
    db.executescript(BUILDS_SCHEMA)


def insert_build(db: sqlite3.Connection, attempt: BuildAttempt) -> None:
    """Record one build attempt (its own transaction)."""
    db.execute(
        _INSERT,
        (
            attempt.key, attempt.bench, json.dumps([[n, v] for n, v in attempt.values]),
            attempt.status, attempt.seconds, attempt.log_tail, attempt.artefact_sha256,
            attempt.path, json.dumps(list(attempt.command)), attempt.compiler,
            attempt.started_at, attempt.host,
        ),
    )  # fmt: skip


def select_builds(
    db: sqlite3.Connection, *, key: str | None = None, bench: str | None = None
) -> Iterator[BuildAttempt]:
    """Build attempts in the order they were recorded, optionally of one variant or bench."""
    where, args = [], []
    if key is not None:
        where.append("variant_key = ?")
        args.append(key)
    if bench is not None:
        where.append("bench = ?")
        args.append(bench)
    query = _SELECT + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id"
    for row in db.execute(query, args):
        yield _attempt(row)


def _attempt(row: tuple[Any, ...]) -> BuildAttempt:
    key, bench, values, status, seconds, log_tail, sha, path, command, compiler, at, host = row
    return BuildAttempt(
        key=str(key),
        bench=str(bench),
        values=tuple((str(n), v) for n, v in json.loads(str(values))),
        status=_status(str(status)),
        seconds=float(seconds),
        log_tail=str(log_tail),
        artefact_sha256=str(sha),
        path=str(path),
        command=tuple(json.loads(str(command))),
        compiler=str(compiler),
        started_at=str(at),
        host=str(host),
    )


def _status(text: str) -> BuildStatus:
    for status in BUILD_STATUSES:
        if status == text:
            return status
    return "build_failed"  # a status from elsewhere is not an artefact to reuse
