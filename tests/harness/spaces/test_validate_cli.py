"""``benchspace validate``: one line per file, every problem listed, exit 0 or 1."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.harness.cli import main

SPACES = Path(__file__).resolve().parents[2] / "data" / "spaces"
DEFAULT = SPACES / "batchlas_default.json"
UNWIRED = SPACES / "batchlas_unwired.json"


def test_batchlas_files_validate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--space", str(DEFAULT), "--space", str(UNWIRED)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"ok: {DEFAULT}: 7 benches, 34 cases, 269 invocations",
        f"ok: {UNWIRED}: 3 benches, 8 cases, 36 invocations",
    ]
    assert err == ""


def test_repeats_are_shown_when_the_space_sets_them(capsys: pytest.CaptureFixture[str]) -> None:
    path = SPACES / "extensions.json"
    assert main(["validate", "--space", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"ok: {path}: 4 benches, 7 cases, 26 invocations (72 with the space's repeats)\n"
    )


def test_invalid_and_missing_files_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    bad = SPACES / "invalid" / "misspelt_row.json"
    missing = SPACES / "no_such_space.json"
    code = main(["validate", "--space", str(DEFAULT), "--space", str(bad), "--space", str(missing)])
    assert code == 1
    out, err = capsys.readouterr()
    assert out == f"ok: {DEFAULT}: 7 benches, 34 cases, 269 invocations\n"
    assert err.splitlines() == [
        f"error: {bad}: $.spaces[0]: unknown key 'rwo' (did you mean 'row'?); remove it or "
        "prefix it with '_' to make it a comment",
        f"error: {missing}: no such file; check the path",
    ]


def test_several_problems_of_one_file_each_get_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.json"
    path.write_text(
        '{"spaces": [{"bench": "a", "metric": "t", "arg_spec": ["n", "nb"], "env": {"nb": "NB"},'
        ' "cases": [{"fixed": {"n": 1}, "tune": {"nb": [1, 1]}}]}]}',
        encoding="utf-8",
    )
    assert main(["validate", "--space", str(path)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {path}: $.spaces[0].arg_spec[1]: 'nb' is an env parameter (env.nb = NB), and env "
        "parameters never appear in arg_spec; remove it here or from env",
        f"error: {path}: $.spaces[0].cases[0].tune.nb[1]: value 1 repeats index 0 of this grid; "
        "list each value once",
    ]


def test_space_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["validate"])
    assert exit_info.value.code == 2
    assert "--space" in capsys.readouterr().err


def test_console_script_runs() -> None:
    script = shutil.which("benchspace", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "benchspace.harness.cli"]
    done = subprocess.run(
        [*command, "validate", "--space", str(DEFAULT)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"ok: {DEFAULT}: 7 benches, 34 cases, 269 invocations\n"
