"""The generate, review and port commands end to end, and the script entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from header_helpers import DATA, GOLDEN, PROFILES, ROOT, SPACES

from benchspace.harness.cli import main

DEMO_PROFILE = str(PROFILES / "demo_like.json")


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository root (profiles record their space relative to it)."""
    monkeypatch.chdir(ROOT)


@pytest.fixture
def no_header(tmp_path: Path) -> str:
    """A checked-in header with no constants yet: no incumbents."""
    path = tmp_path / "empty.hh"
    path.write_text("#pragma once\n")
    return str(path)


def test_generate_writes_the_golden(
    at_root: None, no_header: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gen" / "tuning_params.hh"
    # The space comes from the profile's provenance.
    assert (
        main(["generate", "--profile", DEMO_PROFILE, "--out", str(out), "--header", no_header]) == 0
    )
    assert out.read_bytes() == (GOLDEN / "demo_like.hh").read_bytes()
    assert capsys.readouterr().out == (
        f"wrote {out}: 4 constants, 20 values (17 from the profile, 3 fallback, 0 kept from "
        f"{no_header})\n"
    )
    # Regenerating is byte-identical, so --check passes; a stale file fails it.
    args = ["generate", "--profile", DEMO_PROFILE, "--out", str(out), "--header", no_header]
    assert main([*args, "--check"]) == 0
    out.write_text(out.read_text().replace("= 128;", "= 64;"))
    assert main([*args, "--check"]) == 1
    assert "out of date" in capsys.readouterr().err


def test_generate_refuses_an_incumbent_outside_its_grid(
    at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "checked_in.hh"
    header.write_text(
        (DATA / "demo_checked_in.hh")
        .read_text()
        .replace("DOT_LANES_LARGE = 4;", "DOT_LANES_LARGE = 3;")
    )
    out = tmp_path / "out.hh"
    args = ["generate", "--profile", DEMO_PROFILE, "--out", str(out), "--header", str(header)]
    assert main(args) == 1
    assert capsys.readouterr().err == (
        "error: tests/generators/spaces/demo_like.json: $.spaces[2].cases[3]: constant "
        f"DOT_LANES bucket LARGE: the incumbent 3 ({header}) is not in the grid of matvec.lanes "
        "[1, 2, 4, 8, 16]; add it to the grid, or pass --include-incumbent\n"
    )
    assert not out.exists()
    assert main([*args, "--include-incumbent"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: ") and "the incumbent competes only where it was measured" in err


def test_generate_refuses_a_missing_explicit_header(
    at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.hh"
    code = main(
        [
            "generate",
            "--profile",
            DEMO_PROFILE,
            "--out",
            str(tmp_path / "o.hh"),
            "--header",
            str(missing),
        ]
    )
    assert code == 1
    assert capsys.readouterr().err == (
        f"error: {missing}: no such file; check --header (leave it out when there is no "
        "checked-in header yet)\n"
    )


def test_a_batchlas_profile_needs_the_space(
    tmp_path: Path, no_header: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = str(PROFILES.parent / "batchlas_real" / "profile.json")
    assert main(["generate", "--profile", profile, "--out", str(tmp_path / "o.hh")]) == 1
    assert capsys.readouterr().err == (
        f"error: {profile}: $.meta.provenance.space_path: the profile does not say which space "
        "it was tuned with; pass --space\n"
    )
    assert (
        main(
            [
                "generate",
                "--profile",
                profile,
                "--space",
                str(SPACES / "batchlas.json"),
                "--out",
                str(tmp_path / "o.hh"),
                "--header",
                no_header,
            ]
        )
        == 0
    )
    assert (tmp_path / "o.hh").read_bytes() == (GOLDEN / "batchlas.hh").read_bytes()


def test_the_script_entry_point(tmp_path: Path, no_header: str) -> None:
    out = tmp_path / "k.hh"
    proc = subprocess.run(
        [
            sys.executable,
            "generators/generate_tuning_header.py",
            "--profile",
            str(PROFILES / "kinds.json"),
            "--out",
            str(out),
            "--header",
            no_header,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (GOLDEN / "kinds.hh").read_bytes()
    bad = subprocess.run(
        [
            sys.executable,
            "generators/generate_tuning_header.py",
            "--profile",
            str(tmp_path / "none.json"),
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    assert (
        bad.stderr
        == f"error: {tmp_path / 'none.json'}: no such profile; run `benchspace tune` first\n"
    )


def test_review_formats(at_root: None, capsys: pytest.CaptureFixture[str]) -> None:
    base = [
        "review",
        "--generated",
        str(GOLDEN / "demo_like.hh"),
        "--header",
        str(DATA / "demo_checked_in.hh"),
        "--profile",
        DEMO_PROFILE,
    ]
    assert main(base) == 0
    assert capsys.readouterr().out.startswith("## benchspace review\n")
    assert main([*base, "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["changes"]) == 9
    assert main([*base, "--format", "text"]) == 0
    assert "MATMUL_BLOCK_TINY: 64 -> 32" in capsys.readouterr().out


def test_port_finds_the_checked_in_header_through_space_not_the_banner(
    at_root: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # The golden names tests/generators/spaces/demo_like.json, whose header.path is the
    # demo's checked-in header. port does not follow that banner (the generated header is the
    # input under review); --space names the space, and a dry run writes nothing.
    target = ROOT / "include" / "benchspace_demo" / "tuning_params.hh"
    if not target.exists():
        pytest.skip("the demo header is not in this checkout")
    before = target.read_bytes()
    args = ["port", "--generated", str(GOLDEN / "demo_like.hh"), "--only", "MATMUL_BLOCK_TINY",
            "--dry-run"]  # fmt: skip
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"error: {GOLDEN / 'demo_like.hh'}: port does not follow the space named in a generated "
        "header's banner; pass --header, the checked-in header to edit, or --space, the space "
        "whose header.path it is\n"
    )
    code = main([*args, "--space", str(SPACES / "demo_like.json")])
    assert code == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("dry run: ")
    assert target.read_bytes() == before
