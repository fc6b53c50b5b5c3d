"""Damage inside a store (rows, pages, a foreign trigger) is one line naming the store, the
table, the row and the fix: never a traceback, never a silently wrong row."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import ProfileError
from benchspace.harness.measurement import Measurement
from benchspace.harness.store import Store

FIX = "re-run with --rerun (measures again) or pass a new --store"


def _m(i: int) -> Measurement:
    return Measurement(
        bench="b", case_index=0, phase="main", params={"block": i}, argv=("x", str(i)),
        env={}, exe_sha256="s", status="ok", value=1.0 + i, cache_key=f"k{i}",
        stdout_tail="o" * 1500,
    )  # fmt: skip


def _store(tmp_path: Path, rows: int = 3) -> Path:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        for i in range(rows):
            store.add(_m(i))
    return path


def _damage(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(sql)
    db.close()


@pytest.mark.parametrize(
    ("sql", "what"),
    [
        ("UPDATE attempts SET params = '{not json' WHERE id = 2",
         "params is not JSON (Expecting property name enclosed in double quotes)"),
        ("UPDATE attempts SET params = '[1, 2]' WHERE id = 2", "params is not a JSON object"),
        ("UPDATE attempts SET argv = '{\"a\": 1}' WHERE id = 2",
         "argv is not a JSON list of strings"),
        ("UPDATE attempts SET env = '{\"A\": 3}' WHERE id = 2",
         "env is not a JSON object of strings"),
        ("UPDATE attempts SET case_index = 'abc' WHERE id = 2",
         "case_index 'abc' is not an integer"),
        ("UPDATE attempts SET value = 'fast' WHERE id = 2", "value 'fast' is not a number"),
        ("UPDATE attempts SET status = 'great' WHERE id = 2",
         "unknown status 'great' (known: ok, failed, crashed, timeout, parse_error, missing, "
         "unavailable, build_failed, build_timeout)"),
    ],
)  # fmt: skip
def test_a_damaged_row_is_named(tmp_path: Path, sql: str, what: str) -> None:
    path = _store(tmp_path)
    _damage(path, sql)
    message = f"{path}: table attempts, row 2: {what}; the store is damaged: {FIX}"
    with Store(path) as store:
        with pytest.raises(ProfileError) as err:
            store.latest("b")
        assert str(err.value) == message
        with pytest.raises(ProfileError) as err:
            list(store.attempts())
        assert str(err.value) == message
        assert store.find("k0") is not None  # the other rows still read


def test_a_foreign_trigger_is_refused_unchanged(tmp_path: Path) -> None:
    path = _store(tmp_path)
    _damage(
        path, "CREATE TRIGGER nope BEFORE INSERT ON attempts BEGIN SELECT RAISE(ABORT, 'no'); END"
    )
    before = path.read_bytes()
    with pytest.raises(ProfileError) as err:
        Store(path, lock=True)
    assert str(err.value) == (
        f"{path}: table attempts has a trigger benchspace did not make (nope); the store is "
        "damaged: pass a new --store"
    )
    assert path.read_bytes() == before


def test_a_zeroed_page_is_one_line(tmp_path: Path) -> None:
    path = _store(tmp_path, rows=40)
    with path.open("r+b") as fh:
        fh.seek(4096 * 3)
        fh.write(b"\0" * 4096)
    with pytest.raises(ProfileError) as err, Store(path) as store:
        store.latest("b")
    text = str(err.value)
    assert text.startswith(f"{path}: table attempts: the file is damaged (")
    assert text.endswith(f"); {FIX}") or text.endswith("); pass a new --store")


def test_tune_on_a_damaged_store_is_one_line(
    fake_build: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = {
        "bench": "fake", "exe": "fake_benchmark", "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"], "cases": [{"fixed": {"n": 64}, "tune": {"block": [8]}}],
    }  # fmt: skip
    space = write_space([bench])
    out = fake_build / "p.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out),
            "--quiet"]  # fmt: skip
    assert main(argv) == 0
    store = fake_build / "p.store.sqlite"
    _damage(store, "UPDATE attempts SET params = 'x'")
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: {store}: table attempts, row 1: params is not JSON (Expecting value); the "
        f"store is damaged: {FIX}\n"
    )
    assert main([*argv, "--rerun"]) == 0
