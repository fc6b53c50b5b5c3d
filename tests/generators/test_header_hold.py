"""generate --hold: the changes a consumer rejected keep their old value, and say why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchspace.generators.session import read_holds
from benchspace.harness.cli import main
from benchspace.harness.errors import HeaderError

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "include" / "benchspace_demo"


def test_the_demo_header_is_its_profile_with_the_rejections_held(tmp_path: Path) -> None:
    out = tmp_path / "tuning_params.hh"
    args = ["generate", "--profile", str(DEMO / "profile.json"),
            "--space", str(ROOT / "spaces" / "demo.json"), "--out", str(out)]  # fmt: skip
    assert main([*args, "--hold", str(DEMO / "confirm.json")]) == 0
    assert out.read_text() == (DEMO / "tuning_params.hh").read_text()
    rejected = {
        (c["constant"], c["bucket"]): c["old"]
        for c in json.loads((DEMO / "confirm.json").read_text())["changes"]
        if c["verdict"] == "rejected"
    }
    assert rejected  # the demo's matmul block sizes lose at the LU consumer
    text = out.read_text()
    prose = " ".join(text.replace("//", " ").split())  # comments are wrapped
    for (constant, bucket), old in rejected.items():
        assert f"inline constexpr int32_t {constant}_{bucket} = {old};" in text
        assert f"{bucket} held at {old}: rejected at the consumer" in prose
    assert main(args) == 0  # without the holds the kernel bench's winners come back
    free = out.read_text()
    assert any(f"{c}_{b} = {old};" not in free for (c, b), old in rejected.items())


def test_holds_come_only_from_rejected_changes(tmp_path: Path) -> None:
    doc = {
        "format": "benchspace-review",
        "version": 1,
        "changes": [
            {"constant": "A", "bucket": "TINY", "old": 8, "new": 16, "verdict": "rejected",
             "reason": "lu slower"},
            {"constant": "A", "bucket": "SMALL", "old": 8, "new": 4, "verdict": "accepted"},
            {"constant": "B", "bucket": "TINY", "old": 1, "new": 2, "verdict": "unconfirmed"},
        ],
    }  # fmt: skip
    path = tmp_path / "confirm.json"
    path.write_text(json.dumps(doc))
    assert read_holds(path) == {("A", "TINY"): (8, "rejected at the consumer (lu slower)")}
    path.write_text(json.dumps({"format": "benchspace-profile", "version": 1}))
    with pytest.raises(HeaderError, match=r"\$\.format: 'benchspace-profile' is not a review"):
        read_holds(path)
