"""The store refuses, unchanged, every file that is not a benchspace store; one writer at once."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import Measurement
from benchspace.harness.store import Store

FIX = "pass another --store path or move the file away"


def _tree(path: Path) -> str:
    """A hash of every file name and content under ``path``."""
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        digest.update(str(item.relative_to(path)).encode())
        if item.is_file():
            digest.update(item.read_bytes())
    return digest.hexdigest()


def _sqlite(path: Path, *statements: str) -> Path:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def _store_with(tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "d" / "s.sqlite"
    path.parent.mkdir()
    with Store(path):
        pass
    return _sqlite(path, *statements)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: _sqlite(p, "CREATE TABLE notes (x)", "INSERT INTO notes VALUES (1)"),
         "not a benchspace measurement store (an SQLite database without its meta and "
         f"attempts tables); {FIX}"),
        (lambda p: p.write_text("hello, not a database at all " * 40) and p,
         "not a benchspace measurement store (not an SQLite database: file is not a "
         f"database); {FIX}"),
    ],
)  # fmt: skip
def test_foreign_files_are_refused_unchanged(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    path = make(folder / "s.sqlite")
    before = _tree(folder)
    with pytest.raises(ProfileError) as err:
        Store(path, lock=True)
    assert str(err.value) == f"{path}: {message}"
    assert _tree(folder) == before


@pytest.mark.parametrize(
    ("statements", "message"),
    [
        (["UPDATE meta SET value = '3' WHERE key = 'version'"],
         "store version 3 is newer than this benchspace understands (2); upgrade benchspace"),
        (["UPDATE meta SET value = 'one' WHERE key = 'version'"],
         f"store version 'one' is not a whole number; the store is damaged: {FIX}"),
        (["UPDATE meta SET value = 'other' WHERE key = 'format'"],
         "not a benchspace measurement store (format 'other', expected 'benchspace-store'); "
         f"{FIX}"),
        (["DROP TABLE attempts", "CREATE TABLE attempts (id INTEGER, note TEXT)"],
         "not a benchspace measurement store (its attempts table lacks cache_key, bench, "
         "case_index, phase, params, argv, env, exe_sha256, status, value, spread, row, repeat, "
         "returncode, stdout_tail, stderr_tail, error, duration_s, started_at, host, device, "
         f"extra); {FIX}"),
    ],
)  # fmt: skip
def test_stores_it_cannot_use_are_refused_unchanged(
    tmp_path: Path, statements: list[str], message: str
) -> None:
    path = _store_with(tmp_path, *statements)
    before = _tree(path.parent)
    with pytest.raises(ProfileError) as err:
        Store(path, lock=True)
    assert str(err.value) == f"{path}: {message}"
    assert _tree(path.parent) == before


def test_a_locked_store_says_locked(tmp_path: Path) -> None:
    path = _store_with(tmp_path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta VALUES ('x', 'y')")
    try:
        with pytest.raises(ProfileError) as err:
            Store(path)
        assert str(err.value).startswith(f"{path}: the store is locked by another process (")
        assert str(err.value).endswith("); wait until it is done, or pass another --store path")
    finally:
        holder.close()


def test_tune_with_a_foreign_store_writes_nothing(
    fake_build: Path, write_space: Callable[..., Path], tmp_path: Path
) -> None:
    foreign = _sqlite(tmp_path / "mine.sqlite", "CREATE TABLE notes (x)")
    bench = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [8]}}],
    }
    space = write_space([bench])  # fmt: skip
    before = _tree(tmp_path)
    out = tmp_path / "out" / "p.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--store", str(foreign), "--quiet"]) == 1
    assert _tree(tmp_path) == before


def test_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    said: list[str] = []
    order: list[str] = []
    first = Store(path, lock=True)

    def second() -> None:
        with Store(path, lock=True, on_wait=said.append):
            order.append("second")

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(0.3)
    order.append("first done")
    first.close()
    thread.join(10)
    assert order == ["first done", "second"]
    assert said == [
        f"waiting for PID {os.getpid()}, which is sweeping into {path}, to finish (lock "
        f"{path}.lock); then only what it did not measure runs"
    ]


def test_unavailable_attempts_are_never_cache_hits(tmp_path: Path) -> None:
    m = Measurement(bench="b", case_index=0, phase="main", params={}, argv=("x",), env={},
                    exe_sha256="s", status="unavailable", cache_key="k")  # fmt: skip
    with Store(tmp_path / "s.sqlite") as store:
        store.add(m)
        assert store.find("k") is None
        assert [a.status for a in store.attempts()] == ["unavailable"]
