"""Parameter values: their kinds, one order, the two equalities and the argv spelling.

A space writes parameter values as JSON scalars (`Value`); ``None`` (`ParamValue`) means "leave
the environment variable unset". Booleans are never numbers here: ``1`` and ``true`` are two
values, while ``1`` and ``1.0`` are one value of the kind "number" (`same_key`). What reaches
the executable is the spelling, so a plan keeps ``1`` and ``1.0`` apart (`exact_key`).
"""

from __future__ import annotations

from typing import Literal

Value = int | float | str | bool
"""A parameter value as a space file may write it."""

ParamValue = Value | None
"""A parameter value where ``None`` means unset (env parameters only)."""

Kind = Literal["null", "bool", "number", "string"]

_RANK: dict[Kind, int] = {"null": 0, "bool": 1, "number": 2, "string": 3}


def kind_of(value: object) -> Kind:
    """The comparison kind of a value: booleans are not numbers here."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string"


def same_key(value: object) -> tuple[Kind, object]:
    """A hashable key equal for equal values of one kind: 1 and 1.0 together, 1 and true apart."""
    return (kind_of(value), value)


def exact_key(value: object) -> tuple[type, object]:
    """A hashable key equal only for values spelled alike: 1, 1.0 and true are three values."""
    return (type(value), value)


def order_key(value: ParamValue) -> tuple[int, float, str]:
    """The one deterministic order: unset first, then booleans, numbers, strings (each sorted)."""
    kind = kind_of(value)
    if kind == "string":
        return (_RANK[kind], 0.0, str(value))
    if value is None:
        return (_RANK[kind], 0.0, "")
    assert not isinstance(value, str)
    return (_RANK[kind], float(value), "")


def render_value(value: Value) -> str:
    """One argv word or env value: booleans as 1/0 (what strtol-based overrides read)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_value(text: str) -> Value:
    """A value written as text (argv, env, ``NAME=VALUE``): an integer, else a number, else text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text
