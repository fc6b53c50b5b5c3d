"""C++ vocabulary of generated headers: constant types, identifiers and literals.

Every identifier and literal that reaches a template is checked or produced here, so a template
only substitutes text that is already valid C++.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from harness.measurement import Value
from harness.space_header_rules import INT_RANGES

Kind = Literal["int", "bool", "enum", "real"]

# INT_RANGES (type -> (min, max)) is the space validator's table: one source of truth.
REAL_RANGES: dict[str, float] = {"float": 3.4028234663852886e38, "double": 1.7976931348623157e308}
LLONG_MIN, LLONG_MAX = -(2**63), 2**63 - 1

# A string split keeps the C++ keyword list readable.
CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq""".split()  # noqa: SIM905
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_identifier(name: str, what: str) -> str:
    """Return `name` if it is a usable C++ identifier; raise ValueError saying why not."""
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{what} {name!r} is not a C++ identifier; use letters, digits and '_'")
    if name in CPP_KEYWORDS:
        raise ValueError(f"{what} {name!r} is a C++ keyword; choose another name")
    if "__" in name or (name[0] == "_" and len(name) > 1 and name[1].isupper()):
        raise ValueError(f"{what} {name!r} is reserved for the implementation; rename it")
    return name


def check_namespace(namespace: str) -> str:
    """Return `namespace` if every ``::`` part is a usable identifier; raise ValueError."""
    for part in namespace.split("::"):
        check_identifier(part, "namespace part")
    return namespace


def check_env_name(name: str) -> str:
    """Return `name` if it is a portable environment variable name; raise ValueError."""
    if not _ENV_NAME.fullmatch(name):
        raise ValueError(f"environment variable {name!r} must use letters, digits and '_'")
    return name


def enum_type_name(constant: str) -> str:
    """The ``enum class`` of an enum constant: SORT_KERNEL -> SortKernel."""
    return "".join(part.capitalize() for part in constant.split("_") if part)


@dataclass(frozen=True, kw_only=True, slots=True)
class CxxType:
    """The C++ type of a constant family and the values it admits."""

    kind: Kind
    spelling: str
    """As written in the header: ``int32_t``, ``std::size_t``, ``bool``, ``SortKernel``."""
    low: int | float
    high: int | float
    """The value range (and the range an env override must fall in)."""
    enumerators: tuple[str, ...] = ()

    def sort_key(self, value: Value) -> tuple[float, str]:
        """Order for "the smaller value wins a tie": numbers, false < true, enumerator order."""
        if self.kind == "enum":
            return (float(self.enumerators.index(str(value))), "")
        if isinstance(value, str):
            return (0.0, value)
        return (float(value), "")


def cxx_type(
    name: str,
    type_name: str,
    enum_values: tuple[str, ...] | None,
    bounds: tuple[int | float | None, int | float | None] = (None, None),
) -> CxxType:
    """The CxxType of constant `name` declared with `type_name`; raise ValueError if unknown.

    `bounds` narrows the range an override may take (a constant's optional ``min``/``max``).
    """
    low: int | float
    high: int | float
    if type_name in INT_RANGES:
        kind: Kind = "int"
        low, high = INT_RANGES[type_name]
        spelling = "std::size_t" if type_name == "size_t" else type_name
    elif type_name in REAL_RANGES:
        kind, spelling = "real", type_name
        low, high = -REAL_RANGES[type_name], REAL_RANGES[type_name]
    elif type_name == "bool":
        kind, spelling, low, high = "bool", "bool", 0, 1
    elif type_name == "enum":
        if not enum_values:
            raise ValueError(f'enum constant {name} has no "values"; list its enumerators')
        for enumerator in enum_values:
            check_identifier(enumerator, "enumerator")
        kind, spelling = "enum", check_identifier(enum_type_name(name), "enum type")
        low, high = 0, len(enum_values) - 1
    else:
        raise ValueError(
            f"type {type_name!r} is not supported; use an integer type, bool, float, double or enum"
        )
    if bounds[0] is not None and kind in ("int", "real"):
        low = max(low, bounds[0])
    if bounds[1] is not None and kind in ("int", "real"):
        high = min(high, bounds[1])
    return CxxType(
        kind=kind, spelling=spelling, low=low, high=high, enumerators=tuple(enum_values or ())
    )


def normalise(ctype: CxxType, value: object) -> Value:
    """`value` as a value of `ctype` (0/1 become booleans); raise ValueError if it does not fit."""
    if ctype.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
    elif ctype.kind == "enum":
        if isinstance(value, str) and value in ctype.enumerators:
            return value
    elif ctype.kind == "int":
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and ctype.low <= value <= ctype.high
        ):
            return value
    elif (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and ctype.low <= value <= ctype.high
    ):
        return value
    raise ValueError(f"{value!r} does not fit {ctype.spelling}; {fit_hint(ctype)}")


def fit_hint(ctype: CxxType) -> str:
    """What values `ctype` takes, as advice."""
    if ctype.kind == "enum":
        return "use one of " + ", ".join(ctype.enumerators)
    if ctype.kind == "bool":
        return "use true, false, 0 or 1"
    return f"use a number from {ctype.low} to {ctype.high}"


def int_literal(value: int) -> str:
    """A C++ integer literal for any value in [LLONG_MIN, ULLONG_MAX] without warnings."""
    if value == LLONG_MIN:
        return f"({LLONG_MIN + 1}LL - 1)"
    if value > LLONG_MAX:
        return f"{value}ULL"
    return str(value)


def literal(ctype: CxxType, value: Value) -> str:
    """The C++ spelling of a normalised value of `ctype`."""
    if ctype.kind == "bool":
        return "true" if value else "false"
    if ctype.kind == "enum":
        return f"{ctype.spelling}::{value}"
    if ctype.kind == "real":
        text = repr(float(value))
        if "e" not in text and "." not in text:
            text += ".0"
        return text + ("f" if ctype.spelling == "float" else "")
    assert isinstance(value, int)
    return int_literal(value)


def env_text(ctype: CxxType, value: Value) -> str:
    """How an env override spells `value` (what `<name>_for_n` accepts)."""
    if ctype.kind == "bool":
        return "1" if value else "0"
    if ctype.kind == "real":
        return repr(float(value))
    return str(value)


def range_literals(ctype: CxxType) -> tuple[str, str]:
    """The bounds an override is checked against, as ``long long`` or ``double`` literals."""
    if ctype.kind == "real":
        return repr(float(ctype.low)), repr(float(ctype.high))
    # An override is read with strtoll, so unsigned 64-bit ranges stop at LLONG_MAX.
    return _long_long(int(ctype.low)), _long_long(min(int(ctype.high), LLONG_MAX))


def _long_long(value: int) -> str:
    if value == LLONG_MIN:
        return f"({LLONG_MIN + 1}LL - 1)"
    # Other literals take a wide enough type by themselves.
    return str(value)


_INT_TEXT = re.compile(
    r"([+-]?)(0[xX][0-9A-Fa-f]+|0[bB][01]+|[0-9]+)(?:[uU]?(?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU])"
)
_REAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?[fFlL]?")
_ENUM_TEXT = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*::)+([A-Za-z_][A-Za-z0-9_]*)")


def parse_literal(text: str) -> Value | None:
    """The value of a C++ literal as a header writes it, or None if it is not a plain literal.

    Integers (decimal, hex, binary, with suffixes), ``true``/``false``, floating literals and
    scoped enumerators (``Kind::Name`` gives ``"Name"``).
    """
    text = text.strip().replace("'", "")
    if text in ("true", "false"):
        return text == "true"
    match = _INT_TEXT.fullmatch(text)
    if match:
        digits = match.group(2).lower()
        octal = len(digits) > 1 and digits[0] == "0"
        base = {"0x": 16, "0b": 2}.get(digits[:2], 8 if octal else 10)
        number = int(digits[2:] if base in (2, 16) else digits, base)
        return -number if match.group(1) == "-" else number
    if _REAL_TEXT.fullmatch(text):
        return float(text.rstrip("fFlL"))
    match = _ENUM_TEXT.fullmatch(text)
    if match:
        return match.group(1)
    return None
