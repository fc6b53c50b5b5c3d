"""cmake/benchspace.cmake: a tiny project regenerates its header and compile-checks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from header_helpers import GOLDEN, PROFILES, ROOT, SPACES

PROJECT = """\
cmake_minimum_required(VERSION 3.16)
project(uses_tuning CXX)
include("{helper}")
benchspace_add_tuning_header(
  TARGET demo_tuning
  PROFILE profile.json
  SPACE demo_like.json
  HEADER empty.hh
  OUTPUT ${{CMAKE_BINARY_DIR}}/generated/benchspace_demo/tuning_params.hh
  INCLUDE_DIR ${{CMAKE_BINARY_DIR}}/generated
  PYTHON "{python}")
add_executable(use use.cc)
target_link_libraries(use PRIVATE demo_tuning)
"""

USE = """\
#include <cstdio>
#include <benchspace_demo/tuning_params.hh>
int main() {
    std::printf("%d\\n", static_cast<int>(benchspace_demo::tuning::matmul_block_for_n(300)));
    return 0;
}
"""


def _run(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{' '.join(argv)}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _installed_helper(tmp_path: Path) -> Path:
    """benchspace built as a wheel and unpacked into a folder: the helper it ships."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
        + [str(w) for w in wheels.glob("*.whl")],
        check=True,
        capture_output=True,
    )
    return site / "benchspace" / "harness" / "data" / "benchspace.cmake"


@pytest.mark.parametrize("where", ["checkout", "installed"])
def test_cmake_helper_generates_and_checks_the_header(tmp_path: Path, where: str) -> None:
    cmake = shutil.which("cmake")
    if cmake is None or shutil.which("g++") is None:
        pytest.skip("cmake or g++ is not installed")
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(PROFILES / "demo_like.json", source / "profile.json")
    shutil.copy(SPACES / "demo_like.json", source / "demo_like.json")
    (source / "empty.hh").write_text("#pragma once\n")
    (source / "use.cc").write_text(USE)
    (source / "CMakeLists.txt").write_text(
        PROJECT.format(
            helper=(
                ROOT / "cmake" / "benchspace.cmake"
                if where == "checkout"
                else _installed_helper(tmp_path)
            ).as_posix(),
            python=Path(sys.executable).as_posix(),
        )
    )
    build = tmp_path / "build"
    _run([cmake, "-S", str(source), "-B", str(build), "-DCMAKE_CXX_COMPILER=g++"], tmp_path)
    _run([cmake, "--build", str(build), "-j1"], tmp_path)
    header = build / "generated" / "benchspace_demo" / "tuning_params.hh"
    generated = header.read_text().splitlines()
    golden = (GOLDEN / "demo_like.hh").read_text().splitlines()
    # Only the banner differs: it names the space by the path the project passed.
    assert generated[2:] == golden[2:]
    assert "(space demo_like.json " in generated[1]
    assert _run([str(build / "use")], tmp_path) == "128\n"

    # A new profile regenerates the header on the next build.
    profile = source / "profile.json"
    profile.write_text(profile.read_text() + "\n")
    _run([cmake, "--build", str(build), "-j1"], tmp_path)
    assert header.read_text().splitlines()[1] != generated[1]
