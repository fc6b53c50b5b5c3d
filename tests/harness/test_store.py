"""The measurement store: lookups by cache key, and the log reaching the database file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from harness.measurement import Measurement
from harness.store import CHECKPOINT_ROWS, Store


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
