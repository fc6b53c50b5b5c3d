"""What a variant's key reads from the machine: the compiler's identity and the inputs' hashes."""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from benchspace.harness.errors import SpaceError


@functools.lru_cache(maxsize=64)
def compiler_identity(program: str) -> str:
    """The resolved path and ``--version`` output of the command's first word (a different
    compiler, or another version of it, is another variant). Asked once per process."""
    found = shutil.which(program)
    if found is None:
        return f"{program}: not found"
    try:
        done = subprocess.run(
            [found, "--version"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=30,
            check=False,
        )
        version = (done.stdout or done.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        version = f"--version failed: {type(exc).__name__}"
    return f"{Path(found).resolve()}\n{version}"


def input_hashes(
    globs: Sequence[str], source_dir: Path, *, where: str
) -> tuple[tuple[str, str], ...]:
    """(path relative to ``source_dir``, sha256) of every file the globs match, sorted.

    A glob that matches nothing is a SpaceError naming ``where`` (a typo would otherwise make
    every edit of the source invisible to the cache)."""
    found: dict[str, str] = {}
    for k, pattern in enumerate(globs):
        matches = sorted(p for p in source_dir.glob(pattern) if p.is_file())
        if not matches:
            raise SpaceError(
                f"{where}.inputs[{k}]: {pattern!r} matches no file under {source_dir}; fix the "
                "glob (it is relative to the project root, {source_dir})"
            )
        for path in matches:
            rel = path.relative_to(source_dir).as_posix()
            if rel not in found:
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return tuple(sorted(found.items()))
