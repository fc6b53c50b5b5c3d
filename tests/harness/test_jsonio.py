"""Deterministic JSON: sorted keys, indent 2, short containers on one line, tables."""

from __future__ import annotations

import json
from pathlib import Path

from benchspace.harness.jsonio import TABLE_ROWS, WIDTH, dumps, write_json_atomic


def test_round_trip_and_layout() -> None:
    doc = {
        "b": {"long": "x" * 120, "short": [1, 2]},
        "a": {"k": 1},
        "empty": [],
        "ints": {2: "two", 1: "one"},
        "table": [{"i": i} for i in range(TABLE_ROWS + 1)],
        "unicode": "µs",
    }
    text = dumps(doc)
    assert json.loads(text) == json.loads(json.dumps(doc))
    assert text == dumps(json.loads(text))  # stable
    lines = text.splitlines()
    assert lines[0] == "{" and lines[1] == '  "a": {"k": 1},'
    assert '    "short": [1, 2]' in lines
    assert '  "ints": {"1": "one", "2": "two"},' in lines
    assert '    {"i": 0},' in lines  # a long array of objects: one per line
    assert '  "unicode": "µs"' in lines
    assert all(len(line) <= WIDTH for line in lines if "xxx" not in line)
    assert text.endswith("}\n")


def test_write_is_atomic_and_deterministic(tmp_path: Path) -> None:
    path = tmp_path / "d" / "doc.json"
    write_json_atomic(path, {"z": 1, "a": [1, 2]})
    assert path.read_text() == '{"a": [1, 2], "z": 1}\n'
    assert [p.name for p in path.parent.iterdir()] == ["doc.json"]
