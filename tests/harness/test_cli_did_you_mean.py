"""A misspelt option is named, with the option meant, before any other complaint."""

from __future__ import annotations

import pytest

from benchspace.harness.cli import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["tune", "--spcae", "s.json"], "tune: unrecognized option --spcae; did you mean --space?"),
        (["export", "p", "--fromat", "csv"], "export: unrecognized option --fromat; did you mean "
         "--format?"),
        (["compare", "a", "b", "--spaec=s"], "compare: unrecognized option --spaec; did you mean "
         "--space?"),
    ],
)  # fmt: skip
def test_did_you_mean(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: benchspace {said}\n"


def test_an_abbreviation_is_still_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    # --form abbreviates --format: argparse resolves it, nothing is suggested.
    assert main(["export", "missing.json", "--form", "csv"]) == 1
    assert "did you mean" not in capsys.readouterr().err
