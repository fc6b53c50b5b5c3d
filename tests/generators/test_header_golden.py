"""Golden headers: byte for byte, and each one compiled by a real C++ compiler.

Regenerate them after an intended change with ``python tests/generators/header_goldens.py``
and review the diff.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from header_goldens import GOLDENS, render_golden
from header_helpers import GOLDEN, ROOT, compile_cxx

from benchspace.generators.generate import generate_header
from benchspace.generators.render import Provenance
from benchspace.harness.errors import HeaderError
from benchspace.harness.profiles.model import Profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_matches_byte_for_byte(name: str) -> None:
    expected = (GOLDEN / name).read_bytes().decode("utf-8")
    assert render_golden(name) == expected, (
        f"tests/golden/{name} is stale: run `python tests/generators/header_goldens.py` and "
        "review the diff"
    )


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_compiles_cleanly(name: str, gxx: str, tmp_path: Path) -> None:
    unit = tmp_path / "unit.cc"
    # Twice: the include guard (or #pragma once) must hold.
    unit.write_text(f'#include "{name}"\n#include "{name}"\nint main() {{ return 0; }}\n')
    compile_cxx(gxx, [unit], tmp_path / "unit.o", [GOLDEN], ["-c", "-O2", "-Wpedantic", "-Wshadow"])


def test_the_demo_library_compiles_against_the_generated_header(gxx: str, tmp_path: Path) -> None:
    """The generated demo header is a drop-in for the hand-written one."""
    shadow = tmp_path / "include" / "benchspace_demo"
    shadow.mkdir(parents=True)
    shutil.copy(GOLDEN / "demo_like.hh", shadow / "tuning_params.hh")
    sources = sorted((ROOT / "benchmarks" / "demo" / "src").glob("*.cc"))
    if not sources:
        pytest.skip("the demo library is not in this checkout")
    included = subprocess.run(
        [
            gxx,
            "-std=c++17",
            "-M",
            f"-I{tmp_path / 'include'}",
            f"-I{ROOT / 'include'}",
            str(sources[0]),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(shadow / "tuning_params.hh") in included
    # The demo's own flags (its CMakeLists): the library is not ours to hold to -Werror.
    compile_cxx(
        gxx,
        sources,
        tmp_path / "x",
        [tmp_path / "include", ROOT / "include"],
        ["-fsyntax-only"],
        flags=("-std=c++17", "-Wall", "-Wextra"),
    )


def test_a_profile_of_another_space_is_refused(
    demo_space: Space, demo_profile: Profile, tmp_path: Path
) -> None:
    edited = tmp_path / "demo.json"
    data = json.loads(demo_space.path.read_text())
    data["_comment"] = "edited"
    edited.write_text(json.dumps(data))
    space = load_space(edited)
    provenance = Provenance(
        benchspace_version="0",
        profile_sha256=demo_profile.sha256,
        space_path="demo.json",
        space_sha256=space.sha256,
    )
    with pytest.raises(HeaderError) as info:
        generate_header(space, demo_profile, incumbents={}, provenance=provenance)
    assert str(info.value) == (
        f"{demo_profile.source}: $.meta.provenance.space_sha256: the profile was tuned with "
        f"space {demo_space.sha256[:12]}, but {edited} is {space.sha256[:12]}; pass the space it "
        "was tuned with, or --allow-space-mismatch if only the header section changed"
    )
    allowed = generate_header(
        space, demo_profile, incumbents={}, provenance=provenance, allow_space_mismatch=True
    )
    assert "MATMUL_BLOCK_TINY = 32;" in allowed.text
