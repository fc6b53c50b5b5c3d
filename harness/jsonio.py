"""Deterministic, atomic JSON files: sorted keys, indent 2 (short containers on one line),
trailing newline, temp + replace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def dumps(obj: Any) -> str:
    """Serialise deterministically: sorted keys, indent 2, short containers on one line."""
    parts: list[str] = []
    _write(obj, 0, parts)
    parts.append("\n")
    return "".join(parts)


def _write(obj: Any, column: int, parts: list[str], indent: int = 0) -> None:
    """Append ``obj`` starting at ``column``, its members indented by ``indent + 2``."""
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


def write_json_atomic(path: str | Path, obj: Any) -> None:
    """Write JSON deterministically and atomically."""
    write_text_atomic(path, dumps(obj))
