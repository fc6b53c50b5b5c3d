"""The golden headers: which space and profile each comes from, and how to regenerate them.

    python tests/generators/header_goldens.py      # rewrite tests/golden/*.hh

Goldens are generated without a checked-in header (no incumbents), so they depend only on the
files named here and on the benchspace version in the banner line.
"""

from __future__ import annotations

from pathlib import Path

from benchspace.generators.generate import generate_header
from benchspace.generators.header_io import write_header
from benchspace.generators.render import Provenance
from benchspace.harness import __version__
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space

ROOT = Path(__file__).resolve().parents[2]
SPACES = ROOT / "tests" / "generators" / "spaces"
PROFILES = ROOT / "tests" / "data" / "profiles"
GOLDEN = ROOT / "tests" / "golden"
BATCHLAS = ROOT / "tests" / "data" / "batchlas_real" / "profile.json"

GOLDENS: dict[str, tuple[Path, Path]] = {
    "demo_like.hh": (SPACES / "demo_like.json", PROFILES / "demo_like.json"),
    "batchlas.hh": (
        SPACES / "batchlas.json",
        ROOT / "tests" / "data" / "batchlas_real" / "profile.json",
    ),
    "kinds.hh": (SPACES / "kinds.json", PROFILES / "kinds.json"),
}


def render_golden(name: str) -> str:
    """The header golden `name` must hold, generated now."""
    space_path, profile_path = GOLDENS[name]
    space = load_space(space_path)
    profile = load_profile(profile_path)
    provenance = Provenance(
        benchspace_version=__version__,
        profile_sha256=profile.sha256,
        space_path=space_path.relative_to(ROOT).as_posix(),
        space_sha256=space.sha256,
    )
    return generate_header(space, profile, incumbents={}, provenance=provenance).text


def main() -> None:
    """Rewrite every golden header."""
    for name in GOLDENS:
        write_header(GOLDEN / name, render_golden(name))
        print(f"wrote {(GOLDEN / name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
