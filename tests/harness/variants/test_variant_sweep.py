"""The demo's compile-time bench through ``benchspace tune``: built once, reused, failures kept."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.store import Store

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "spaces" / "demo_variants.json"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def _space(tmp: Path, lanes: list[int], **build: Any) -> Path:
    """The demo space with a smaller grid (one case, one repeat), written beside the repo's
    sources: ``{source_dir}`` is the project root of the space file, so it stays in ROOT."""
    data = json.loads(DEMO.read_text())
    bench = data["spaces"][0]
    bench["cases"] = [{"fixed": {"n": 64}, "tune": {"REDUCE_LANES": lanes}}]
    bench["repeats"] = 1
    bench["build"].update(build)
    data.pop("header")
    path = ROOT / "spaces" / f".test-{tmp.name}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def space_path(tmp_path: Path) -> Any:
    made: list[Path] = []

    def make(lanes: list[int], **build: Any) -> Path:
        path = _space(tmp_path, lanes, **build)
        made.append(path)
        return path

    yield make
    for path in made:
        path.unlink(missing_ok=True)


def _tune(space: Path, build: Path, *more: str) -> int:
    return main(["tune", "--space", str(space), "--build-dir", str(build), "--quiet", *more])


def test_every_variant_is_built_once_and_a_rerun_builds_and_runs_nothing(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([1, 4, 8])
    build = tmp_path / "build"
    assert _tune(space, build, "--build-jobs", "2") == 0
    out = capsys.readouterr().out
    assert "3 invocations run, 0 from the store" in out
    assert "3 variants built, 0 from the store" in out
    assert _tune(space, build) == 0
    out = capsys.readouterr().out
    assert "0 invocations run, 3 from the store" in out
    assert "0 variants built, 3 from the store" in out
    profile = json.loads((build / "tuning" / "profile.json").read_text())
    best = profile["results"][0]["best"]["params"]
    assert best["REDUCE_LANES"] in (4, 8)  # one accumulator is a latency chain: never best
    with Store(build / "tuning" / "profile.store.sqlite") as store:
        rows = store.builds(bench="reduce")
    assert [r.status for r in rows] == ["built"] * 3
    assert all(r.seconds > 0 and len(r.artefact_sha256) == 64 for r in rows)
    assert sorted(dict(r.values)["REDUCE_LANES"] for r in rows) == [1, 4, 8]


def test_a_variant_that_fails_to_build_is_recorded_and_the_sweep_goes_on(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([0, 4])  # REDUCE_LANES=0 trips the bench's static_assert
    build = tmp_path / "build"
    assert _tune(space, build) == 1
    captured = capsys.readouterr()
    assert "1 failed invocations" in captured.err
    assert "build_failed: case 0 {'REDUCE_LANES': 0}: variant did not build" in captured.out
    profile = json.loads((build / "tuning" / "profile.json").read_text())
    result = profile["results"][0]
    assert result["best"]["params"] == {"REDUCE_LANES": 4}
    (failure,) = result["failures"]
    assert failure["status"] == "build_failed"
    with Store(build / "tuning" / "profile.store.sqlite") as store:
        failed = [r for r in store.builds() if r.status == "build_failed"]
    assert len(failed) == 1 and "REDUCE_LANES must be in [1, 64]" in failed[0].log_tail
    # Recorded failures are data: the next run neither rebuilds nor re-runs.
    assert _tune(space, build, "--allow-failures") == 0
    assert "0 variants built, 2 from the store" in capsys.readouterr().out


def test_plan_counts_builds_and_validate_builds_one(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([1, 2, 4])
    assert _tune(space, tmp_path / "b", "--plan") == 0
    assert "reduce: 3 variants to build (REDUCE_LANES)" in capsys.readouterr().out
    assert _tune(space, tmp_path / "b", "--validate") == 0
    out = capsys.readouterr().out
    assert "ok       reduce: built REDUCE_LANES=1 in" in out
    assert not (tmp_path / "b").exists()  # validation records nothing


def test_a_build_timeout_is_its_own_status(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([2], command=["sh", "-c", "sleep 20 # {exe}", "{defines}"], timeout_s=0.3)
    assert _tune(space, tmp_path / "b") == 1
    assert "build_timeout: case 0 {'REDUCE_LANES': 2}" in capsys.readouterr().out


def test_a_version_1_store_gains_the_builds_table(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path):
        pass
    db = sqlite3.connect(path)
    db.execute("DROP TABLE builds")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    db.commit()
    db.close()
    with Store(path, lock=True) as store:
        assert store.builds() == []
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == ("2",)
    db.close()


def test_ab_builds_the_a_and_b_variants(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([1, 8])
    argv = ["ab", "--space", str(space), "--bench", "reduce", "--case", "0", "--rounds", "5",
            "--build-dir", str(tmp_path / "b"), "--quiet", "--format", "json"]  # fmt: skip
    assert main([*argv, "--compile-a", "REDUCE_LANES=1", "--compile-b", "REDUCE_LANES=8"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "variants/reduce/" in json.dumps(report)
    with Store(tmp_path / "b" / "variants" / "builds.store.sqlite") as store:
        assert sorted(dict(r.values)["REDUCE_LANES"] for r in store.builds()) == [1, 8]
    assert main([*argv, "--compile-a", "LANES=1"]) == 2  # a usage error
    assert "LANES is not a compile-time parameter" in capsys.readouterr().err


def test_confirm_retimes_the_picks_with_their_own_variants(
    tmp_path: Path, space_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    space = space_path([1, 4, 8])
    build = tmp_path / "build"
    assert _tune(space, build, "--confirm", "2", "--confirm-rounds", "2") == 0
    out = capsys.readouterr().out
    assert "7 invocations run, 0 from the store" in out  # 3 in the sweep, 2 picks x 2 rounds
    assert "3 variants built, 0 from the store" in out  # the confirmation builds nothing
    result = json.loads((build / "tuning" / "profile.json").read_text())["results"][0]
    confirmed = [m for m in result["measurements"] if m.get("confirmed")]
    assert len(confirmed) == 2 and all(m["n"] == 2 for m in confirmed)
    assert result["per_case_best"][0]["selection"]["n"] == 1
