"""The measurement store: lookups by cache key, and the log reaching the database file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from benchspace.harness.measurement import Measurement
from benchspace.harness.store import CHECKPOINT_ROWS, Store


def _m(key: str, value: float) -> Measurement:
    return Measurement(
        bench="b", case_index=0, phase="main", params={"i": 1}, argv=("b", "1"), env={},
        exe_sha256="x", status="ok", value=value, cache_key=key,
    )  # fmt: skip


def test_find_returns_the_latest_attempt(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        assert store.find("k") is None
        store.add(_m("k", 1.0))
        store.add(_m("other", 5.0))
        store.add(_m("k", 2.0))
        found = store.find("k")
        assert found is not None and found.value == 2.0
        other = store.find("other")
        assert other is not None and other.value == 5.0


def test_rows_reach_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    rows = 2 * CHECKPOINT_ROWS + 7
    with Store(path) as store:
        for i in range(rows):
            store.add(_m(f"k{i}", float(i)))
    # The database file alone (no log beside it) holds every row after close.
    alone = tmp_path / "copy.sqlite"
    shutil.copy(path, alone)
    db = sqlite3.connect(alone)
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == rows
    db.close()


def test_latest_answers_what_find_does_for_every_key(tmp_path: Path) -> None:
    from dataclasses import replace

    with Store(tmp_path / "s.sqlite") as store:
        store.add_many([_m("k", 1.0), _m("other", 5.0)])
        store.add(_m("k", 2.0))
        store.add(replace(_m("k", 3.0), status="unavailable"))  # never a cache hit
        store.add(replace(_m("z", 4.0), bench="another"))
        latest = store.latest("b")
        assert set(latest) == {"k", "other"}
        assert latest["k"].value == 2.0 and latest["other"].value == 5.0
        for key, m in latest.items():
            assert store.find(key) == m
        assert store.count() == 5


def test_the_log_stays_bounded_while_rows_arrive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchspace.harness import store as store_module

    monkeypatch.setattr(store_module, "WAL_LIMIT_PAGES", 64)
    path = tmp_path / "s.sqlite"
    wal = Path(str(path) + "-wal")
    peak = 0
    with Store(path) as store:
        for batch in range(60):
            store.add_many([_m(f"k{batch}-{i}", float(i)) for i in range(500)])
            if wal.exists():
                peak = max(peak, wal.stat().st_size)
    # 30,000 rows arriving back to back, a transaction per batch: the background checkpoints
    # (passive, truncating past the limit) keep the log to a few MiB.
    assert peak < 4 * 2**20
