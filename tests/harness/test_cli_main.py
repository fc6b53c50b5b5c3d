"""The ``benchspace`` entry point: bare ``--help`` imports no subcommand; missing extras."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchspace.harness import cli


def test_bare_help_imports_no_subcommand() -> None:
    code = (
        "import sys\n"
        "from harness import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('benchspace.harness.cli.')\n"
        "                or m.startswith(('generators', 'evaluation', 'scipy', 'pandas')))\n"
        "print('LOADED:' + ','.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "LOADED:"


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for name in cli.SUBCOMMANDS:
        assert name in out


def test_a_missing_extra_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(name: str) -> None:
        raise ModuleNotFoundError("No module named 'pandas'", name="pandas")

    monkeypatch.setattr(cli.importlib, "import_module", fail)
    assert cli.main(["cutlass", "summary"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "error: 'benchspace cutlass' needs pandas, which is not installed: "
        "pip install 'benchspace[cutlass]'\n"
    )
