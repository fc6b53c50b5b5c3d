"""The one profile writer: the records back to the bytes ``tune`` writes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchspace.harness.jsonio import dumps
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.profiles.write import profile_data, write_profile

PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"


@pytest.mark.parametrize(
    "name", ["demo_like", "kinds", "sensitivity_crafted", "sensitivity_demo_recorded"]
)
def test_a_current_profile_round_trips_byte_for_byte(name: str, tmp_path: Path) -> None:
    path = PROFILES / f"{name}.json"
    out = tmp_path / "p.json"
    write_profile(out, load_profile(path))
    assert out.read_text() == dumps(json.loads(path.read_text()))


def test_a_batchlas_profile_is_written_in_the_current_version() -> None:
    data = profile_data(load_profile(PROFILES.parent / "batchlas_real" / "profile.json"))
    assert data["format"] == "benchspace-profile" and data["version"] == 2
    row = data["results"][0]["measurements"][0]
    assert row["median"] == row["value"] and row["n"] == 1 and row["samples"] == [row["value"]]
    assert row["argv"] == [] and all(isinstance(a, int) for a in row["args"])


def test_a_configuration_without_a_value_is_left_to_failures() -> None:
    # BatchLAS's sensitivity.py reads every measurement's value: none may lack one.
    profile = load_profile(PROFILES / "demo_like.json")
    result = next(iter(profile.results.values()))
    failed = replace(result.measurements[0], median=None, mean=None, stdev=None, n=None)
    broken = replace(result, measurements=(failed, *result.measurements[1:]))
    data = profile_data(replace(profile, results={result.bench: broken}))
    rows = data["results"][0]["measurements"]
    assert len(rows) == len(result.measurements) - 1 and all("value" in r for r in rows)
