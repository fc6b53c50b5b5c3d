"""Profiles as header work reads them (format 1 and BatchLAS's version 0), and value cells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from header_helpers import PROFILES, profile_of

from benchspace.generators.value_cells import value_cells
from benchspace.harness.cxx_types import cxx_type, normalise
from benchspace.harness.errors import ProfileError
from benchspace.harness.profiles.model import PROFILE_VERSION, Profile
from benchspace.harness.profiles.read import load_profile, parse_profile


def test_current_version_profile(demo_profile: Profile) -> None:
    assert demo_profile.version == PROFILE_VERSION == 2
    assert demo_profile.space_path == "tests/generators/spaces/demo_like.json"
    matmul = demo_profile.results["matmul"]
    assert matmul.direction == "max"
    assert matmul.metric == "GFLOP/s"
    assert {r.case_index for r in matmul.rows} == {0, 1, 2, 3}
    row = matmul.case_rows(0)[0]
    assert row.n == 3 and row.stdev is not None and row.rel_error is not None
    # Pre-tuned parameters are in every main measurement's params.
    assert {r.param("cutoff") for r in demo_profile.results["sort"].rows} == {16}


def test_batchlas_profile_recovers_cases_and_params(batchlas_profile: Profile) -> None:
    assert batchlas_profile.version == 0
    assert batchlas_profile.space_path is None
    ormqr = batchlas_profile.results["ormqr_blocked"]
    assert len(ormqr.rows) == 46
    side1 = ormqr.case_rows(1)
    assert {r.fixed["side"] for r in side1} == {1}
    assert sorted(r.params["block_size"] for r in side1) == [4, 8, 12, 16, 24]
    # An env-only parameter comes back from the env variable it was passed through.
    sy2sb = batchlas_profile.results["sy2sb"]
    assert sorted({r.params["sy2sb_nb"] for r in sy2sb.rows}) == [0, 8, 16, 24, 32]
    # One value per configuration: no spread to estimate noise from.
    assert all(r.rel_error is None for r in sy2sb.rows)


def test_a_batchlas_measurement_of_no_case_is_refused() -> None:
    doc = json.loads((PROFILES.parent / "batchlas_real" / "profile.json").read_text())
    doc["results"][1]["measurements"][0]["args"] = [99, 1, 8, 0]
    with pytest.raises(ProfileError) as info:
        parse_profile(doc, source="old.json", sha256="0" * 64)
    assert str(info.value) == (
        "old.json: $.results[1].measurements[0]: args [99, 1, 8, 0] match no case of "
        "per_case_best; the profile is incomplete, re-run the sweep"
    )


def test_a_profile_from_the_future_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"format": "benchspace-profile", "version": 99, "results": []}))
    with pytest.raises(ProfileError, match=r"\$\.version: 99 is newer than this benchspace reads"):
        load_profile(path)


def test_missing_profile(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such profile; run `benchspace tune` first"):
        load_profile(tmp_path / "none.json")


def test_value_cells_keep_each_values_best_row() -> None:
    profile = profile_of(
        {
            "b": [
                (0, {"n": 64}, {"nb": 8, "wg": 0}, 5.0),
                (0, {"n": 64}, {"nb": 8, "wg": 1}, 4.0),
                (0, {"n": 64}, {"nb": 16, "wg": 0}, 6.0),
                (0, {"n": 64}, {"nb": None}, 1.0),
            ]
        }
    )
    ctype = cxx_type("NB", "int32_t", None)
    cells = value_cells(profile.results["b"].rows, "nb", "min", lambda raw: normalise(ctype, raw))
    # The unset (None) value is not a candidate: it measures whatever is compiled in.
    assert {v: c.metric for v, c in cells.items()} == {8: 4.0, 16: 6.0}
