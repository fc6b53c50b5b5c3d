"""The output guard in the study's commands (issue 22, class 6): ``cutlass tune-shapes`` and
``cutlass header`` refuse an output that is one of their inputs, with one line, writing nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_tune_shapes import saved, tuned  # noqa: F401  (the module's fixtures)

from benchspace.harness.cli import main

FIX = "write the output to another file"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(argv: list[str], kept: Path, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    before = _digest(kept)
    assert main(argv) == 1
    assert capsys.readouterr().err == f"error: {message}\n"
    assert _digest(kept) == before


def test_tune_shapes_out_naming_its_shapes_file_is_refused(
    saved: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shapes = tmp_path / "my.json"
    shapes.write_text('{"shapes": [[4096, 4096, 4096]]}\n')
    argv = ["cutlass", "tune-shapes", str(shapes), "--model", str(saved), "--out", str(shapes)]
    _refused(argv, shapes, f"--out {shapes}: is a shapes file ({shapes}); {FIX}", capsys)
    argv[-1] = str(saved)
    _refused(argv, saved, f"--out {saved}: is the selector ({saved}); {FIX}", capsys)


def test_header_out_naming_its_profile_or_its_space_is_refused(
    tuned: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    profile = tuned / "profile.json"
    argv = ["cutlass", "header", "--from-profile", str(profile), "--out", str(profile)]
    _refused(argv, profile, f"--out {profile}: is the profile ({profile}); {FIX}", capsys)
    space = tuned / "space.json"
    argv = ["cutlass", "header", "--space", str(space), "--out", str(space)]
    _refused(argv, space, f"--out {space}: is the space ({space}); {FIX}", capsys)


def test_a_selector_without_candidates_is_one_line(
    saved: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = json.loads(saved.read_text())
    doc["candidates"] = []
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(doc))
    assert main(["cutlass", "select", "64", "64", "64", "--model", str(empty)]) == 1
    assert capsys.readouterr().err == (
        f"error: {empty}: $.candidates: the selector has no candidates to rank; retrain it "
        "with 'benchspace cutlass train'\n"
    )
