"""Header files on disk: where the checked-in one is, reading, and writing atomically.

The checked-in header of a space is its ``header.path`` resolved against the repository root:
the nearest directory above the space file that holds ``.git`` or ``pyproject.toml``, else the
current directory (or the root given as ``--root``). It must stay inside that root and must not
be a symbolic link unless the caller allows it (`benchspace.harness.project_paths`).
"""

from __future__ import annotations

import stat
from pathlib import Path

from benchspace.generators.header_model import Incumbents, incumbents_from_header
from benchspace.generators.header_parse import ParsedHeader, parse_header
from benchspace.harness.errors import HeaderError
from benchspace.harness.files import read_text, write_text_atomic
from benchspace.harness.project_paths import find_project_root, inside_project
from benchspace.harness.spaces.model import Space


def read_header(path: Path) -> ParsedHeader | None:
    """Parse the header at `path`; None when there is no such file, HeaderError if empty."""
    if not path.exists() and not path.is_symlink():
        return None
    text = read_text(path, error=HeaderError, kind="header")
    if not text.strip():
        # An empty file is not "a header without incumbents": it is the wrong file, or lost.
        raise HeaderError(
            f"{path}: the header is empty; pass the checked-in header (or leave --header out "
            "when there is none yet)"
        )
    return parse_header(text, str(path))


def write_header(path: Path, text: str) -> None:
    """Write `text` through a temporary file and ``os.replace``, keeping an existing file's mode.

    Bytes are written as given (no newline translation), so CRLF headers stay CRLF.
    """
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = None
    write_text_atomic(path, text, mode=mode)


def repo_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding ``.git`` or ``pyproject.toml``, else
    the current directory."""
    return find_project_root(start) or Path.cwd()


def display_path(path: Path) -> str:
    """`path` relative to its repository root where it lies inside it (portable output)."""
    root = repo_root(path.parent)
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def default_header_path(
    space: Space, *, root: Path | None = None, allow_outside: bool = False
) -> Path:
    """Where the checked-in header of `space` is: ``header.path`` under the repository root.

    PathError when it leaves the root or is a symbolic link, unless `allow_outside`.
    """
    assert space.header is not None
    return inside_project(
        Path(space.header.path),
        root or repo_root(space.path.parent),
        where=f"{space.path}: $.header.path",
        allow_outside=allow_outside,
    )


def checked_in_incumbents(
    space: Space, *, root: Path | None = None, allow_outside: bool = False
) -> tuple[Incumbents, Path]:
    """The values the space's checked-in header ships (none when it has no header yet)."""
    path = default_header_path(space, root=root, allow_outside=allow_outside)
    parsed = read_header(path)
    return (incumbents_from_header(space, parsed) if parsed is not None else {}), path
