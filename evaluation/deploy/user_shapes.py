"""A user's GEMM shapes for ``benchspace cutlass tune-shapes``: text lines, JSON or ``MxNxK``.

Accepted inputs:

* a text file of ``M N K`` lines (commas or ``x`` between the numbers are fine too; ``#``
  starts a comment, blank lines are skipped);
* a JSON file: a shape-set document (``{"train": [...], "eval": [...]}``, both parts taken), a
  ``{"shapes": [...]}`` document, or a bare list; each shape an object with ``M``, ``N``, ``K``
  or a three-number list;
* ``--shape MxNxK`` words.

Duplicates are dropped (first occurrence kept), so each user shape is one case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchspace.harness.errors import UsageError
from benchspace.harness.files import decode, parse_json, read_bytes

Shape = tuple[int, int, int]
_SEPARATORS = re.compile(r"[\s,x]+")


def parse_shape_word(text: str, origin: str = "--shape") -> Shape:
    """``MxNxK`` (or ``M,N,K``, ``M N K``) as three positive integers."""
    parts = [p for p in _SEPARATORS.split(text.strip()) if p]
    try:
        values = [int(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 3 or min(values) < 1:
        raise UsageError(f"{origin}: {text!r} is not a shape; write M N K or MxNxK (positive)")
    _bounded(values, f"{origin}: {text!r}")
    return values[0], values[1], values[2]


MAX_DIM = 2**31
"""CUTLASS takes GEMM dimensions as 32-bit integers."""


def _bounded(values: Sequence[int], where: str) -> None:
    for name, value in zip("MNK", values, strict=True):
        if value >= MAX_DIM:
            raise UsageError(
                f"{where}: {name} = {value} must be below 2^31 (CUTLASS takes 32-bit dimensions)"
            )


def _json_shape(item: Any, where: str) -> Shape:
    if isinstance(item, dict) and {"M", "N", "K"} <= set(item):
        values = [item["M"], item["N"], item["K"]]
    elif isinstance(item, list) and len(item) == 3:
        values = item
    else:
        raise UsageError(f"{where}: {item!r} is not a shape; write {{'M':..,'N':..,'K':..}}")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
        raise UsageError(f"{where}: {item!r}: M, N and K must be positive integers")
    _bounded(values, f"{where}: {item!r}")
    return int(values[0]), int(values[1]), int(values[2])


def _json_shapes(data: Any, origin: str) -> list[Shape]:
    if isinstance(data, list):
        return [_json_shape(s, f"{origin}: $[{i}]") for i, s in enumerate(data)]
    if isinstance(data, dict):
        parts = [p for p in ("shapes", "train", "eval") if isinstance(data.get(p), list)]
        if parts:
            return [
                _json_shape(s, f"{origin}: $.{p}[{i}]")
                for p in parts
                for i, s in enumerate(data[p])
            ]
    raise UsageError(f"{origin}: no shapes; give a list, or a 'shapes' (or 'train'/'eval') list")


def parse_shapes_text(text: str, origin: str) -> list[Shape]:
    """Shapes from a file's text (JSON when it starts with ``{`` or ``[``, else lines)."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        data = parse_json(text, origin, error=UsageError, kind="shapes file")
        return _json_shapes(data, origin)
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if body:
            out.append(parse_shape_word(body, f"{origin}:{number}"))
    return out


def read_user_shapes(files: Sequence[str | Path], words: Iterable[str]) -> list[Shape]:
    """Every shape of ``files`` then of ``words``, duplicates dropped; at least one."""
    shapes: list[Shape] = []
    for file in files:
        blob = read_bytes(file, error=UsageError, kind="shapes file")
        text = decode(blob, str(file), error=UsageError, bom=True)
        shapes += parse_shapes_text(text, str(file))
    shapes += [parse_shape_word(w) for w in words]
    unique = list(dict.fromkeys(shapes))
    if not unique:
        raise UsageError("no shapes: give a SHAPES file or --shape MxNxK")
    return unique
