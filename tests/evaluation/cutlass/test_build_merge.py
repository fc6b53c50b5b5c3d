"""Merging build directories: batches compiled on another machine join this one's index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchspace.evaluation.cutlass.batch_index import load_index, merge_index, write_index
from benchspace.evaluation.cutlass.build import merge_build_dir
from benchspace.harness.errors import BenchspaceError

BUILD = {"cutlass_version": "4.2.0", "flags": ["-O3"], "glue_version": 2}


def _index(batches: dict[str, tuple[str, list[str]]]) -> dict[str, Any]:
    index: dict[str, Any] = {
        "format": "benchspace-cutlass-batches",
        "version": 1,
        **BUILD,
        "batches": {},
        "kernels": {},
    }
    for batch_id, (status, names) in batches.items():
        index["batches"][batch_id] = {
            "library": f"libcb_{batch_id}.so",
            "kernels": names,
            "status": status,
        }
        if status == "built":
            for at, name in enumerate(names):
                index["kernels"][name] = {"library": f"libcb_{batch_id}.so", "index": at}
    return index


def _build_dir(root: Path, batches: dict[str, tuple[str, list[str]]]) -> Path:
    (root / "src").mkdir(parents=True)
    index = _index(batches)
    write_index(root, index)
    for batch_id, (status, _names) in batches.items():
        if status == "built":
            (root / f"libcb_{batch_id}.so").write_bytes(batch_id.encode())
            (root / "src" / f"cb_{batch_id}.ptxas.txt").write_text("ptxas info")
    return root


def test_merge_adds_the_other_batches_and_keeps_its_own() -> None:
    into = _index({"a": ("built", ["k1"]), "b": ("failed", ["k2"])})
    other = _index({"a": ("built", ["k1"]), "b": ("built", ["k2"]), "c": ("built", ["k3"])})
    assert merge_index(into, other, "other/batches.json") == ["b", "c"]
    assert into["batches"]["b"]["status"] == "built"
    assert set(into["kernels"]) == {"k1", "k2", "k3"}


def test_a_failed_batch_never_replaces_a_built_one() -> None:
    into = _index({"a": ("built", ["k1"])})
    assert merge_index(into, _index({"a": ("failed", ["k1"])}), "o") == []
    assert into["batches"]["a"]["status"] == "built"


def test_other_flags_are_refused_by_name() -> None:
    other = {**_index({"c": ("built", ["k3"])}), "flags": ["-O2"]}
    with pytest.raises(BenchspaceError, match=r"o/batches.json: \$.flags is \['-O2'\]"):
        merge_index(_index({}), other, "o/batches.json")


def test_merge_build_dir_copies_libraries_and_reports(tmp_path: Path) -> None:
    mine = _build_dir(tmp_path / "mine", {"a": ("built", ["k1"])})
    theirs = _build_dir(tmp_path / "theirs", {"b": ("built", ["k2"]), "c": ("built", ["k3"])})
    (theirs / "libcb_c.so").unlink()  # listed but missing: not taken
    assert merge_build_dir(mine, theirs) == 1
    index = load_index(mine)
    assert sorted(index["batches"]) == ["a", "b"]
    assert (mine / "libcb_b.so").read_bytes() == b"b"
    assert (mine / "src" / "cb_b.ptxas.txt").exists()
    assert "k3" not in index["kernels"]


def test_merging_into_an_empty_dir_takes_the_build_settings(tmp_path: Path) -> None:
    theirs = _build_dir(tmp_path / "theirs", {"b": ("built", ["k2"])})
    assert merge_build_dir(tmp_path / "new", theirs) == 1
    assert load_index(tmp_path / "new")["flags"] == ["-O3"]


def test_a_dir_without_an_index_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BenchspaceError, match=r"no batches\.json; name a build directory"):
        merge_build_dir(tmp_path / "mine", tmp_path)


KERNELS = [
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
    "_warpspecialized_pingpong_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
    "_stream_k_warpspecialized_cooperative_epi_nosmem",
]
# An nvcc whose compiles hang (each writes its pid to started/ first); -dryrun answers at once.
FAKE_NVCC = """#!/bin/sh
case " $* " in *" -dryrun "*) exit 0;; esac
echo $$ > "$FAKE_STARTED/$$"
exec sleep 60
"""


def test_a_stop_signal_stops_the_build_at_once(tmp_path: Path) -> None:
    """SIGTERM kills the running compile, starts no queued one, and records no failure."""
    import os
    import signal
    import subprocess
    import sys
    import time

    toolkit = tmp_path / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "lib64").mkdir()
    (toolkit / "lib64" / "libcudart.so.13").write_bytes(b"")
    nvcc = toolkit / "bin" / "nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    started = tmp_path / "started"
    started.mkdir()
    kernels = tmp_path / "kernels.txt"
    kernels.write_text("\n".join(KERNELS) + "\n")
    build = tmp_path / "b"
    env = {**os.environ, "NVCC": str(nvcc), "FAKE_STARTED": str(started)}
    argv = [sys.executable, "-m", "benchspace.harness.cli", "cutlass", "build",
            "--kernels", str(kernels),
            "--build-dir", str(build), "--per-tu", "1", "--jobs", "1", "--no-driver"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not any(started.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(started.iterdir()), "the first compile never started"
    stop = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert time.monotonic() - stop < 10
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert b"interrupted by SIGTERM" in err
    assert len(list(started.iterdir())) == 1  # the queued batch never started
    for pid_file in started.iterdir():
        assert not Path(f"/proc/{pid_file.name}").exists() or _is_zombie(pid_file.name)
    assert not list(build.glob(".*.partial"))
    index = load_index(build)
    assert not any(e["status"] == "failed" for e in index["batches"].values())


def _is_zombie(pid: str) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True
