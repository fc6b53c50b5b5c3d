"""Paths a space names, resolved inside its project.

The project root of a space is the nearest directory at or above the space file holding
``.git`` or ``pyproject.toml`` (or the one ``--root`` names). A path the space names
(``header.path``, a grid ``file``) must stay inside it: ``../x.hh``, an absolute path elsewhere
and a symbolic link (whose target may be anywhere) are refused unless the caller allows them
(``--allow-outside-root``), so that a space file from elsewhere cannot make a command read or
edit files outside the project.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchspace.harness.errors import PathError

MARKERS = (".git", "pyproject.toml")
ALLOW_OPTION = "--allow-outside-root"


def find_project_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding ``.git`` or ``pyproject.toml``."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if any((folder / marker).exists() for marker in MARKERS):
            return folder
    return None


def inside_project(
    path: Path, root: Path, *, where: str, allow_outside: bool = False, shown: str | None = None
) -> Path:
    """`path` (relative to `root`) if it lies inside `root` and is no symbolic link; PathError.

    `where` starts the message (``spaces/x.json: $.header.path``), `shown` is the path as the
    file wrote it (default: `path`). With `allow_outside`, ``root / path`` is returned unchecked.
    """
    shown = str(path) if shown is None else shown
    if allow_outside:
        return root / path
    base = Path(os.path.normpath(root))
    lexical = Path(os.path.normpath(base / path))
    real_root = base.resolve()
    real = lexical.resolve()
    if not real.is_relative_to(real_root):
        raise PathError(
            f"{where}: {shown!r} resolves to {real}, outside the project root {real_root}; "
            f"keep it inside the project, name the project with --root, or pass {ALLOW_OPTION}"
        )
    if lexical.is_relative_to(base):
        for folder in (lexical, *lexical.parents):
            if folder == base:
                break
            if folder.is_symlink():
                raise PathError(
                    f"{where}: {shown!r}: {folder} is a symbolic link (to "
                    f"{folder.resolve()}); name the real file, or pass {ALLOW_OPTION} to follow "
                    "the link"
                )
    return lexical


def add_root_arguments(parser: argparse.ArgumentParser) -> None:
    """``--root`` and ``--allow-outside-root``, for commands that follow a space's paths."""
    parser.add_argument(
        "--root",
        type=Path,
        help="the project root the space's paths must stay in (default: the nearest directory "
        "above the space file holding .git or pyproject.toml)",
    )
    parser.add_argument(
        ALLOW_OPTION,
        action="store_true",
        help="follow a space's paths outside the project root and through symbolic links",
    )
