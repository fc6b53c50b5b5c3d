"""A current profile is read a piece at a time, into the same records as the whole-file reader."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchspace.harness.profiles import read, stream
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile, parse_profile

PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"
V2 = ("demo_like", "kinds", "sensitivity_crafted", "sensitivity_demo_recorded")
WHOLE = ("v1/demo_like", "../batchlas_real/profile", "sensitivity_batchlas_v0")


def _whole(path: Path) -> Profile:
    blob = path.read_bytes()
    return parse_profile(
        json.loads(blob), source=str(path), sha256=hashlib.sha256(blob).hexdigest()
    )


@pytest.mark.parametrize("chunk", [7, 1 << 20])
@pytest.mark.parametrize("name", V2)
def test_streamed_reading_gives_the_whole_readers_records(
    name: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A window of 7 bytes cuts numbers, strings and rows at its edges.
    monkeypatch.setattr(stream, "CHUNK", chunk)
    path = PROFILES / f"{name}.json"
    streamed = read._streamed(path)
    assert streamed is not None
    assert streamed == _whole(path)
    assert load_profile(path) == streamed


@pytest.mark.parametrize("name", V2)
def test_any_layout_streams(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "CHUNK", 64)
    doc = json.loads((PROFILES / f"{name}.json").read_text())
    for i, text in enumerate((json.dumps(doc, indent=2), json.dumps(doc, separators=(",", ":")))):
        path = tmp_path / f"p{i}.json"
        path.write_text(text + "\n")
        streamed = read._streamed(path)
        assert streamed is not None
        assert streamed == _whole(path)


@pytest.mark.parametrize("name", WHOLE)
def test_older_versions_are_read_whole(name: str) -> None:
    path = PROFILES / f"{name}.json"
    assert read._streamed(path) is None
    assert load_profile(path) == _whole(path)


def test_a_broken_file_is_read_whole_for_its_message(tmp_path: Path) -> None:
    text = (PROFILES / "kinds.json").read_text()
    path = tmp_path / "p.json"
    path.write_text(text[: len(text) // 2])
    assert read._streamed(path) is None
    with pytest.raises(read.ProfileError, match="invalid JSON at line"):
        load_profile(path)
    path.write_text(text + "{}")
    assert read._streamed(path) is None


def test_a_bad_field_keeps_its_message(tmp_path: Path) -> None:
    doc = json.loads((PROFILES / "kinds.json").read_text())
    doc["results"][0]["measurements"][0]["median"] = "abc"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(read.ProfileError, match=r"\$\.results\[0\]\.measurements\[0\]\.median"):
        load_profile(path)


def test_equal_values_share_one_object() -> None:
    profile = load_profile(PROFILES / "sensitivity_crafted.json")
    rows = [r for result in profile.results.values() for r in result.measurements]
    one = [r for r in rows if len(r.samples) == 1 and r.median is not None]
    assert one and all(r.samples[0] is r.median for r in one)
    args = [a for r in rows for a in r.args if type(a) is int]
    assert len({id(a) for a in args}) == len(set(args))
