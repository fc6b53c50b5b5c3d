"""A study action's modes as actions of their own, the old flag spellings kept as aliases."""

from __future__ import annotations

import argparse

import pytest

from benchspace.harness import cli

pytest.importorskip("pandas")

PAIRS = [
    (["cutlass", "header", "check"], ["cutlass", "header", "--check"]),
    (
        ["cutlass", "header", "from-profile", "p.json", "--topk", "3"],
        ["cutlass", "header", "--from-profile", "p.json", "--topk", "3"],
    ),
    (
        ["cutlass", "tune-shapes", "report", "data/h200", "--shape", "64x64x64"],
        ["cutlass", "tune-shapes", "--report", "data/h200", "--shape", "64x64x64"],
    ),
    (
        ["cutlass", "tune-shapes", "measured", "data/v2", "--shortlist", "s.csv"],
        ["cutlass", "tune-shapes", "--measured", "data/v2", "--shortlist", "s.csv"],
    ),
]


def _parse(argv: list[str]) -> dict[str, object]:
    parser: argparse.ArgumentParser = cli.build_parser("cutlass")
    return vars(parser.parse_args(cli.spell_modes(argv)))


@pytest.mark.parametrize(("action", "flag"), PAIRS)
def test_a_mode_as_an_action_is_its_flag(action: list[str], flag: list[str]) -> None:
    as_action, as_flag = _parse(action), _parse(flag)
    assert as_action == as_flag
    mode = flag[2].removeprefix("--").replace("-", "_")
    assert as_action[mode] not in (None, False)


def test_only_a_mode_in_its_place_is_respelt() -> None:
    # A shape file named "report" stays a shape file; "check" elsewhere is an argument.
    assert cli.spell_modes(["cutlass", "tune-shapes", "a.txt", "report"]) == [
        "cutlass",
        "tune-shapes",
        "a.txt",
        "report",
    ]
    assert cli.spell_modes(["tune", "check"]) == ["tune", "check"]


def test_a_mode_runs_through_main(capsys: pytest.CaptureFixture[str]) -> None:
    # Both spellings reach the same action and fail the same way on a missing profile.
    codes = [
        cli.main(["cutlass", "header", "from-profile", "/nonexistent/p.json"]),
        cli.main(["cutlass", "header", "--from-profile", "/nonexistent/p.json"]),
    ]
    err = capsys.readouterr().err.splitlines()
    assert codes == [1, 1]
    assert len(err) == 2 and err[0] == err[1]
