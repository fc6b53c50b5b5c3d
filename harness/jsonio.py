"""Deterministic, atomic JSON files: sorted keys, indent 2 (short containers on one line),
trailing newline, temp + replace."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from benchspace.harness import files

WIDTH = 100
"""A container whose one-line form fits in this many columns (indent included) is written on
one line; larger ones get one member per line. Short records (a measurement's params, an
argv) stay readable at a glance, and most of the text comes from the C encoder, which a
fully indented dump (the pure-Python encoder) would not use: a profile of thousands of
measurements is written several times faster."""

TABLE_ROWS = 16
"""An array of more objects than this (a profile's measurements) is a table: one object per
line, whatever its width."""

_compact = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(", ", ": "), allow_nan=True
).encode


class Table:
    """A long array of objects made one at a time as it is written (a profile's measurements):
    ``write_json_atomic`` never holds more than one of its rows as data, ``dumps`` writes it as
    the list it stands for."""

    __slots__ = ("_items", "_make")

    def __init__(self, items: Sequence[Any], make: Callable[[Any], dict[str, Any]]) -> None:
        self._items = items
        self._make = make

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._make(item) for item in self._items)


class _Parts(Protocol):
    def append(self, text: str, /) -> None: ...


def dumps(obj: Any) -> str:
    """Serialise deterministically: sorted keys, indent 2, short containers on one line."""
    parts: list[str] = []
    _write(obj, 0, parts)
    parts.append("\n")
    return "".join(parts)


def _write(obj: Any, column: int, parts: _Parts, indent: int = 0) -> None:
    """Append ``obj`` starting at ``column``, its members indented by ``indent + 2``."""
    if isinstance(obj, Table) and len(obj) <= TABLE_ROWS:
        obj = list(obj)  # not a table: written as any short list
    if isinstance(obj, Table):  # rows of a measurement's many keys: never one line
        inner = " " * (indent + 2)
        parts.append("[")
        for i, item in enumerate(obj):
            parts.append(("," if i else "") + "\n" + inner + _compact(item))
        parts.append("\n" + " " * indent + "]")
        return
    if not isinstance(obj, dict | list | tuple) or not obj:
        parts.append(_compact(obj))
        return
    if _at_least(obj, WIDTH - column) <= WIDTH - column:
        text = _compact(obj)
        if column + len(text) <= WIDTH:
            parts.append(text)
            return
    inner = " " * (indent + 2)
    if isinstance(obj, dict):
        parts.append("{")
        for i, key in enumerate(sorted(obj)):  # as sort_keys: by the key, then as text
            name = _compact(key if isinstance(key, str) else _compact(key)) + ": "
            parts.append(("," if i else "") + "\n" + inner + name)
            _write(obj[key], indent + 2 + len(name), parts, indent + 2)
        parts.append("\n" + " " * indent + "}")
        return
    parts.append("[")
    table = len(obj) > TABLE_ROWS and all(isinstance(item, dict) for item in obj)
    for i, item in enumerate(obj):
        parts.append(("," if i else "") + "\n" + inner)
        if table:
            parts.append(_compact(item))
        else:
            _write(item, indent + 2, parts, indent + 2)
    parts.append("\n" + " " * indent + "]")


def _at_least(obj: Any, limit: int) -> int:
    """A lower bound of ``obj``'s one-line length, counted only until it passes ``limit``
    (so a large container is known not to fit without encoding it)."""
    if isinstance(obj, str):
        return len(obj) + 2
    if isinstance(obj, Table):
        return limit + 1
    if isinstance(obj, dict):
        items: Any = obj.items()
    elif isinstance(obj, list | tuple):
        items = obj
    else:
        return 1
    total = 2
    for item in items:
        if isinstance(item, tuple) and isinstance(obj, dict):
            total += _at_least(item[0], limit - total) + 2 + _at_least(item[1], limit - total)
        else:
            total += _at_least(item, limit - total) + 2
        if total > limit:
            break
    return total


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write text through a temporary file in the same directory and ``os.replace`` (a failed
    write is a one-line error of harness/files.py and keeps the old file)."""
    files.write_text_atomic(path, text)


class _File:
    """Text pieces written to a binary file in chunks of about a megabyte."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh
        self._parts: list[str] = []
        self._size = 0

    def append(self, text: str, /) -> None:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= 1 << 20:
            self.flush()

    def flush(self) -> None:
        self._fh.write("".join(self._parts).encode("utf-8"))
        self._parts.clear()
        self._size = 0


def write_json_atomic(path: str | Path, obj: Any) -> None:
    """Write JSON deterministically and atomically (the text as ``dumps`` gives it), streamed to
    a temporary file in the same directory and ``os.replace``d: a document of a million rows
    is never held as one string (a failed write is a one-line error of harness/files.py and
    keeps the old file)."""
    target = Path(path)
    if target.exists() and not target.is_file() and not target.is_dir():
        files.write_bytes_atomic(path, b"")  # the one error for a device or a pipe
    umask = os.umask(0)
    os.umask(umask)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise files.write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            sink = _File(fh)
            _write(obj, 0, sink)
            sink.append("\n")
            sink.flush()
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise files.write_error(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
