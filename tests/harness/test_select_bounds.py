"""`cutlass select`: dimensions CUTLASS cannot take and a `--top` below 1 are one line, exit 2,
before any selector is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchspace.harness.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["4096", "2147483648", "64"],
         "error: N = 2147483648 must be below 2^31 (CUTLASS takes 32-bit dimensions)\n"),
        (["100000000000000000000000", "1", "1"],
         "error: M = 100000000000000000000000 must be below 2^31 (CUTLASS takes 32-bit "
         "dimensions)\n"),
        (["64", "64", "64", "--top", "-1"], "error: --top: -1 must be at least 1\n"),
        (["64", "64", "64", "--top", "0"], "error: --top: 0 must be at least 1\n"),
    ],
)  # fmt: skip
def test_select_bounds(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.json"  # never read: the bounds come first
    assert main(["cutlass", "select", *argv, "--model", str(missing)]) == 2
    assert capsys.readouterr().err == message
