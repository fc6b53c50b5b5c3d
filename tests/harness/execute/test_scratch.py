"""Scratch directories: a leftover of a killed sweep that had this PID never blocks a sweep."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchspace.harness.execute import scratch


def test_a_leftover_with_our_pid_is_stepped_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHSPACE_TMPDIR", str(tmp_path))
    first = Path(scratch.make_scratch_dir())
    following = int(first.name.rsplit("-", 1)[1]) + 1
    # What a SIGKILLed sweep of the same PID leaves behind, for the next few names.
    stale = [tmp_path / f"benchspace-{os.getpid()}-{following + i}" for i in range(3)]
    for path in stale:
        path.mkdir()
        (path / "out.csv").write_text("old")
    fresh = Path(scratch.make_scratch_dir())
    assert fresh not in stale and fresh.parent == tmp_path
    assert list(fresh.iterdir()) == []
    assert all((path / "out.csv").read_text() == "old" for path in stale)  # not ours to remove
