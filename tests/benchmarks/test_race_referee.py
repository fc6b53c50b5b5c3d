"""benchmarks/race.py's referee space: the two configurations of one case alone, a space that
``tune`` accepts (the demo's header names benches the referee leaves out)."""

from __future__ import annotations

import json
from pathlib import Path

from benchspace.harness.spaces.load import load_space
from tests.script_module import load_script

ROOT = Path(__file__).parents[2]


def _race() -> object:
    return load_script("benchmarks/race.py", "race_bench")


def test_the_referee_space_of_a_demo_case_loads(tmp_path: Path) -> None:
    race = _race()
    data = json.loads((ROOT / "spaces" / "demo.json").read_text())
    doc = race.referee_space(data, ("matmul", 2), ({"block": 64}, {"block": 32}))  # type: ignore[attr-defined]
    path = tmp_path / "referee.json"
    path.write_text(json.dumps(doc))
    space = load_space(path)
    (bench,) = space.benches
    assert bench.name == "matmul" and len(bench.cases) == 1
    assert list(bench.cases[0].tune["block"]) == [64, 32]
    assert dict(bench.cases[0].fixed) == {"n": 256}
