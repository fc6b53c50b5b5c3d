"""C++ types, identifiers and literals of generated headers."""

from __future__ import annotations

import re

import pytest

from benchspace.harness.cxx_types import (
    check_identifier,
    check_namespace,
    cxx_type,
    env_text,
    literal,
    normalise,
    parse_literal,
    range_literals,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("16", 16),
        ("-3", -3),
        ("0x10", 16),
        ("0b101", 5),
        ("010", 8),
        ("16u", 16),
        ("42ULL", 42),
        ("1'000", 1000),
        ("true", True),
        ("false", False),
        ("1.5f", 1.5),
        ("2.", 2.0),
        ("Kind::FusedCta", "FusedCta"),
        ("ns::Kind::Fused", "Fused"),
        ("OTHER_CONSTANT", None),
        ("16 * 2", None),
        ("(-9223372036854775807LL - 1)", None),
    ],
)
def test_parse_literal(text: str, value: object) -> None:
    assert parse_literal(text) == value
    assert type(parse_literal(text)) is type(value)


def test_literals_of_every_kind() -> None:
    assert literal(cxx_type("X", "int64_t", None), -(2**63)) == "(-9223372036854775807LL - 1)"
    assert literal(cxx_type("X", "uint64_t", None), 2**64 - 1) == "18446744073709551615ULL"
    assert literal(cxx_type("X", "int32_t", None), -7) == "-7"
    assert literal(cxx_type("X", "float", None), 2) == "2.0f"
    assert literal(cxx_type("X", "double", None), 0.1) == "0.1"
    assert literal(cxx_type("X", "bool", None), True) == "true"
    kind = cxx_type("MERGE_VARIANT", "enum", ("Baseline", "FusedCta"))
    assert kind.spelling == "MergeVariant"
    assert literal(kind, "FusedCta") == "MergeVariant::FusedCta"
    assert env_text(kind, "FusedCta") == "FusedCta"
    assert env_text(cxx_type("X", "bool", None), False) == "0"


def test_override_ranges_come_from_the_type_or_the_bounds() -> None:
    assert range_literals(cxx_type("X", "int32_t", None)) == ("-2147483648", "2147483647")
    assert range_literals(cxx_type("X", "int64_t", None))[0] == "(-9223372036854775807LL - 1)"
    # strtoll cannot read above LLONG_MAX, so unsigned 64-bit overrides stop there.
    assert range_literals(cxx_type("X", "uint64_t", None)) == ("0", "9223372036854775807")
    assert range_literals(cxx_type("X", "int32_t", None, (1, 4096))) == ("1", "4096")


def test_normalise_turns_0_and_1_into_booleans_and_refuses_misfits() -> None:
    assert normalise(cxx_type("X", "bool", None), 1) is True
    assert normalise(cxx_type("X", "uint8_t", None), 255) == 255
    with pytest.raises(ValueError, match=r"^256 does not fit uint8_t; use a number from 0 to 255$"):
        normalise(cxx_type("X", "uint8_t", None), 256)
    with pytest.raises(ValueError, match=r"^True does not fit int32_t"):
        normalise(cxx_type("X", "int32_t", None), True)
    with pytest.raises(ValueError, match=r"^'Slow' does not fit Kind; use one of Fast, Safe$"):
        normalise(cxx_type("KIND", "enum", ("Fast", "Safe")), "Slow")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("int", "constant 'int' is a C++ keyword; choose another name"),
        ("_Tuning", "constant '_Tuning' is reserved for the implementation; rename it"),
        ("a__b", "constant 'a__b' is reserved for the implementation; rename it"),
        ("9lives", "constant '9lives' is not a C++ identifier; use letters, digits and '_'"),
    ],
)
def test_identifiers_are_checked(name: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        check_identifier(name, "constant")
    assert str(info.value) == message


def test_namespaces_are_checked_part_by_part() -> None:
    assert check_namespace("mylib::tuning") == "mylib::tuning"
    with pytest.raises(ValueError, match=re.escape("namespace part 'new' is a C++ keyword")):
        check_namespace("mylib::new")


def test_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="type 'long double' is not supported"):
        cxx_type("X", "long double", None)
