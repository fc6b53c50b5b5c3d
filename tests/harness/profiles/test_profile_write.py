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


def test_rows_share_what_they_have_in_common_and_keep_their_types(tmp_path: Path) -> None:
    profile = load_profile(PROFILES / "demo_like.json")
    by_case: dict[tuple[str, int], set[int]] = {}
    for result in profile.results.values():
        for row in result.measurements:
            by_case.setdefault((result.bench, row.case_index), set()).add(id(row.fixed))
    assert all(len(ids) == 1 for ids in by_case.values())  # one mapping per case's fixed values
    # Equal as Python values, but not one object: a flag true and a count 1 stay apart.
    data = json.loads((PROFILES / "demo_like.json").read_text())
    first = data["results"][0]["measurements"]
    first[0]["params"], first[1]["params"] = {"x": True}, {"x": 1}
    out = tmp_path / "p.json"
    out.write_text(json.dumps(data))
    again = next(iter(load_profile(out).results.values())).measurements
    assert again[0].params["x"] is True and type(again[1].params["x"]) is int
