"""Paths a space names stay inside its project; port edits no file a link or a banner points at.

Issue 14 class 9 (and the empty ``--header`` of class 11): every refusal pins its message and
checks that nothing in the project or outside it was written.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from header_helpers import ROOT

from benchspace.harness.cli import main
from benchspace.harness.errors import SpaceError
from benchspace.harness.spaces.load import load_space

ALLOW = "--allow-outside-root"


def _tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links as their target) and its hash."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path)] = f"-> {path.readlink()}"
        elif path.is_file():
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _space(header_path: str, **bench: Any) -> dict[str, Any]:
    return {
        "spaces": [
            {
                "bench": "k",
                "metric": "t",
                "arg_spec": ["n", "nb"],
                "cases": [{"fixed": {"n": 32}, "tune": {"nb": [8, 16]}}],
                **bench,
            }
        ],
        "header": {
            "path": header_path,
            "namespace": "x::tuning",
            "env_prefix": "X_TUNE_",
            "buckets": [["ALL", None]],
            "constants": [
                {"name": "NB", "type": "int32_t", "sources": [{"bench": "k", "param": "nb"}]}
            ],
        },
    }


PROFILE = {
    "format": "benchspace-profile",
    "version": 1,
    "meta": {},
    "results": [
        {
            "bench": "k",
            "direction": "min",
            "measurements": [
                {
                    "case_index": 0,
                    "fixed": {"n": 32},
                    "params": {"nb": nb},
                    "value": v,
                    "median": v,
                    "stdev": 0.01,
                    "n": 3,
                }
                for nb, v in ((8, 1.0), (16, 0.5))
            ],
        }
    ],
}
HEADER = "#pragma once\nnamespace x::tuning {\ninline constexpr int32_t NB_ALL = 8;\n}\n"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/outside.hh beside tmp/proj (a project: it holds .git) with a profile."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "include").mkdir()
    (project / "include" / "x.hh").write_text(HEADER)
    (project / "profile.json").write_text(json.dumps(PROFILE))
    (tmp_path / "outside.hh").write_text(HEADER)
    monkeypatch.chdir(project)
    return tmp_path


def _write_space(world: Path, header_path: str, **bench: Any) -> Path:
    path = world / "proj" / "s.json"
    path.write_text(json.dumps(_space(header_path, **bench)))
    return path


def _generate(space: Path, *extra: str) -> list[str]:
    return ["generate", "--profile", "profile.json", "--space", str(space), "--out", "new.hh",
            *extra]  # fmt: skip


@pytest.mark.parametrize(
    ("header_path", "shown"),
    [("../outside.hh", "'../outside.hh'"), ("ABSOLUTE", "ABSOLUTE")],
)
def test_a_header_path_outside_the_project_is_refused(
    world: Path, header_path: str, shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = world / "outside.hh"
    header_path = str(outside) if header_path == "ABSOLUTE" else header_path
    shown = repr(str(outside)) if shown == "ABSOLUTE" else shown
    space = _write_space(world, header_path)
    before = _tree(world)
    message = (
        f"{space}: $.header.path: {shown} resolves to {outside}, outside the project root "
        f"{world / 'proj'}; keep it inside the project, name the project with --root, or pass "
        f"{ALLOW}"
    )
    for argv in (
        _generate(space),
        ["review", "--generated", "x.hh", "--profile", "profile.json", "--space", str(space)],
        ["validate", "--space", str(space)],
        ["port", "--generated", "include/x.hh", "--space", str(space), "--only", "NB"],
    ):
        assert main(argv) in (1, 2)
        assert capsys.readouterr().err == f"error: {message}\n", argv
    assert _tree(world) == before
    assert main(_generate(space, ALLOW)) == 0  # told: the outside header gives the incumbents
    assert "0 kept from" in capsys.readouterr().out


def test_a_symlinked_header_is_refused_unless_told(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = world / "proj" / "include" / "link.hh"
    link.symlink_to(world / "outside.hh")
    space = _write_space(world, "include/link.hh")
    before = _tree(world)
    assert main(_generate(space)) == 1
    assert capsys.readouterr().err == (
        f"error: {space}: $.header.path: 'include/link.hh' resolves to {world / 'outside.hh'}, "
        f"outside the project root {world / 'proj'}; keep it inside the project, name the "
        f"project with --root, or pass {ALLOW}\n"
    )
    inner = world / "proj" / "include" / "inner.hh"
    inner.symlink_to(world / "proj" / "include" / "x.hh")  # a link inside the project
    space = _write_space(world, "include/inner.hh")
    before = _tree(world)
    assert main(_generate(space)) == 1
    assert capsys.readouterr().err == (
        f"error: {space}: $.header.path: 'include/inner.hh': {inner} is a symbolic link (to "
        f"{world / 'proj' / 'include' / 'x.hh'}); name the real file, or pass {ALLOW} to "
        "follow the link\n"
    )
    assert _tree(world) == before


def test_port_edits_the_target_of_a_symlinked_header_only_when_told(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = world / "proj" / "include" / "link.hh"
    link.symlink_to("x.hh")
    generated = world / "proj" / "gen.hh"
    generated.write_text(HEADER.replace("= 8;", "= 16;"))
    argv = ["port", "--generated", str(generated), "--header", str(link), "--only", "NB_ALL"]
    before = _tree(world)
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"error: {link}: is a symbolic link (to {world / 'proj' / 'include' / 'x.hh'}); writing "
        "it would replace the link by a plain file and leave the real header unchanged: pass "
        f"the real header as --header, or {ALLOW} to edit it through the link\n"
    )
    assert _tree(world) == before
    assert main([*argv, ALLOW]) == 0
    assert link.is_symlink() and "NB_ALL = 16;" in (world / "proj" / "include" / "x.hh").read_text()


def test_an_empty_header_is_an_error_not_no_incumbents(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = _write_space(world, "include/x.hh")
    (world / "proj" / "empty.hh").write_text("")
    before = _tree(world)
    assert main([*_generate(space), "--header", "empty.hh"]) == 1
    assert capsys.readouterr().err == (
        "error: empty.hh: the header is empty; pass the checked-in header (or leave --header out "
        "when there is none yet)\n"
    )
    assert _tree(world) == before


def test_a_grid_file_outside_the_project_is_refused(world: Path) -> None:
    (world / "grid.txt").write_text("8\n16\n")
    space = _write_space(world, "include/x.hh")
    doc = json.loads(space.read_text())
    doc["spaces"][0]["arg_spec"].append("kind")
    doc["spaces"][0]["cases"][0]["tune"]["kind"] = {"file": "../grid.txt"}
    space.write_text(json.dumps(doc))
    with pytest.raises(SpaceError) as info:
        load_space(space)
    assert str(info.value) == (
        f"{space}: $.spaces[0].cases[0].tune.kind.file: '../grid.txt' "
        f"resolves to {world / 'grid.txt'}, outside the project root {world / 'proj'}; keep it "
        f"inside the project, name the project with --root, or pass {ALLOW}"
    )
    assert load_space(space, allow_outside_root=True).benches[0].cases[0].tune["kind"] == (
        "8",
        "16",
    )


def test_cutlass_header_does_not_write_outside_the_project(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = _write_space(world, "../outside.hh")
    model = ROOT / "evaluation" / "data" / "models" / "h200_selector.json"
    before = _tree(world)
    assert main(["cutlass", "header", "--model", str(model), "--space", str(space)]) == 1
    assert capsys.readouterr().err == (
        f"error: {space}: $.header.path: '../outside.hh' resolves to {world / 'outside.hh'}, "
        f"outside the project root {world / 'proj'}; keep it inside the project, name the "
        f"project with --root, or pass {ALLOW}\n"
    )
    assert _tree(world) == before
