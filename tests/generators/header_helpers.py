"""Paths and helpers shared by the header tests (a module of its own: test files import it)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import parse_profile

ROOT = Path(__file__).resolve().parents[2]
SPACES = ROOT / "tests" / "generators" / "spaces"
PROFILES = ROOT / "tests" / "data" / "profiles"
GOLDEN = ROOT / "tests" / "golden"
DATA = ROOT / "tests" / "generators" / "data"
CXXFLAGS = ("-std=c++17", "-Wall", "-Wextra", "-Werror")


def profile_of(results: dict[str, list[tuple[Any, ...]]], direction: str = "min") -> Profile:
    """A format-1 profile from ``bench -> [(case, fixed, params, value[, stdev, n])]`` rows."""
    doc: dict[str, Any] = {"format": "benchspace-profile", "version": 1, "meta": {}, "results": []}
    for bench, rows in results.items():
        entries = []
        for row in rows:
            case, fixed, params, value, *spread = row
            stdev, n = spread if spread else (0.0, 1)
            entries.append(
                {
                    "case_index": case,
                    "fixed": fixed,
                    "params": params,
                    "value": value,
                    "median": value,
                    "stdev": stdev,
                    "n": n,
                }
            )
        doc["results"].append({"bench": bench, "direction": direction, "measurements": entries})
    return parse_profile(doc, source="p.json", sha256="f" * 64)


def compile_cxx(
    compiler: str,
    sources: Sequence[Path],
    out: Path,
    includes: Sequence[Path] = (),
    extra: Sequence[str] = (),
    flags: Sequence[str] = CXXFLAGS,
) -> None:
    """Compile (and link, unless ``-c``/``-fsyntax-only`` is in `extra`); fail with the log."""
    argv = [compiler, *flags, *extra, *(f"-I{p}" for p in includes), *map(str, sources)]
    if "-fsyntax-only" not in extra:
        argv += ["-o", str(out)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{' '.join(argv)}\n{proc.stderr}"
