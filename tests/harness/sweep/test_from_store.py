"""``tune --from-store``: a profile assembled from the store alone, where nothing is run (the
executable removed), equal to the sweep's own; an attempt the store lacks, a store of several
builds and a missing store are one-line errors with nothing written."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import ProfileError
from benchspace.harness.profiles.read import load_profile


def _space(write_space: Callable[..., Path], ns: tuple[int, ...]) -> Path:
    bench = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": n}, "tune": {"block": [16, 32, 64]}} for n in ns],
    }
    return write_space([bench])


def _tune(space: Path, build: Path, out: Path, store: Path, *extra: str) -> int:
    argv = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out),
            "--store", str(store), "--quiet", *extra]  # fmt: skip
    return main(argv)


def _count(store: Path) -> int:
    with sqlite3.connect(store) as db:
        return int(db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])


def _figures(path: Path) -> list[tuple[Any, ...]]:
    """What a profile says of its rows and winners (not when or where it was written)."""
    doc = json.loads(path.read_text())
    out: list[tuple[Any, ...]] = []
    for result in doc["results"]:
        for m in result["measurements"]:
            out.append((m["case_index"], json.dumps(m["params"], sort_keys=True), m["median"],
                        m.get("selection"), m.get("confirmed")))  # fmt: skip
        out.append(("best", json.dumps(result["best"], sort_keys=True)))
        out.append(("per_case", json.dumps(result["per_case_best"], sort_keys=True)))
    return out


@pytest.fixture
def swept(
    fake_build: Path, write_space: Callable[..., Path], tmp_path: Path
) -> tuple[Path, Path, Path]:
    """A confirmed sweep of two cases: (space, its profile, its store)."""
    space = _space(write_space, (64, 256))
    out, store = tmp_path / "swept.json", tmp_path / "store.sqlite"
    code = _tune(space, fake_build, out, store, "--repeats", "2", "--confirm", "2",
                 "--confirm-rounds", "2")  # fmt: skip
    assert code == 0
    return space, out, store


def test_the_profile_from_the_store_is_the_sweeps_own(
    swept: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, store = swept
    elsewhere = tmp_path / "no_build"  # the executable is not here: nothing can run
    out = tmp_path / "assembled.json"
    capsys.readouterr()
    code = _tune(space, elsewhere, out, store, "--from-store", "--repeats", "2", "--confirm",
                 "2", "--confirm-rounds", "2")  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "0 invocations run" in printed
    assert _figures(out) == _figures(profile)
    assert json.loads(out.read_text())["meta"]["provenance"]["from_store"] == str(store)


def test_an_attempt_the_store_lacks_is_an_error_and_nothing_is_written(
    swept: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space, _, store = swept
    out = tmp_path / "assembled.json"
    before = _count(store)
    capsys.readouterr()
    code = _tune(space, tmp_path / "no_build", out, store, "--from-store", "--repeats", "3")
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert f"{store}: 6 attempts the profile needs are not in the store" in err
    assert "repeat 3" in err and "--from-store runs nothing" in err
    assert not out.exists()
    assert _count(store) == before == 20  # nothing added either (12 swept, 8 confirmed)


def test_a_store_of_two_builds_asks_which(
    swept: tuple[Path, Path, Path],
    fake_build: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    space, profile, store = swept
    exe = fake_build / "benchmarks" / "fake_benchmark"
    exe.write_bytes(exe.read_bytes() + b"\n# rebuilt\n")  # another build: keyed apart
    assert _tune(space, fake_build, tmp_path / "second.json", store, "--repeats", "1") == 0
    with sqlite3.connect(store) as db:
        shas = [r[0] for r in db.execute("SELECT DISTINCT exe_sha256 FROM attempts")]
    assert len(shas) == 2
    first = json.loads(profile.read_text())["meta"]["provenance"]["executables"]["fake_benchmark"]
    out = tmp_path / "assembled.json"
    capsys.readouterr()
    code = _tune(space, tmp_path / "no_build", out, store, "--from-store", "--repeats", "2")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "holds attempts of 2 builds of the executable of bench 'fake'" in err
    assert "name one with --exe-sha PREFIX" in err and first[:12] in err
    assert not out.exists()
    code = _tune(space, tmp_path / "no_build", out, store, "--from-store", "--repeats", "2",
                 "--exe-sha", first[:8])  # fmt: skip
    assert code == 0
    assert load_profile(out).results["fake"].exe_sha256 == first
    code = _tune(space, tmp_path / "no_build", out, store, "--from-store", "--exe-sha", "ffff")
    assert code == 2
    assert "--exe-sha ffff: no build of bench 'fake'" in capsys.readouterr().err


def test_misuse_is_one_line(
    write_space: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = _space(write_space, (64,))
    out = tmp_path / "p.json"
    code = _tune(space, tmp_path, out, tmp_path / "none.sqlite", "--from-store")
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "none.sqlite: no such store; --from-store" in err
    assert not (tmp_path / "none.sqlite").exists()
    (tmp_path / "folder").mkdir()
    assert _tune(space, tmp_path, out, tmp_path / "folder", "--from-store") == 1
    assert "folder: is a directory, not a store; --from-store" in capsys.readouterr().err
    assert _tune(space, tmp_path, out, tmp_path / "s.sqlite", "--exe-sha", "ab") == 2
    assert "--exe-sha: applies only with --from-store" in capsys.readouterr().err
    assert _tune(space, tmp_path, out, tmp_path / "s.sqlite", "--from-store", "--rerun") == 2
    assert "--from-store runs nothing: drop --rerun" in capsys.readouterr().err
    assert not out.exists()


def test_one_confirmation_round_is_allowed_but_not_raced(
    fake_build: Path, write_space: Callable[..., Path], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    space = _space(write_space, (64,))
    out, store = tmp_path / "p.json", tmp_path / "s.sqlite"
    assert _tune(space, fake_build, out, store, "--confirm", "2", "--confirm-rounds", "1") == 0
    rows = json.loads(out.read_text())["results"][0]["measurements"]
    assert sum(bool(r.get("confirmed")) for r in rows) == 2
    code = _tune(space, fake_build, out, store, "--race", "--confirm", "2",
                 "--confirm-rounds", "1")  # fmt: skip
    assert code == 2
    assert "a raced confirmation needs 2 rounds at least" in capsys.readouterr().err


def test_a_gzipped_profile_reads_as_itself(swept: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, profile, _ = swept
    packed = tmp_path / "profile.json.gz"
    packed.write_bytes(gzip.compress(profile.read_bytes()))
    assert replace(load_profile(packed), source="") == replace(load_profile(profile), source="")
    broken = tmp_path / "broken.json.gz"
    shutil.copy(profile, broken)  # named .gz, not compressed
    with pytest.raises(ProfileError, match=r"broken.json.gz: not a gzip file .*; name the "
                       r"uncompressed profile without .gz"):  # fmt: skip
        load_profile(broken)
