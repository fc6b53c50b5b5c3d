"""Strings no subprocess, environment or C++ file can carry, refused where a space is loaded.

A NUL character ends a C string (an argv entry, an env value, a row name compared by the
benchmark), and a lone surrogate is not Unicode text (it cannot be encoded for a subprocess
or written to a header). Both are valid JSON escapes (``"\\u0000"``, ``"\\ud800"``), so the
schema lets them through; every string of the document, keys included, is checked here, in
file order, with its JSON path.
"""

from __future__ import annotations

from typing import Any

from benchspace.harness.errors import json_path


def string_problems(data: Any, *where: str | int) -> list[str]:
    """``$.path: 'value' holds a NUL character; remove it`` for each bad string in `data`."""
    out: list[str] = []
    if isinstance(data, str):
        problem = _problem(data)
        if problem:
            out.append(f"{json_path(*where)}: {data!r} holds {problem}; remove it")
    elif isinstance(data, dict):
        for key, value in data.items():
            out += string_problems(key, *where) if _problem(str(key)) else []
            out += string_problems(value, *where, str(key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            out += string_problems(item, *where, index)
    return out


def _problem(text: str) -> str:
    if "\0" in text:
        return "a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate (not Unicode text)"
    return ""
