"""scripts/device/space_part.py: one part of a tune-shapes space, with its kernels and shortlist,
optionally without the configurations of one prefix."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "scripts" / "device" / "space_part.py"
SPACE = ROOT / "spaces" / "tune_shapes_ranked_rest.json"


def _part(tmp_path: Path, *args: str) -> tuple[dict[str, Any], list[str], list[dict[str, str]]]:
    stem = tmp_path / "part"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(SPACE), *args[:2], str(stem), *args[2:]],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.startswith(f"{stem}.json: ")
    kernels = (tmp_path / "part.kernels.txt").read_text().splitlines()
    with open(tmp_path / "part.shortlist.csv", newline="") as f:
        return json.loads((tmp_path / "part.json").read_text()), kernels, list(csv.DictReader(f))


def test_every_third_case_from_one_with_its_kernels_and_shortlist(tmp_path: Path) -> None:
    doc, kernels, rows = _part(tmp_path, "1", "3")
    whole = json.loads(SPACE.read_text())["spaces"][0]["cases"]
    cases = doc["spaces"][0]["cases"]
    assert cases == whole[1::3]
    named = {k.split(":")[0] for c in cases for k in c["tune"]["kernel"] if k.startswith("cutlass")}
    assert set(kernels[1:]) == named and kernels[0].startswith("#")
    shapes = {(c["fixed"]["M"], c["fixed"]["N"], c["fixed"]["K"]) for c in cases}
    assert {(int(r["M"]), int(r["N"]), int(r["K"])) for r in rows} == shapes


def test_a_prefix_drops_those_configurations_and_keeps_the_rest(tmp_path: Path) -> None:
    doc, _, _ = _part(tmp_path, "0", "1", "cublaslt:")
    whole = json.loads(SPACE.read_text())["spaces"][0]["cases"]
    cases = doc["spaces"][0]["cases"]
    assert len(cases) == len(whole) == 48
    for case, full in zip(cases, whole, strict=True):
        kept = case["tune"]["kernel"]
        assert kept == [k for k in full["tune"]["kernel"] if not k.startswith("cublaslt:")]
        assert len(kept) == 17 and "cublas:heuristic" in kept
