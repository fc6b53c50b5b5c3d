"""One output guard for every command that writes (issue 22, class 6).

An output equal (symbolic links resolved) to an input the command read is refused with one line
naming both, exit 1, nothing written; an output through a symbolic link writes the link's
target and keeps the link; two ``port``s into one header never lose an edit.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.cli import port as port_cli

ROOT = Path(__file__).resolve().parents[2]
GUARD_FIX = "write the output to another file"

HEADER_SECTION: dict[str, Any] = {
    "path": "include/tuning.hh",
    "namespace": "x::tuning",
    "env_prefix": "X_TUNE_",
    "buckets": [["ALL", None]],
    "constants": [
        {"name": "BLOCK", "type": "int32_t", "sources": [{"bench": "fake", "param": "block"}]}
    ],
}
HEADER = (
    "#pragma once\n#include <cstdint>\nnamespace x::tuning {\n"
    "inline constexpr int32_t BLOCK_ALL = 16;\n}\n"
)


def _bench(**over: Any) -> dict[str, Any]:
    bench = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "avg_ms",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
    }
    bench.update(over)
    return bench


def _tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links as their target) and its hash."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path)] = f"-> {path.readlink()}"
        elif path.is_file():
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def project(
    tmp_path: Path, fake_build: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, Path]:
    """(space, profile, header) of a project tuned once with the fake benchmark."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "include").mkdir()
    header = tmp_path / "include" / "tuning.hh"
    header.write_text(HEADER)
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"spaces": [_bench()], "header": HEADER_SECTION}, indent=2))
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(profile)]
    assert main([*argv, "--quiet"]) == 0
    return space, profile, header


def _refused(
    argv: list[str], folder: Path, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = _tree(folder)
    assert main(argv) == 1
    assert capsys.readouterr().err == f"error: {message}\n"
    assert _tree(folder) == before


def test_tune_out_naming_the_executable_or_a_grid_file_is_refused_before_the_sweep(
    tmp_path: Path,
    fake_build: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "blocks.txt").write_text("16\n32\n")
    grid = {"fixed": {"n": 64}, "tune": {"block": {"file": "blocks.txt"}}}
    space = write_space([_bench(cases=[grid])])
    exe = fake_build / "benchmarks" / "fake_benchmark"
    base = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--quiet", "--out"]
    for out, what in (
        (exe, f"the executable of bench 'fake' ({exe})"),
        (tmp_path / "blocks.txt", f"a grid file of the space ({tmp_path / 'blocks.txt'})"),
    ):
        message = f"--out {out}: is {what}; {GUARD_FIX}"
        _refused([*base, str(out)], tmp_path, message, capsys)


def test_tune_out_naming_the_header_is_refused_before_the_sweep(
    project: tuple[Path, Path, Path], fake_build: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space, _, header = project
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--rerun", "--out",
            str(header)]  # fmt: skip
    message = f"--out {header}: is the space's header ({header}); {GUARD_FIX}"
    _refused(argv, space.parent, message, capsys)


def test_tune_out_through_a_link_to_the_executable_is_refused(
    tmp_path: Path,
    fake_build: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    exe = fake_build / "benchmarks" / "fake_benchmark"
    link = tmp_path / "profile.json"
    link.symlink_to(exe)
    space = write_space([_bench()])
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(link)]
    message = f"--out {link}: is the executable of bench 'fake' ({exe}); {GUARD_FIX}"
    _refused(argv, tmp_path, message, capsys)


def test_generate_out_naming_the_space_the_profile_points_to_is_refused(
    project: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, _ = project
    argv = ["generate", "--profile", str(profile), "--out", str(space)]
    _refused(argv, space.parent, f"--out {space}: is the space ({space}); {GUARD_FIX}", capsys)


def test_review_out_naming_the_space_or_the_checked_in_header_is_refused(
    project: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, header = project
    generated = space.parent / "generated.hh"
    assert main(["generate", "--profile", str(profile), "--out", str(generated)]) == 0
    base = ["review", "--generated", str(generated), "--profile", str(profile), "--out"]
    _refused(
        [*base, str(space)], space.parent, f"--out {space}: is the space ({space}); {GUARD_FIX}",
        capsys,
    )  # fmt: skip
    message = f"--out include/tuning.hh: is the checked-in header ({header}); {GUARD_FIX}"
    _refused([*base, "include/tuning.hh"], space.parent, message, capsys)


@pytest.mark.parametrize("command", ["generate", "review", "export"])
def test_an_output_through_a_symbolic_link_writes_the_target_and_keeps_the_link(
    project: tuple[Path, Path, Path], command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    space, profile, _ = project
    folder = space.parent
    generated = folder / "generated.hh"
    assert main(["generate", "--profile", str(profile), "--out", str(generated)]) == 0
    (folder / "real").mkdir()
    target = folder / "real" / "out.txt"
    target.write_text("old\n")
    link = folder / "out.txt"
    link.symlink_to("real/out.txt")
    argv = {
        "generate": ["generate", "--profile", str(profile), "--out", str(link)],
        "review": [
            "review",
            "--generated",
            str(generated),
            "--profile",
            str(profile),
            "--out",
            str(link),
        ],
        "export": ["export", str(profile), "--format", "csv", "--out", str(link)],
    }[command]
    assert main(argv) == 0, capsys.readouterr().err
    assert link.is_symlink() and link.readlink() == Path("real/out.txt")
    assert target.read_text() != "old\n"
    assert sorted(p.name for p in (folder / "real").iterdir()) == ["out.txt"]


def test_export_out_naming_its_source_is_refused(
    project: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, profile, _ = project
    argv = ["export", str(profile), "--format", "csv", "--out", str(profile)]
    message = f"--out {profile}: is the profile or store exported ({profile}); {GUARD_FIX}"
    _refused(argv, profile.parent, message, capsys)


def test_port_into_its_own_generated_header_is_refused(
    project: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, header = project
    argv = ["port", "--generated", str(header), "--header", str(header), "--only", "BLOCK_ALL"]
    message = f"--header {header}: is the generated header ({header}); {GUARD_FIX}"
    _refused(argv, header.parent.parent, message, capsys)


TWO = (
    "#pragma once\n#include <cstdint>\nnamespace x::tuning {\n"
    "inline constexpr int32_t A_ALL = 1;\ninline constexpr int32_t B_ALL = 1;\n}\n"
)


def test_two_ports_into_one_header_at_once_keep_both_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "h.hh"
    header.write_text(TWO)
    generated = tmp_path / "gen.hh"
    generated.write_text(TWO.replace("= 1;", "= 2;"))
    real_read = port_cli.read_header

    def slow_read(path: Path) -> Any:
        got = real_read(path)
        if Path(path) == header:
            time.sleep(0.2)  # both ports read the header before either writes it
        return got

    monkeypatch.setattr(port_cli, "read_header", slow_read)
    codes: list[int] = []
    ports = [
        threading.Thread(
            target=lambda name=name: codes.append(
                main(
                    ["port", "--generated", str(generated), "--header", str(header), "--only", name]
                )
            )
        )
        for name in ("A_ALL", "B_ALL")
    ]
    for thread in ports:
        thread.start()
    for thread in ports:
        thread.join()
    assert codes == [0, 0]
    assert header.read_text() == TWO.replace("= 1;", "= 2;")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen.hh", "h.hh"]


def test_two_port_processes_racing_lose_no_edit(tmp_path: Path) -> None:
    generated = tmp_path / "gen.hh"
    generated.write_text(TWO.replace("= 1;", "= 2;"))
    header = tmp_path / "h.hh"
    lost = 0
    for _ in range(20):
        header.write_text(TWO)
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchspace.harness.cli",
                    "port",
                    "--generated",
                    str(generated),
                    "--header",
                    str(header),
                    "--only",
                    name,
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("A_ALL", "B_ALL")
        ]
        for proc in procs:
            assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
        lost += header.read_text() != TWO.replace("= 1;", "= 2;")
    assert lost == 0
