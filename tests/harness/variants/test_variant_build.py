"""Building one variant with a real compiler: atomic folders, failures and timeouts as data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.harness.spaces.model import Bench, BuildSpec, Case
from benchspace.harness.store import Store
from benchspace.harness.variants.build import build_variant, sweep_stale, variant_folder
from benchspace.harness.variants.pipeline import BuildSettings, Variants

CXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(CXX is None, reason="g++ is not installed")
SOURCE = """
#ifndef LANES
#include "benchspace_variant.hh"
#endif
#include <cstdio>
static_assert(LANES > 0, "LANES must be positive");
int main() { std::printf("name,t\\nBM,%d\\n", LANES); }
"""


def _bench(tmp: Path, deliver: str = "define", command: tuple[str, ...] | None = None) -> Bench:
    (tmp / "b.cc").write_text(SOURCE)
    cmd = command or ("g++", "-O0", "{defines}", "-o", "{exe}", "{source_dir}/b.cc")
    return Bench(
        name="b",
        metric="t",
        reader="csv",
        compile=("LANES",),
        build=BuildSpec(command=cmd, deliver=deliver, inputs=("b.cc",)),
        cases=(Case(index=0, fixed={}, tune={"LANES": (0, 1, 2)}),),
    )


def _build(bench: Bench, tmp: Path, lanes: int, limit: float = 600.0) -> object:
    return build_variant(
        bench,
        (("LANES", lanes),),
        key=f"{lanes:064d}",
        root=tmp / "variants",
        source_dir=tmp,
        build_dir=tmp,
        limit=lambda: limit,
    )


@needs_gxx
@pytest.mark.parametrize("deliver", ["define", "header"])
def test_a_built_variant_lands_in_its_final_folder_and_runs(tmp_path: Path, deliver: str) -> None:
    command = None
    if deliver == "header":
        command = ("g++", "{defines}", "-o", "{exe}", "{source_dir}/b.cc")
    attempt = _build(_bench(tmp_path, deliver, command), tmp_path, 3)
    assert attempt.status == "built", attempt.log_tail  # type: ignore[attr-defined]
    folder = variant_folder(tmp_path / "variants", f"{3:064d}")
    assert attempt.path == str(folder)  # type: ignore[attr-defined]
    out = subprocess.run([str(folder / "b_benchmark")], capture_output=True, text=True).stdout
    assert out.splitlines()[-1] == "BM,3"
    assert not list((tmp_path / "variants").glob(".tmp-*"))
    assert (folder / "benchspace_variant.hh").exists() == (deliver == "header")


@needs_gxx
def test_a_failed_build_is_data_with_the_compilers_last_lines(tmp_path: Path) -> None:
    attempt = _build(_bench(tmp_path), tmp_path, 0)
    assert attempt.status == "build_failed"  # type: ignore[attr-defined]
    assert "LANES must be positive" in attempt.log_tail  # type: ignore[attr-defined]
    assert "exited with status 1" in attempt.log_tail  # type: ignore[attr-defined]
    assert not (tmp_path / "variants" / f"{0:064d}"[:24]).exists()
    assert not list((tmp_path / "variants").glob(".tmp-*"))


def test_a_build_past_its_limit_is_killed_whole(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild"
    script = f"(sleep 3; touch {marker}) & sleep 30 # {{exe}}"
    bench = _bench(tmp_path, command=("sh", "-c", script))
    attempt = _build(bench, tmp_path, 1, limit=0.5)
    assert attempt.status == "build_timeout"  # type: ignore[attr-defined]
    assert "killed after 0.5 s" in attempt.log_tail  # type: ignore[attr-defined]
    assert attempt.seconds < 5  # type: ignore[attr-defined]
    subprocess.run(["sleep", "3.5"], check=True)
    assert not marker.exists()  # the group died with the build


def test_stale_temporary_folders_of_dead_processes_are_removed(tmp_path: Path) -> None:
    root = tmp_path / "variants"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (root / f".tmp-abc-{dead.pid}-0").mkdir(parents=True)
    (root / f".tmp-abc-{os.getpid()}-0").mkdir()
    assert sweep_stale(root) == 1
    assert [p.name for p in root.iterdir()] == [f".tmp-abc-{os.getpid()}-0"]


@needs_gxx
def test_a_variant_is_reused_only_while_its_executable_is_intact(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    with Store(tmp_path / "s.sqlite") as store:
        variants = Variants(
            bench, store, root=tmp_path / "v", source_dir=tmp_path, build_dir=tmp_path,
            settings=BuildSettings(jobs=2),
        )  # fmt: skip
        wanted = [(("LANES", 1),), (("LANES", 2),), (("LANES", 0),)]
        first = [a.status for _, a in variants.stream(wanted)]
        assert first == ["built", "built", "build_failed"] and variants.built == 3
        again = Variants(
            bench, store, root=tmp_path / "v", source_dir=tmp_path, build_dir=tmp_path,
            settings=BuildSettings(),
        )  # fmt: skip
        assert [a.status for _, a in again.stream(wanted)] == first
        assert again.built == 0 and again.reused == 3
        # A damaged artefact (a half-written file, an edit) is rebuilt, never used.
        exe = again.exe_of(store.builds(key=again.key(wanted[0]))[-1])
        exe.write_bytes(b"#!/bin/sh\n")
        third = Variants(
            bench, store, root=tmp_path / "v", source_dir=tmp_path, build_dir=tmp_path,
            settings=BuildSettings(),
        )  # fmt: skip
        list(third.stream(wanted))
        assert third.built == 1 and third.reused == 2
        # An edited input is another variant.
        (tmp_path / "b.cc").write_text(SOURCE + "// edited\n")
        fourth = Variants(
            bench, store, root=tmp_path / "v", source_dir=tmp_path, build_dir=tmp_path,
            settings=BuildSettings(),
        )  # fmt: skip
        list(fourth.stream(wanted[:1]))
        assert fourth.built == 1
        rows = store.builds(bench="b")
    assert [r.status for r in rows].count("built") == 4
