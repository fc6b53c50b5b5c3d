"""The README's own ``benchspace ab`` example runs as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchspace.harness.cli import main


def test_the_readme_s_ab_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README's `benchspace ab` line, with the fake for E and its lanes variable for VAR."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    assert (
        "`benchspace ab --exe E --arg 512 --metric 'Time (µs) / matrix' --a\n   VAR=16 --b VAR=48`"
        in readme
    )
    fake = str(Path(__file__).resolve().parents[2] / "fakes" / "fake_bench.py")
    argv = ["ab", "--exe", fake, "--arg", "512", "--metric", "Time (µs) / matrix"]
    argv += ["--a", "FAKE_LANES=16", "--b", "FAKE_LANES=48", "--rounds", "5", "--max-time", "60"]
    assert main([*argv, "--store", str(tmp_path / "ab.sqlite")]) == 0
    assert "B/A" in capsys.readouterr().out
