"""Profiles written by BatchLAS's own tune.py, read unchanged by every command.

tests/data/batchlas_real/ holds two profiles BatchLAS's ``evaluation/tuning/tune.py`` (at
ad0fae7) wrote from a sweep of tests/generators/spaces/batchlas.json over the minibench-style
executables of tests/fakes/minibench_batchlas.py, and what BatchLAS's own ``sensitivity.py``
printed for them (README.md there says how they were made). They hold what tune.py writes and
nothing else: top cases without ``case_index``, ``pre_tune`` params as the phase's winning
scalars, ``env`` only where the bench has env parameters, no ``format`` or provenance.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchspace.harness.analysis.sensitivity import analyse_profile
from benchspace.harness.cli import main
from benchspace.harness.profiles.read import load_profile

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "batchlas_real"
PROFILE, DRIFT = DATA / "profile.json", DATA / "profile_drift.json"
SPACE = ROOT / "tests" / "generators" / "spaces" / "batchlas.json"
EXES = (
    "stedc_benchmark", "sytrd_blocked_benchmark", "ormqr_blocked_benchmark",
    "gesvd_blocked_benchmark", "sb2st_hh_benchmark", "syev_benchmark",
)  # fmt: skip
LINE = re.compile(r"^(\w+)\s+(\w+)\s+(-?[\d.]+)%\s+(-?[\d.]+)%\s+(-?[\d.]+)%\s+(\d+)\s+(.+)$")


def batchlas_table(path: Path) -> tuple[int, dict[tuple[str, str], tuple[float, float, str]]]:
    """What BatchLAS's sensitivity.py printed: its measurement count and, per (bench, param),
    (median %, max %, verdict)."""
    text = path.read_text(encoding="utf-8")
    parsed = re.search(r"^parsed (\d+) measurements", text, re.M)
    assert parsed is not None
    table = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            table[(m[1], m[2])] = (float(m[3]), float(m[5]), m[7])
    return int(parsed[1]), table


def test_the_profiles_are_what_tune_py_writes() -> None:
    doc = json.loads(PROFILE.read_text(encoding="utf-8"))
    assert "format" not in doc and set(doc["meta"]) == {
        "backend", "build_dir", "dtype", "generated_at", "hostname", "platform",
    }  # fmt: skip
    stedc = next(r for r in doc["results"] if r["bench"] == "stedc")
    assert stedc["pre_tune"][0]["params"] == {"recursion_threshold": 32}
    assert all("case_index" not in c for c in stedc["top"][0]["cases"])


@pytest.mark.parametrize("path", [PROFILE, DRIFT], ids=["profile", "drift"])
def test_read_unchanged(path: Path) -> None:
    profile = load_profile(path)
    assert profile.version == 0 and len(profile.results) == 7
    stedc = profile.results["stedc"]
    (phase,) = stedc.pre_tune
    assert phase.params == {"recursion_threshold": (32,)}
    assert phase.resolved_params == {"recursion_threshold": 32}
    assert stedc.top and [c.case_index for c in stedc.top[0].cases] == [0, 1, 2, 3, 4]
    sb2st = profile.results["sb2st"]
    assert sb2st.best is not None and [c.case_index for c in sb2st.best.cases] == [0, 1, 2]
    assert all(c.env for c in sb2st.best.cases)
    ormqr = profile.results["ormqr_blocked"]  # disjoint grids: tune.py's partial best
    assert ormqr.best is not None and ormqr.top == ()
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert sum(len(r.measurements) for r in profile.results.values()) == sum(
        len(r["measurements"]) for r in raw["results"]
    )


@pytest.mark.parametrize(
    ("path", "noise"),
    [(PROFILE, 1.0), (DRIFT, 2.0)],
    ids=["profile", "drift"],
)
def test_sensitivity_equals_batchlas_s_own(path: Path, noise: float) -> None:
    """Median and maximum spread per parameter, the measurement count and the verdict: the
    figures both tools compute the same way (BatchLAS's p90 and ``obs`` are other figures)."""
    printed = DATA / ("sensitivity.txt" if path == PROFILE else "sensitivity_drift.txt")
    count, theirs = batchlas_table(printed)
    report = analyse_profile(load_profile(path), source=str(path), noise_pct=noise)
    assert sum(b.measurements for b in report.benches) == count
    ours = {(p.bench, p.param): p for b in report.benches for p in b.params if p.pre_tune is None}
    assert set(ours) == set(theirs) and len(theirs) == 12
    words = {"keep": "keep", "flat": "mostly flat - shrink the grid"}
    words["dead"] = "DEAD - never moves the metric"
    for key, (median, top, verdict) in theirs.items():
        mine = ours[key]
        assert mine.median_pct is not None and mine.max_pct is not None
        assert round(mine.median_pct, 2) == median, key
        assert round(mine.max_pct, 2) == top, key
        assert words[mine.verdict] == verdict, key


def test_every_command_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile, drift, space = str(PROFILE), str(DRIFT), str(SPACE)
    empty = tmp_path / "empty.hh"
    empty.write_text("#pragma once\n")
    old, new = tmp_path / "old.hh", tmp_path / "new.hh"
    build = tmp_path / "build"
    (build / "benchmarks").mkdir(parents=True)
    for exe in EXES:
        (build / "benchmarks" / exe).symlink_to(ROOT / "tests" / "fakes" / "minibench_batchlas.py")
    header = ["--space", space, "--header"]
    commands = [
        ["sensitivity", profile, "--space", space, "--format", "json"],
        ["sensitivity", drift],
        ["generate", "--profile", profile, *header, str(empty), "--out", str(old)],
        ["generate", "--profile", drift, *header, str(old), "--out", str(new)],
        ["review", "--generated", str(new), "--profile", drift, *header, str(old)],
        ["compare", profile, drift, "--space", space, "--header", str(old)],
        ["compare", profile, drift, "--format", "json"],
        [
            "confirm", "--profile", drift, *header, str(old), "--generated", str(new),
            "--build-dir", str(build), "--rounds", "5", "--max-time", "5", "--quiet",
            "--accept-unconfirmed", "--format", "json", "--out", str(tmp_path / "c.json"),
        ],
    ]  # fmt: skip
    for argv in commands:
        assert main(argv) == 0, (argv, capsys.readouterr().err)
    out = capsys.readouterr().out
    # One value per configuration: compare cannot call a difference better or worse.
    assert "noise unknown" in out and "  better" not in out and "  worse" not in out
    assert "SYTRD_BLOCK_SIZE_LARGE" in out and "NEW/OLD geometric mean" in out
    generated = new.read_text(encoding="utf-8")
    assert "inline constexpr int32_t ORMQR_BLOCK_SIZE_LARGE = 32;" in generated
    confirmed = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert confirmed
