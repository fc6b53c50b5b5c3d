"""Invalid space files: each one mistake, each with its exact message (both validation passes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchspace.harness.cxx_types import value_fits
from benchspace.harness.errors import SpaceError
from benchspace.harness.spaces.load import load_space

INVALID = Path(__file__).resolve().parents[2] / "data" / "spaces" / "invalid"
CASES = sorted(p.stem for p in INVALID.glob("*.json"))


def test_there_are_at_least_thirty_invalid_files_each_with_its_message() -> None:
    assert len(CASES) >= 30
    assert sorted(p.stem for p in INVALID.glob("*.expected")) == CASES


@pytest.mark.parametrize("name", CASES)
def test_invalid_space_gives_its_exact_message(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(INVALID)  # messages then name the file as NAME.json
    expected = (INVALID / f"{name}.expected").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(SpaceError) as err:
        load_space(f"{name}.json")
    assert str(err.value) == expected


def test_the_brief_examples_are_among_them() -> None:
    misspelt = (INVALID / "misspelt_row.expected").read_text(encoding="utf-8")
    assert "unknown key 'rwo' (did you mean 'row'?)" in misspelt
    wrong_type = (INVALID / "quoted_number.expected").read_text(encoding="utf-8")
    assert "tune.nb[1]: value '32' is not an integer" in wrong_type


@pytest.mark.parametrize(
    ("ctype", "value", "fits"),
    [
        ("int32_t", 2**31 - 1, True),
        ("int32_t", 2**31, False),
        ("uint8_t", -1, False),
        ("int64_t", True, False),
        ("int32_t", 1.5, False),
        ("double", 1, True),
        ("bool", 1, True),
        ("bool", 2, False),
        ("bool", False, True),
        ("enum", "A", True),
        ("enum", "C", False),
    ],
)
def test_value_fits(ctype: str, value: int | float | str | bool, fits: bool) -> None:
    assert value_fits(ctype, value, ("A", "B")) is fits
