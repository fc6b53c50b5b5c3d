"""Writes that fail part-way (a full disk): one-line errors, the old file and the store kept."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness import files
from benchspace.harness.cli import main
from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import Measurement
from benchspace.harness.store import Store

BENCH: dict[str, Any] = {
    "bench": "fake",
    "exe": "fake_benchmark",
    "metric": "avg_ms",
    "arg_spec": ["n", "block"],
    "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
}


def _full(*_: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_while_writing_the_profile_is_one_line_and_keeps_the_old_file(
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    space = write_space([BENCH])
    out = fake_build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    old = out.read_bytes()
    capsys.readouterr()
    monkeypatch.setattr(files.os, "fsync", _full)
    assert main([*argv, "--quiet", "--rerun"]) == 1
    assert capsys.readouterr().err == (
        f"error: {out}: cannot be written (No space left on device); free some space and "
        "re-run (the previous file, if any, is unchanged)\n"
    )
    assert out.read_bytes() == old
    assert sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".")) == []
    with Store(out.with_name("profile.store.sqlite")) as store:
        assert store.count() == 4  # both sweeps' measurements are kept


def test_a_full_disk_while_writing_a_header_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "h.hh"
    target.write_text("old\n")
    monkeypatch.setattr(files.os, "replace", _full)
    with pytest.raises(files.FileError) as err:
        files.write_text_atomic(target, "new\n")
    assert str(err.value) == (
        f"{target}: cannot be written (No space left on device); free some space and re-run "
        "(the previous file, if any, is unchanged)"
    )
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["h.hh"]


class _FullDatabase:
    """A connection whose every statement meets a full disk."""

    def execute(self, *_: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")


def test_a_full_disk_while_recording_a_measurement_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        real, store._db = store._db, _FullDatabase()  # type: ignore[assignment]
        try:
            with pytest.raises(ProfileError) as err:
                store.add(_measurement())
        finally:
            store._db = real
    assert str(err.value) == (
        f"{path}: cannot record a measurement (database or disk is full); free some space or "
        "fix the file and re-run: the measurements recorded so far are kept"
    )


def _measurement() -> Measurement:
    return Measurement(
        cache_key="k", bench="b", case_index=0, phase="main", params={}, argv=("x",), env={},
        exe_sha256="0" * 64, status="ok", value=1.0,
    )  # fmt: skip


def test_outputs_refused_before_the_sweep_leave_no_trace(
    fake_build: Path,
    write_space: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    (tmp_path / "taken").mkdir()
    space = write_space([BENCH])
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build)]
    assert main([*argv, "--out", str(tmp_path / "taken")]) == 1
    assert capsys.readouterr().err == (
        f"error: --out {tmp_path / 'taken'}: is a directory; give the path of a file\n"
    )
    assert not log.exists()  # nothing ran
    assert not (fake_build / "tuning").exists()  # no store, no lock
    assert json.loads(json.dumps(sorted(p.name for p in tmp_path.iterdir()))) == [
        "build", "space.json", "taken",
    ]  # fmt: skip


def test_an_atomic_write_never_replaces_a_device_or_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(files.FileError) as err:
        files.write_text_atomic(pipe, "text\n")
    assert str(err.value) == (
        f"{pipe}: is not a regular file (a device, a pipe or a socket), which an atomic write "
        "would replace; give the path of a file"
    )
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
