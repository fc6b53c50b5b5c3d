"""The one profile writer: the records back to the bytes ``tune`` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.jsonio import dumps
from harness.profiles.read import load_profile
from harness.profiles.write import profile_data, write_profile

PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"


@pytest.mark.parametrize(
    "name", ["demo_like", "kinds", "sensitivity_crafted", "sensitivity_demo_recorded"]
)
def test_a_format_1_profile_round_trips_byte_for_byte(name: str, tmp_path: Path) -> None:
    path = PROFILES / f"{name}.json"
    out = tmp_path / "p.json"
    write_profile(out, load_profile(path))
    assert out.read_text() == dumps(json.loads(path.read_text()))


def test_a_batchlas_profile_is_written_in_the_current_version() -> None:
    data = profile_data(load_profile(PROFILES / "batchlas.json"))
    assert data["format"] == "benchspace-profile" and data["version"] == 1
    row = data["results"][0]["measurements"][0]
    assert row["median"] == row["value"] and row["n"] == 1 and row["samples"] == [row["value"]]
