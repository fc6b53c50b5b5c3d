"""The one profile reader: every format version, BatchLAS's upgrade, and each malformed field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.errors import ProfileError
from benchspace.harness.profiles.batchlas import batchlas_scalar
from benchspace.harness.profiles.model import PROFILE_VERSION, MeasurementRow
from benchspace.harness.profiles.read import load_profile, parse_profile
from benchspace.harness.profiles.upgrade import upgrade_v1
from benchspace.harness.profiles.write import profile_data

PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"
V2 = ("demo_like", "kinds", "sensitivity_crafted", "sensitivity_demo_recorded")
V1 = ("v1/demo_like", "v1/kinds")
V0 = ("../batchlas_real/profile", "../batchlas_real/profile_drift", "sensitivity_batchlas_v0")


@pytest.mark.parametrize("name", V2)
def test_every_frozen_current_version_sample_loads(name: str) -> None:
    path = PROFILES / f"{name}.json"
    raw = json.loads(path.read_text())
    profile = load_profile(path)
    assert profile.version == PROFILE_VERSION
    assert profile.source == str(path) and len(profile.sha256) == 64
    assert list(profile.results) == [r["bench"] for r in raw["results"]]
    for result, entry in zip(profile.results.values(), raw["results"], strict=True):
        assert len(result.measurements) == len(entry["measurements"])
        assert len(result.per_case_best) == len(entry["per_case_best"])
        assert len(result.top) == len(entry["top"])
        assert (result.best is None) == (entry["best"] is None)
        for row, m in zip(result.measurements, entry["measurements"], strict=True):
            assert row.case_index == m["case_index"] and row.median == m.get("median")
            assert row.n == m.get("n") and list(row.samples) == m["samples"]
            assert list(row.args) == m["args"] and list(row.argv) == m["argv"]


@pytest.mark.parametrize("name", V1)
def test_a_version_1_profile_is_upgraded_args_become_argv(name: str) -> None:
    path = PROFILES / f"{name}.json"
    raw = json.loads(path.read_text())
    profile = load_profile(path)
    assert profile.version == 1
    for result, entry in zip(profile.results.values(), raw["results"], strict=True):
        spec = result.arg_spec
        for row, m in zip(result.measurements, entry["measurements"], strict=True):
            # Version 1's args were the whole argv after the executable.
            assert list(row.argv) == [entry["exe"], *m["args"]]
            assert len(row.args) == len(spec)
            for name_, arg in zip(spec, row.args, strict=True):
                if name_ in row.params or name_ in row.fixed:
                    assert arg == row.param(name_) and type(arg) is type(row.param(name_))
        for top in result.top:
            for case in top.cases:
                assert len(case.args) == len(spec)
                assert not all(isinstance(a, str) for a in case.args)


@pytest.mark.parametrize("name", ("demo_like", "kinds"))
def test_upgrading_version_1_gives_what_this_version_writes(name: str) -> None:
    # tests/data/profiles/craft_profiles.py wrote both from the same sweep.
    old = profile_data(load_profile(PROFILES / "v1" / f"{name}.json"))
    assert old == json.loads((PROFILES / f"{name}.json").read_text())


def test_the_upgrade_leaves_its_input_alone_and_keeps_template_words() -> None:
    doc = {
        "format": "benchspace-profile",
        "version": 1,
        "results": [
            {
                "bench": "b",
                "exe": "b_benchmark",
                "arg_spec": ["n", "--nb={nb}"],
                "measurements": [
                    {
                        "case_index": 0,
                        "fixed": {"n": 64},
                        "params": {"nb": 8},
                        "args": ["--csv={out}", "64", "--nb=8"],
                    }
                ],
            }
        ],
    }
    before = copy.deepcopy(doc)
    up = upgrade_v1(doc)
    assert doc == before and up["version"] == 2
    row = up["results"][0]["measurements"][0]
    assert row["args"] == [64, "--nb=8"]
    assert row["argv"] == ["b_benchmark", "--csv={out}", "64", "--nb=8"]


@pytest.mark.parametrize("name", V0)
def test_a_batchlas_profile_is_upgraded_fully_at_load(name: str) -> None:
    path = PROFILES / f"{name}.json"
    raw = json.loads(path.read_text())
    profile = load_profile(path)
    assert profile.version == 0 and profile.space_path is None
    assert profile.meta.backend == "CUDA" and profile.meta.provenance is None
    for result, entry in zip(profile.results.values(), raw["results"], strict=True):
        assert result.failures == () and result.report_only is False
        assert result.coverage.complete == bool(entry["top"])
        cases = {b.case_index: b.fixed for b in result.per_case_best}
        assert len(result.measurements) == len(entry["measurements"])
        for row, m in zip(result.measurements, entry["measurements"], strict=True):
            # Every field a format-1 row has is filled: one sample, its own median.
            assert row.fixed == cases[row.case_index]
            assert set(row.fixed) | set(row.params) >= set(result.arg_spec) - set(row.fixed)
            assert row.median == row.mean == m["value"]
            assert row.samples == (m["value"],)
            assert row.stdev == 0.0 and row.n == 1 and row.rel_error is None
            assert all(not isinstance(v, str) for v in row.params.values())


def test_batchlas_text_values_are_parsed_in_one_place() -> None:
    assert batchlas_scalar("8") == 8
    assert batchlas_scalar("0.5") == 0.5
    assert batchlas_scalar("lower") == "lower"
    assert batchlas_scalar(None) is None
    doc = _v0()
    doc["results"][0]["measurements"][0]["env"] = {"ALPHA": "0.5"}
    (row,) = parse_profile(doc, source="old.json").results["k"].measurements
    assert row.params == {"nb": 8, "alpha": 0.5} and row.fixed == {"n": 64}


def test_a_batchlas_measurement_without_value_or_case_is_dropped() -> None:
    doc = _v0()
    doc["results"][0]["measurements"].append({"args": ["99", "8"], "env": {}, "value": None})
    assert len(parse_profile(doc, source="old.json").results["k"].measurements) == 1


def test_rows_expose_what_header_work_reads() -> None:
    row = MeasurementRow(
        case_index=0, fixed={"n": 64}, params={"nb": 8}, median=4.0, stdev=1.0, n=4
    )
    assert row.value == 4.0 and row.param("n") == 64 and row.param("nb") == 8
    assert row.rel_error == pytest.approx(0.125)


def _v0() -> dict[str, Any]:
    return {
        "meta": {"backend": "CPU"},
        "results": [
            {
                "bench": "k",
                "arg_spec": ["n", "nb"],
                "env_spec": {"alpha": "ALPHA"},
                "per_case_best": [
                    {
                        "case_index": 0,
                        "fixed": {"n": 64},
                        "args": ["64", "8"],
                        "params": {"nb": 8},
                        "value": 1.0,
                    }
                ],
                "measurements": [{"args": ["64", "8"], "env": {}, "value": 1.0}],
                "top": [],
                "best": None,
            }
        ],
    }


def _v1() -> dict[str, Any]:
    return copy.deepcopy(json.loads((PROFILES / "demo_like.json").read_text()))


def _refused(tmp_path: Path, doc: object) -> str:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    return str(info.value).replace(str(tmp_path) + "/", "")


def _with(change: Any) -> dict[str, Any]:
    doc = _v1()
    change(doc)
    return doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(version="abc"), 'p.json: $.version: "abc" is not an integer'),
        (lambda d: d.update(meta=[]), "p.json: $.meta: [] is not an object"),
        (
            lambda d: d["results"][0]["measurements"][0].update(case_index="x"),
            'p.json: $.results[0].measurements[0].case_index: "x" is not an integer',
        ),
        (
            lambda d: d["results"][0].update(pre_tune=[1]),
            "p.json: $.results[0].pre_tune[0]: 1 is not an object",
        ),
        (
            lambda d: d["results"][0]["measurements"][3].update(median="abc"),
            'p.json: $.results[0].measurements[3].median: "abc" is not a number',
        ),
        (lambda d: d.update(results={}), "p.json: $.results: {} is not a list"),
        (
            lambda d: d["results"][1]["failures"].append({"status": 3}),
            "p.json: $.results[1].failures[0].status: 3 is not a string",
        ),
        (
            lambda d: d["meta"]["provenance"].update(space_path=["a"]),
            'p.json: $.meta.provenance.space_path: ["a"] is not a string',
        ),
        (
            lambda d: d["results"][0]["top"][0].update(score=None),
            "p.json: $.results[0].top[0].score: null is not a number",
        ),
        (
            lambda d: d.update(format="other"),
            "p.json: $.format: \"other\" is not a profile (expected 'benchspace-profile')",
        ),
        (
            lambda d: d.update(version=99),
            "p.json: $.version: 99 is newer than this benchspace reads (2); upgrade benchspace",
        ),
    ],
)
def test_a_malformed_field_names_the_file_and_json_path(
    tmp_path: Path, change: Any, message: str
) -> None:
    assert _refused(tmp_path, _with(change)) == message


def test_a_document_that_is_not_a_profile(tmp_path: Path) -> None:
    assert _refused(tmp_path, []) == "p.json: $: [] is not an object"
    assert _refused(tmp_path, {"meta": {}}) == "p.json: $.results: missing; this is not a profile"


def test_deeply_nested_json_is_refused_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"results": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    assert str(info.value) == f"{path}: $: nested too deeply to be a profile"


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such profile; run `benchspace tune` first"):
        load_profile(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ProfileError, match=r"bad\.json: invalid JSON at line 1 column 2"):
        load_profile(bad)
