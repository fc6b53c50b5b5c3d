"""benchmarks/cap_resolution.py: a cap's resolution read from the profile when it records one,
recomputed from the unbeaten rows' samples when it does not."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from tests.script_module import load_script

ROOT = Path(__file__).parents[2]


def _module() -> Any:
    return load_script("benchmarks/cap_resolution.py", "cap_resolution_bench")


def test_recorded_figures_are_read_and_missing_ones_recomputed(tmp_path: Path) -> None:
    mod = _module()
    recorded = ROOT / "evaluation/data/demo_retunes/amd_2core_median_gap/retune0.json.gz"
    before = mod.cap_resolutions(recorded)  # written before the figures: recomputed
    assert len(before) == 8 and all(2.0 < gap < 20.0 and rounds > 30 for gap, rounds in before)
    doc = json.loads(gzip.decompress(recorded.read_bytes()))
    for result in doc["results"]:
        for best in result["per_case_best"]:
            decided = best.get("decided") or {}
            if decided.get("decided") == "cap" and decided.get("unbeaten"):
                decided.update(resolves_pct=1.5, rounds_for_margin=70)
    path = tmp_path / "retune0.json"
    path.write_text(json.dumps(doc))
    assert mod.cap_resolutions(path) == [(1.5, 70)] * 8
    assert mod.line("  retune0", [(1.5, 70), (3.25, 200)]) == (
        "  retune0: caps 2; they resolve gaps over 1.5 / 3.2 / 3.2 % (least / median / most); "
        "1 % would take ~70 to 200 rounds"
    )
