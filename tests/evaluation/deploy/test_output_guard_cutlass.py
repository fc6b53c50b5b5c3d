"""The output guard in the study's commands (issue 22, class 6): ``cutlass tune-shapes`` and
``cutlass header`` refuse an output that is one of their inputs, with one line, writing nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_tune_shapes import saved, tuned  # noqa: F401  (the module's fixtures)

from benchspace.harness.cli import main

FIX = "write the output to another file"
SHAPES = Path(__file__).resolve().parents[3] / "evaluation" / "data" / "shapes"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(argv: list[str], kept: Path, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    before = _digest(kept)
    assert main(argv) == 1
    assert capsys.readouterr().err == f"error: {message}\n"
    assert _digest(kept) == before


def test_tune_shapes_out_naming_its_shapes_file_is_refused(
    saved: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shapes = tmp_path / "my.json"
    shapes.write_text('{"shapes": [[4096, 4096, 4096]]}\n')
    argv = ["cutlass", "tune-shapes", str(shapes), "--model", str(saved), "--out", str(shapes)]
    _refused(argv, shapes, f"--out {shapes}: is a shapes file ({shapes}); {FIX}", capsys)
    argv[-1] = str(saved)
    _refused(argv, saved, f"--out {saved}: is the selector ({saved}); {FIX}", capsys)


def test_header_out_naming_its_profile_or_its_space_is_refused(
    tuned: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    profile = tuned / "profile.json"
    argv = ["cutlass", "header", "--from-profile", str(profile), "--out", str(profile)]
    _refused(argv, profile, f"--out {profile}: is the profile ({profile}); {FIX}", capsys)
    space = tuned / "space.json"
    argv = ["cutlass", "header", "--space", str(space), "--out", str(space)]
    _refused(argv, space, f"--out {space}: is the space ({space}); {FIX}", capsys)


def test_a_selector_without_candidates_is_one_line(
    saved: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = json.loads(saved.read_text())
    doc["candidates"] = []
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(doc))
    assert main(["cutlass", "select", "64", "64", "64", "--model", str(empty)]) == 1
    assert capsys.readouterr().err == (
        f"error: {empty}: $.candidates: the selector has no candidates to rank; retrain it "
        "with 'benchspace cutlass train'\n"
    )


def _refused_all(
    argv: list[str], folder: Path, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused with `message`; nothing under `folder` changes (no file added either)."""
    capsys.readouterr()
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert main(argv) == 1
    assert capsys.readouterr().err == f"error: {message}\n"
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_tune_shapes_files_beside_out_naming_its_shapes_file_are_refused(
    saved: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --out s.json writes s.kernels.txt and s.shortlist.csv too: neither may be an input
    for beside, option in (("s.kernels.txt", "--out's kernel list"),
                           ("s.shortlist.csv", "--out's shortlist")):  # fmt: skip
        shapes = tmp_path / beside
        shapes.write_text("4096 4096 4096\n")
        out = tmp_path / "s.json"
        argv = ["cutlass", "tune-shapes", str(shapes), "--model", str(saved), "--out", str(out)]
        message = f"{option} {shapes}: is a shapes file ({shapes}); {FIX}"
        _refused_all(argv, tmp_path, message, capsys)
        shapes.unlink()


def test_shapes_out_naming_a_previous_shape_set_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    previous = tmp_path / "layers_v1.json"
    previous.write_bytes((SHAPES / "h200.json").read_bytes())
    argv = ["cutlass", "shapes", "--layers", "--previous", str(previous), "--out", str(previous)]
    message = f"--out {previous}: is a --previous shape-set file ({previous}); {FIX}"
    _refused_all(argv, tmp_path, message, capsys)


def test_kernel_set_out_naming_the_list_it_widens_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kernels.txt"
    kept.write_text("# format: benchspace-kernel-list 1\nk1\n")
    argv = ["cutlass", "kernel-set", "--widen", str(kept), "--out", str(kept)]
    _refused_all(argv, tmp_path, f"--out {kept}: is the --widen list ({kept}); {FIX}", capsys)


def test_space_outputs_naming_the_shape_set_or_each_other_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shapes = tmp_path / "shapes.json"
    shapes.write_bytes((SHAPES / "h200.json").read_bytes())
    kernels = tmp_path / "kernels.txt"
    base = ["cutlass", "space", "--shapes", str(shapes), "--build-dir", str(tmp_path)]
    argv = [*base, "--out", str(shapes), "--kernels-out", str(kernels)]
    message = f"--out {shapes}: is the shape-set file ({shapes}); {FIX}"
    _refused_all(argv, tmp_path, message, capsys)
    argv = [*base, "--out", str(tmp_path / "space.json"), "--kernels-out", str(shapes)]
    message = f"--kernels-out {shapes}: is the shape-set file ({shapes}); {FIX}"
    _refused_all(argv, tmp_path, message, capsys)
    argv = [*base, "--out", str(kernels), "--kernels-out", str(kernels)]
    message = f"--out {kernels}: is the --kernels-out list ({kernels}); {FIX}"
    _refused_all(argv, tmp_path, message, capsys)


def test_library_out_holding_its_header_where_it_writes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = Path(__file__).resolve().parents[3] / "include" / "benchspace" / "gemm_kernels.hh"
    header = tmp_path / "include" / "benchspace_gemm.h"  # the project's C API header's path
    header.parent.mkdir()
    header.write_text(shipped.read_text())
    argv = ["cutlass", "library", "--header", str(header), "--out", str(tmp_path)]
    _refused_all(argv, tmp_path, f"--out {header}: is the header ({header}); {FIX}", capsys)


def test_build_dir_holding_its_kernel_list_as_an_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernels = tmp_path / "batches.json"  # the index the build writes
    kernels.write_text("# format: benchspace-kernel-list 1\nk1\n")
    argv = ["cutlass", "build", "--kernels", str(kernels), "--build-dir", str(tmp_path)]
    message = f"--build-dir {kernels}: is the kernel list ({kernels}); {FIX}"
    _refused_all(argv, tmp_path, message, capsys)


def test_export_out_holding_an_input_where_it_writes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = tmp_path / "provenance.json"  # the dataset's provenance, given as the device info
    info.write_text('{"gpu": "H200"}\n')
    argv = ["cutlass", "export", "--store", str(tmp_path / "s.sqlite"), "--index",
            str(tmp_path / "batches.json"), "--device-info", str(info), "--out",
            str(tmp_path)]  # fmt: skip
    _refused_all(argv, tmp_path, f"--out {info}: is the device info ({info}); {FIX}", capsys)
