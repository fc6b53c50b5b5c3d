"""C++ vocabulary of tuning headers: constant types, their ranges, identifiers and literals.

The space validator asks here whether a value fits a constant's type; the generators ask here
for every identifier and literal that reaches a template, so a template only substitutes text
that is already valid C++.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Literal

from benchspace.harness.cxx_macros import cxx_macros
from benchspace.harness.values import Value, order_key

Kind = Literal["int", "bool", "enum", "real"]

INT_RANGES: dict[str, tuple[int, int]] = {
    "int8_t": (-(2**7), 2**7 - 1),
    "int16_t": (-(2**15), 2**15 - 1),
    "int32_t": (-(2**31), 2**31 - 1),
    "int64_t": (-(2**63), 2**63 - 1),
    "uint8_t": (0, 2**8 - 1),
    "uint16_t": (0, 2**16 - 1),
    "uint32_t": (0, 2**32 - 1),
    "uint64_t": (0, 2**64 - 1),
    "int": (-(2**31), 2**31 - 1),
    "unsigned": (0, 2**32 - 1),
    "size_t": (0, 2**64 - 1),
}
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
# ??= ??/ ??' ??( ??) ??! ??< ??> ??-: g++ warns about each under -Wall (-Wtrigraphs).
_TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")


def check_identifier(name: str, what: str) -> str:
    """Return `name` if it is a usable C++ identifier; raise ValueError saying why not."""
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{what} {name!r} is not a C++ identifier; use letters, digits and '_'")
    if name in CPP_KEYWORDS:
        raise ValueError(f"{what} {name!r} is a C++ keyword; choose another name")
    if "__" in name or (name[0] == "_" and len(name) > 1 and name[1].isupper()):
        raise ValueError(f"{what} {name!r} is reserved for the implementation; rename it")
    if name in cxx_macros():
        raise ValueError(
            f"{what} {name!r} is a macro of the compiler or of the headers the generated file "
            "includes, so it cannot be declared; rename it"
        )
    return name


def check_comment(text: str, what: str) -> str:
    """Return `text` if it can stand in a ``//`` comment; raise ValueError saying why not.

    No control characters but newline and tab (a carriage return or form feed would end or
    garble the comment) and no trigraphs (``??/`` is a backslash to -Wtrigraphs).
    """
    bad = [ch for ch in text if (ord(ch) < 32 and ch not in "\n\t") or ord(ch) == 127]
    if bad:
        raise ValueError(f"{what} contains control character {bad[0]!r}; remove it")
    trigraph = _TRIGRAPH.search(text)
    if trigraph:
        raise ValueError(
            f"{what} contains the trigraph {trigraph.group()!r}, which g++ warns about under "
            "-Wall; write the question marks apart"
        )
    return text


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

    def sort_key(self, value: Value) -> tuple[int, float, str]:
        """Order for "the smaller value wins a tie": numbers, false < true, enumerator order."""
        if self.kind == "enum":
            return (0, float(self.enumerators.index(str(value))), "")
        return order_key(value)


def _declared_type(type_name: str, enum_values: tuple[str, ...] | None) -> CxxType | None:
    """The type over its whole range, identifiers unchecked; None for an unknown type name."""
    enumerators = tuple(enum_values or ())
    if type_name in INT_RANGES:
        low, high = INT_RANGES[type_name]
        spelling = "std::size_t" if type_name == "size_t" else type_name
        return CxxType(kind="int", spelling=spelling, low=low, high=high)
    if type_name in REAL_RANGES:
        edge = REAL_RANGES[type_name]
        return CxxType(kind="real", spelling=type_name, low=-edge, high=edge)
    if type_name == "bool":
        return CxxType(kind="bool", spelling="bool", low=0, high=1)
    if type_name == "enum":
        return CxxType(
            kind="enum", spelling="enum", low=0, high=len(enumerators) - 1, enumerators=enumerators
        )
    return None


def cxx_type(
    name: str,
    type_name: str,
    enum_values: tuple[str, ...] | None,
    bounds: tuple[int | float | None, int | float | None] = (None, None),
) -> CxxType:
    """The CxxType of constant `name` declared with `type_name`; raise ValueError if unknown.

    `bounds` narrows the range an override may take (a constant's optional ``min``/``max``).
    """
    declared = _declared_type(type_name, enum_values)
    if declared is None:
        raise ValueError(
            f"type {type_name!r} is not supported; use an integer type, bool, float, double or enum"
        )
    if declared.kind == "enum":
        if not enum_values:
            raise ValueError(f'enum constant {name} has no "values"; list its enumerators')
        for enumerator in enum_values:
            check_identifier(enumerator, "enumerator")
        return replace(declared, spelling=check_identifier(enum_type_name(name), "enum type"))
    low, high = declared.low, declared.high
    if bounds[0] is not None and declared.kind in ("int", "real"):
        low = max(low, bounds[0])
    if bounds[1] is not None and declared.kind in ("int", "real"):
        high = min(high, bounds[1])
    return replace(declared, low=low, high=high)


def fits(ctype: CxxType, value: object) -> bool:
    """Whether `value` can be written as a constant of `ctype` (booleans also as 0 and 1)."""
    if ctype.kind == "bool":
        return isinstance(value, bool) or (isinstance(value, int) and value in (0, 1))
    if ctype.kind == "enum":
        return isinstance(value, str) and value in ctype.enumerators
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if ctype.kind == "int" and not isinstance(value, int):
        return False
    return math.isfinite(value) and ctype.low <= value <= ctype.high


def value_fits(type_name: str, value: object, enum_values: tuple[str, ...] | None) -> bool:
    """Whether `value` fits a constant declared with `type_name` (the type's whole range)."""
    declared = _declared_type(type_name, enum_values)
    return declared is not None and fits(declared, value)


def normalise(ctype: CxxType, value: object) -> Value:
    """`value` as a value of `ctype` (0/1 become booleans); raise ValueError if it does not fit."""
    if not fits(ctype, value):
        raise ValueError(f"{value!r} does not fit {ctype.spelling}; {fit_hint(ctype)}")
    assert isinstance(value, int | float | str)
    return bool(value) if ctype.kind == "bool" else value


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
