"""A profile finds its space from itself: the path relative to the profile's folder first, then
the absolute one, wherever the command runs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.profiles.locate import recorded_space
from benchspace.harness.profiles.read import load_profile


def _bench() -> dict[str, object]:
    return {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
    }


def test_the_space_is_recorded_both_ways_and_found_after_a_move(
    tmp_path: Path,
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "proj").mkdir()
    space = write_space([_bench()], name="proj/space.json")
    (tmp_path / "proj" / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path / "proj")
    out = tmp_path / "proj" / "tuning" / "p.json"
    argv = ["tune", "--space", "space.json", "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    prov = json.loads(out.read_text())["meta"]["provenance"]
    assert prov["space_path"] == str(space.resolve())
    assert prov["space_path_relative"] == "../space.json"
    # Read from another directory: found.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert recorded_space(load_profile(out)) == out.parent / "../space.json"
    # The project moved (the absolute path is gone): found through the relative one.
    moved = shutil.move(tmp_path / "proj", tmp_path / "moved")
    found = recorded_space(load_profile(Path(moved) / "tuning" / "p.json"))
    assert found is not None and found.resolve() == (Path(moved) / "space.json").resolve()
    assert main(["sensitivity", str(Path(moved) / "tuning" / "p.json"), "--write-pruned",
                 str(elsewhere / "pruned.json")]) == 0  # fmt: skip
    assert (elsewhere / "pruned.json").is_file()
