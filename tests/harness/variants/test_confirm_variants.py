"""``confirm`` of a compile-time constant: two variants built (or found), A/B'd, recorded."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "benchmarks" / "demo" / "variants" / "reduce_benchmark.cc"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def _project(tmp: Path, *, consumers: bool = True) -> Path:
    """A project of its own: the demo's reduce bench (one case, REDUCE_LANES 1 or 8)."""
    project = tmp / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    shutil.copy(SOURCE, project / "src" / "reduce_benchmark.cc")
    data = json.loads((ROOT / "spaces" / "demo_variants.json").read_text())
    bench = data["spaces"][0]
    bench["build"]["command"][-1] = "{source_dir}/src/reduce_benchmark.cc"
    bench["build"]["inputs"] = ["src/reduce_benchmark.cc"]
    bench["cases"] = [{"fixed": {"n": 8192}, "tune": {"REDUCE_LANES": [1, 8]}}]
    bench["repeats"] = 1
    if consumers:
        bench["consumers"] = [{"bench": "reduce", "cases": [0]}]
    data["header"]["path"] = "include/reduce_params.hh"
    (project / "spaces").mkdir()
    space = project / "spaces" / "reduce.json"
    space.write_text(json.dumps(data))
    return space


def _builds(store: Path) -> int:
    with sqlite3.connect(store) as db:
        return int(db.execute("SELECT COUNT(*) FROM builds").fetchone()[0])


def _tuned(tmp: Path, capsys: pytest.CaptureFixture[str], **kw: Any) -> tuple[Path, Path, Path]:
    space = _project(tmp, **kw)
    build, profile = tmp / "build", tmp / "tuning" / "profile.json"
    tune = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(profile)]
    assert main([*tune, "--quiet"]) == 0
    header = space.parents[1] / "include" / "reduce_params.hh"
    header.parent.mkdir()
    assert main(["generate", "--profile", str(profile), "--space", str(space), "--out",
                 str(header)]) == 0  # fmt: skip
    text = header.read_text()
    assert "REDUCE_LANES_XLARGE = 8;" in text  # 8 lanes beat 1 on 8192 floats
    # The checked-in header ships 1: the review proposes 1 -> 8 in the bucket of n = 8192.
    header.write_text(text.replace("REDUCE_LANES_XLARGE = 8;", "REDUCE_LANES_XLARGE = 1;"))
    capsys.readouterr()
    return space, profile, build


def test_confirm_builds_nothing_after_the_sweep_and_ab_tests_the_two_variants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, build = _tuned(tmp_path, capsys)
    sweep_store = profile.with_name("profile.store.sqlite")
    assert _builds(sweep_store) == 2
    out = tmp_path / "confirmed.json"
    code = main(["confirm", "--space", str(space), "--profile", str(profile), "--rounds", "6",
                 "--format", "json", "--out", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    doc = json.loads(out.read_text())
    (change,) = doc["changes"]
    assert change["name"] == "REDUCE_LANES_XLARGE"
    assert change["verdict"] == "accepted", change["reason"]
    (run,) = change["runs"]
    assert run["compile_a"] == {"REDUCE_LANES": "1"}
    assert run["compile_b"] == {"REDUCE_LANES": "8"}
    assert run["exe_a"] != run["exe_b"]  # two executables, one per variant
    assert all(
        e.startswith(str(build / "variants" / "reduce")) for e in (run["exe_a"], run["exe_b"])
    )
    assert run["env_a"] == {} and run["env_b"] == {}  # no override: the preprocessor decides
    assert run["ratio"] < 1.0  # B (8 lanes) takes less time
    assert _builds(sweep_store) == 2  # both variants came from the sweep's builds table


def test_confirm_builds_a_missing_variant_and_names_a_value_it_cannot_find(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, _ = _tuned(tmp_path, capsys)
    header = space.parents[1] / "include" / "reduce_params.hh"
    header.write_text(
        header.read_text().replace("REDUCE_LANES_XLARGE = 1;", "REDUCE_LANES_XLARGE = 2;")
    )
    builds = tmp_path / "builds.sqlite"
    code = main(["confirm", "--space", str(space), "--profile", str(profile), "--rounds", "6",
                 "--format", "json", "--builds-store", str(builds), "--include-incumbent",
                 "--quiet"])  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["changes"][0]["runs"][0]["compile_a"] == {"REDUCE_LANES": "2"}
    assert _builds(builds) == 2  # a store of its own: 2 (never swept) and 8 built again
    bad = main(["confirm", "--space", str(space), "--profile", str(profile), "--compile",
                "NOPE=3", "--quiet"])  # fmt: skip
    assert bad == 2  # a usage error
    assert "--compile NOPE: not a compile-time parameter" in capsys.readouterr().err
