"""The files a loaded space made a command read, for the output guard (harness/files.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchspace.harness.project_paths import find_project_root
from benchspace.harness.spaces.model import Space


def grid_files(space: Space) -> list[Path]:
    """Every grid file (``{"file": PATH}``, relative to the space file) the space reads."""
    base = space.path.parent
    return [Path(os.path.abspath(base / name)) for name in _grid_names(space.raw)]


def _grid_names(raw: Any) -> Iterator[str]:
    benches = raw.get("spaces") if isinstance(raw, dict) else None
    for bench in benches if isinstance(benches, list) else []:
        if not isinstance(bench, dict):
            continue
        cases, phases = bench.get("cases"), bench.get("pre_tune")
        cases = cases if isinstance(cases, list) else []
        phases = phases if isinstance(phases, list) else []
        grids = [c.get("tune") for c in cases if isinstance(c, dict)]
        grids += [p.get("params") for p in phases if isinstance(p, dict)]
        for mapping in grids:
            for grid in mapping.values() if isinstance(mapping, dict) else ():
                if isinstance(grid, dict) and isinstance(grid.get("file"), str):
                    yield grid["file"]


def header_file(space: Space) -> Path | None:
    """The checked-in header the space's ``header.path`` names (under its project root)."""
    if space.header is None:
        return None
    root = find_project_root(space.path.parent) or Path.cwd()
    return root / space.header.path


def space_inputs(space: Space, *, header: bool = True) -> list[tuple[Path | None, str]]:
    """(path, what it is) of the space file, its grid files and (when `header`) its header:
    ``generate`` leaves the header out, as writing it is what keeps it generated."""
    found: list[tuple[Path | None, str]] = [(space.path, "the space")]
    found += [(path, "a grid file of the space") for path in grid_files(space)]
    if header:
        found.append((header_file(space), "the space's header"))
    return found
