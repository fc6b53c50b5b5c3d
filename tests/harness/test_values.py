"""Parameter values: kinds, the one order, the two equalities and parsing."""

from __future__ import annotations

from benchspace.harness.values import (
    exact_key,
    kind_of,
    order_key,
    parse_value,
    render_value,
    same_key,
)


def test_booleans_are_not_numbers() -> None:
    assert [kind_of(v) for v in (None, True, 1, 1.5, "x")] == [
        "null",
        "bool",
        "number",
        "number",
        "string",
    ]


def test_same_key_joins_1_and_1_0_but_not_true() -> None:
    assert same_key(1) == same_key(1.0)
    assert same_key(1) != same_key(True)


def test_exact_key_keeps_every_spelling_apart() -> None:
    assert len({exact_key(v) for v in (1, 1.0, True)}) == 3


def test_order_is_unset_bools_numbers_strings() -> None:
    values = ["b", 2, None, True, 0.5, "a", False]
    assert sorted(values, key=order_key) == [None, False, True, 0.5, 2, "a", "b"]


def test_parse_value_reads_integers_then_numbers_then_text() -> None:
    assert [parse_value(t) for t in ("8", "0.5", "CUDA", "1e3")] == [8, 0.5, "CUDA", 1000.0]


def test_render_value_spells_booleans_as_digits() -> None:
    assert [render_value(v) for v in (True, False, 8, "x")] == ["1", "0", "8", "x"]
