"""Fixtures of the header tests: the crafted spaces and profiles, and a real C++ compiler."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from header_helpers import DATA, PROFILES, SPACES

from benchspace.generators.header_parse import ParsedHeader, parse_header
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space


@pytest.fixture(scope="session")
def demo_space() -> Space:
    """The demo-like space (a copy of spaces/demo.json)."""
    return load_space(SPACES / "demo_like.json")


@pytest.fixture(scope="session")
def demo_profile() -> Profile:
    """Its crafted profile (format 1, three repeats per configuration)."""
    return load_profile(PROFILES / "demo_like.json")


@pytest.fixture(scope="session")
def batchlas_space() -> Space:
    """BatchLAS's default space with the 12-family header mapping."""
    return load_space(SPACES / "batchlas.json")


@pytest.fixture(scope="session")
def batchlas_profile() -> Profile:
    """A profile BatchLAS's own tune.py wrote (tests/data/batchlas_real/README.md)."""
    return load_profile(PROFILES.parent / "batchlas_real" / "profile.json")


@pytest.fixture(scope="session")
def kinds_space() -> Space:
    """Every kind of constant: enum, widths, size_t, double, bool, custom buckets."""
    return load_space(SPACES / "kinds.json")


@pytest.fixture(scope="session")
def kinds_profile() -> Profile:
    """Its crafted profile."""
    return load_profile(PROFILES / "kinds.json")


@pytest.fixture(scope="session")
def checked_in() -> ParsedHeader:
    """A hand-maintained demo header (comments, trailing comments, a block comment)."""
    path = DATA / "demo_checked_in.hh"
    return parse_header(path.read_text(encoding="utf-8"), str(path))


@pytest.fixture
def make_space(tmp_path: Path) -> Callable[..., Space]:
    """Write and load a space: benches plus a header section."""

    def make(benches: list[dict[str, Any]], header: dict[str, Any], name: str = "s.json") -> Space:
        path = tmp_path / name
        path.write_text(json.dumps({"spaces": benches, "header": header}, indent=2))
        return load_space(path)

    return make


@pytest.fixture(scope="session")
def gxx() -> str:
    """The C++ compiler; the compile tests are skipped where there is none."""
    found = shutil.which("g++")
    if found is None:
        pytest.skip("g++ is not installed")
    return found
