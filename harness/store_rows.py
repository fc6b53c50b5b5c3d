"""Reading a store's rows back: each column checked for what it holds, damage named by row.

A row SQLite returns is turned into a ``Measurement`` only when every column holds what the
store writes (JSON objects and lists of the right shape, integers, numbers, a known status);
anything else, and a page SQLite cannot read, is one ``ProfileError`` naming the store, the
table, the row id and the fix.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import STATUSES, Measurement, Status

DAMAGED_FIX = "re-run with --rerun (measures again) or pass a new --store"


class _Damaged(Exception):
    """A stored value that is not what the column holds (the row is named by the caller)."""


def damaged_row(path: Path, row_id: object, what: str) -> ProfileError:
    """The one line for a row that cannot be read."""
    return ProfileError(
        f"{path}: table attempts, row {row_id}: {what}; the store is damaged: {DAMAGED_FIX}"
    )


def damaged_file(path: Path, exc: sqlite3.Error) -> ProfileError:
    """The one line for a store SQLite cannot read (a zeroed or torn page)."""
    return ProfileError(f"{path}: table attempts: the file is damaged ({exc}); {DAMAGED_FIX}")


def read_rows(path: Path, cursor: Iterator[tuple[Any, ...]]) -> Iterator[Measurement]:
    """Measurements of ``(id, *columns)`` rows; damage is one ProfileError naming the row."""
    try:
        for row in cursor:
            try:
                yield _measurement(row[1:])
            except _Damaged as exc:
                raise damaged_row(path, row[0], str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise damaged_file(path, exc) from None


def _measurement(row: tuple[Any, ...]) -> Measurement:
    (
        cache_key, bench, case_index, phase, params, argv, env, exe_sha256, status, value,
        spread, row_name, repeat, returncode, stdout_tail, stderr_tail, error, duration_s,
        started_at, host, device, extra,
    ) = row  # fmt: skip
    return Measurement(
        cache_key=str(cache_key),
        # Words every row of a sweep repeats are kept once (a store of 10^6 rows is read
        # whole by an unchanged re-run).
        bench=sys.intern(str(bench)),
        case_index=_int("case_index", case_index),
        phase=sys.intern(str(phase)),
        params=_object("params", params),
        argv=tuple(map(sys.intern, _texts("argv", argv))),
        env=_env(env),
        exe_sha256=sys.intern(str(exe_sha256)),
        status=_status(status),
        value=_number("value", value),
        spread=_number("spread", spread),
        row=None if row_name is None else str(row_name),
        repeat=_int("repeat", repeat),
        returncode=None if returncode is None else _int("returncode", returncode),
        stdout_tail=str(stdout_tail),
        stderr_tail=str(stderr_tail),
        error=str(error),
        duration_s=_number("duration_s", duration_s) or 0.0,
        started_at=sys.intern(str(started_at)),
        host=sys.intern(str(host)),
        device=sys.intern(str(device)),
        extra=_object("extra", extra),
    )


def _int(column: str, value: object) -> int:
    if type(value) is int:
        return value
    raise _Damaged(f"{column} {value!r} is not an integer")


def _number(column: str, value: object) -> float | None:
    if value is None:
        return None
    if type(value) is float or type(value) is int:
        return float(value)
    raise _Damaged(f"{column} {value!r} is not a number")


def _loads(column: str, text: object) -> Any:
    # Most rows have no environment overrides and no extras: skip the parser for those.
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if not isinstance(text, str):
        raise _Damaged(f"{column} is not JSON text")
    try:
        return json.loads(text)
    except ValueError as exc:
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise _Damaged(f"{column} is not JSON ({msg})") from None


def _object(column: str, text: object) -> dict[str, Any]:
    value = _loads(column, text)
    if not isinstance(value, dict):
        raise _Damaged(f"{column} is not a JSON object")
    return value


def _texts(column: str, text: object) -> list[str]:
    value = _loads(column, text)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Damaged(f"{column} is not a JSON list of strings")
    return value


def _env(text: object) -> dict[str, str | None]:
    value = _loads("env", text)
    if not isinstance(value, dict) or not all(
        v is None or isinstance(v, str) for v in value.values()
    ):
        raise _Damaged("env is not a JSON object of strings")
    return value


def _status(text: object) -> Status:
    for status in STATUSES:
        if status == text:
            return status
    raise _Damaged(f"unknown status {text!r} (known: {', '.join(STATUSES)})")
