"""Reading a space file strictly: JSON, then the shipped JSON Schema, in messages one can act on."""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from benchspace.harness.errors import SpaceError, json_path
from benchspace.harness.files import decode, parse_json, read_bytes

SCHEMA_RESOURCE = "space-1.schema.json"

_TYPE_WORDS = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean (true or false)",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


@cache
def space_schema() -> dict[str, Any]:
    """The shipped Draft 2020-12 schema of space format 1."""
    text = (
        resources.files("benchspace.harness").joinpath("schema", SCHEMA_RESOURCE).read_text("utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator() -> Draft202012Validator:
    schema = space_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def show(value: object) -> str:
    """Render a JSON value for a message: strings quoted, JSON literals as JSON, long values cut."""
    if isinstance(value, str):
        text = repr(value)
    elif value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, int | float):
        text = repr(value)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= 60 else text[:57] + "..."


def _words(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _expected(schema_type: Any) -> str:
    types = [schema_type] if isinstance(schema_type, str) else list(schema_type or [])
    if "number" in types and "integer" in types:
        types.remove("integer")
    return _words([_TYPE_WORDS.get(str(t), str(t)) for t in types])


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A ` (did you mean 'x'?)` suffix for the closest choice, or nothing."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _unknown_keys(error: ValidationError) -> list[tuple[list[str | int], str]]:
    """One message per key that additionalProperties refused, located by the key for sorting."""
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    known = list(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    base = list(error.absolute_path)
    out: list[tuple[list[str | int], str]] = []
    for key in instance:
        if key in known or key.startswith("_"):
            continue
        if not known and any(_matches(p, key) for p in patterns):
            continue
        if known:
            message = (
                f"unknown key {show(key)}{did_you_mean(key, known)}; "
                "remove it or prefix it with '_' to make it a comment"
            )
        else:
            what = schema.get("x-what", "key")
            hint = schema.get("x-name-hint", "rename it")
            message = f"{show(key)} is not a valid {what}; {hint}"
        out.append(([*base, key], message))
    return out


def _matches(pattern: str, key: str) -> bool:
    return re.search(pattern, key) is not None


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _message(error: ValidationError) -> str:
    """The human sentence for one schema error (never more than one line)."""
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    hint = schema.get("x-hint")
    value: Any = error.instance
    kind = error.validator
    arg: Any = error.validator_value
    if kind == "required":
        # jsonschema yields one error per missing key, naming it first: "'policy' is a ..."
        missing = [k for k in arg if isinstance(value, Mapping) and k not in value]
        key = next((k for k in missing if error.message.startswith(repr(k))), str(arg[0]))
        prop = schema.get("properties", {}).get(key, {})
        what = prop.get("description")
        detail = f" ({what})" if what else ""
        return f"missing key {show(key)}{detail}; add it"
    if kind == "type":
        expected = _expected(arg)
        if "pattern" in schema:
            hint = None  # that hint describes the pattern, not the type
        return f"value {show(value)} is not {expected}; {hint or 'write ' + expected}"
    if kind == "enum":
        choices = [str(c) for c in arg]
        suggestion = did_you_mean(str(value), choices) if isinstance(value, str) else ""
        listed = ", ".join(show(c) for c in arg)
        return (
            f"value {show(value)} is not one of {listed}{suggestion}; {hint or 'use one of them'}"
        )
    if kind == "const":
        return f"value {show(value)} is not supported; {hint or 'use ' + show(arg)}"
    if kind == "minLength" and arg == 1:
        return f"must not be empty; {hint or 'write a non-empty string'}"
    if kind in ("minItems", "minProperties") and arg == 1:
        return f"must not be empty; {hint or 'give at least one value'}"
    if kind == "minItems":
        return (
            f"has {_items(len(value))} but needs at least {arg}; {hint or 'add the missing items'}"
        )
    if kind == "maxItems":
        return (
            f"has {_items(len(value))} but allows at most {arg}; {hint or 'remove the extra items'}"
        )
    if kind == "minimum":
        fix = schema.get("x-min-hint") or f"use {arg} or more"
        return f"value {show(value)} is below the minimum {arg}; {fix}"
    if kind == "exclusiveMinimum":
        return f"value {show(value)} must be greater than {arg}; use a larger value"
    if kind == "maximum":
        fix = schema.get("x-max-hint") or f"use {arg} or less"
        return f"value {show(value)} is above the maximum {arg}; {fix}"
    if kind == "pattern":
        what = schema.get("x-what", "value")
        return f"value {show(value)} is not a valid {what}; {hint or 'match ' + str(arg)}"
    return f"{error.message}; see harness/schema/{SCHEMA_RESOURCE}"


def _doc_order(data: object, path: Sequence[str | int]) -> tuple[int, ...]:
    """Sort key placing a JSON path in document order (object keys keep their file order)."""
    key: list[int] = []
    node = data
    for part in path:
        if isinstance(part, int):
            key.append(part)
            node = node[part] if isinstance(node, list) and part < len(node) else None
        elif isinstance(node, Mapping):
            keys = list(node)
            key.append(keys.index(part) if part in node else len(keys))
            node = node.get(part)
        else:
            key.append(0)
            node = None
    return tuple(key)


def schema_problems(data: object) -> list[str]:
    """Every schema violation of `data` as `"$.path: message; fix"`, in document order."""
    found: list[tuple[tuple[int, ...], str]] = []
    seen: set[str] = set()
    for error in _validator().iter_errors(data):
        here = list(error.absolute_path)
        located = _unknown_keys(error) if error.validator == "additionalProperties" else []
        if not located:
            located = [(here, _message(error))]
        for sort_path, message in located:
            # Unknown keys are reported at their object (the key is in the message) but sorted
            # by the key's own position in the file.
            line = f"{json_path(*here)}: {message}"
            if line not in seen:
                seen.add(line)
                found.append((_doc_order(data, sort_path), line))
    found.sort(key=lambda item: item[0])
    return [line for _, line in found]


# ---------------------------------------------------------------- reading the file


class _Constant(Exception):
    """NaN or Infinity in the file: valid for Python's json module, not for JSON."""


def _reject_constant(name: str) -> object:
    raise _Constant(name)


class _Overflow(Exception):
    """A number too large for a float (``1e400``): Python reads it as infinity."""


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Overflow(text)
    return value


def _duplicate_keys(data: object, dups: Mapping[int, list[str]]) -> list[str]:
    """Where the same key appears twice in one object (JSON keeps only the last)."""
    found: list[str] = []

    def walk(node: object, path: tuple[str | int, ...]) -> None:
        if isinstance(node, dict):
            for key in dups.get(id(node), []):
                found.append(
                    f"{json_path(*path)}: key {key!r} appears more than once; keep one "
                    "(JSON silently keeps only the last)"
                )
            for key, child in node.items():
                walk(child, (*path, key))
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, (*path, i))

    walk(data, ())
    return found


def read_json(path: Path, source: str) -> tuple[object, str]:
    """Parse a JSON file strictly; returns (data, sha256 of the bytes) or raises SpaceError."""
    blob = read_bytes(
        path, error=SpaceError, kind="space file", missing="no such file; check the path"
    )
    digest = hashlib.sha256(blob).hexdigest()
    text = decode(blob, source, error=SpaceError, bom=True)
    dups: dict[int, list[str]] = {}

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj and key not in dups.setdefault(id(obj), []):
                dups[id(obj)].append(key)
            obj[key] = value
        return obj

    fix = 'fix the syntax (JSON has no comments or trailing commas; write notes as "_comment" keys)'
    try:
        data = parse_json(
            text,
            source,
            error=SpaceError,
            kind="space file",
            fix=fix,
            object_pairs_hook=pairs_hook,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except _Constant as exc:
        raise SpaceError(
            f"{source}: invalid JSON: {exc.args[0]} is not a JSON number; write a number"
        ) from None
    except _Overflow as exc:
        pos = max(text.find(exc.args[0]), 0)  # where it is written first: a good enough pointer
        line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
        raise SpaceError(
            f"{source}: line {line}, column {column}: {exc.args[0]} is too large for a number "
            "(above 1.8e308, read as infinity); write a finite number"
        ) from None
    dups = {k: v for k, v in dups.items() if v}
    problems = _duplicate_keys(data, dups) if dups else []
    if problems:
        raise SpaceError("\n".join(f"{source}: {line}" for line in problems))
    return data, digest
