"""The one family of expected errors: caught once in ``main()``, printed as one line, exit 1."""

from __future__ import annotations


class BenchspaceError(Exception):
    """A problem the user can fix: bad input, missing file, refused comparison."""

    exit_code = 1


class SpaceError(BenchspaceError):
    """A space file is malformed; the message names the file, JSON path, value and fix."""


class ReaderError(BenchspaceError):
    """A benchmark's output could not be read (no such row, ambiguous row, no metric)."""


class ProfileError(BenchspaceError):
    """A profile or store cannot be read, merged or compared."""


class HeaderError(BenchspaceError):
    """A header cannot be generated, parsed, reviewed or ported."""


class PathError(BenchspaceError):
    """A path a space names leaves the project, or is a symbolic link not to be followed."""


class UsageError(BenchspaceError):
    """Command-line misuse that argparse cannot catch by itself (exit 2)."""

    exit_code = 2


def json_path(*parts: str | int) -> str:
    """Render a JSONPath-like location: ``json_path("spaces", 2, "row") == "$.spaces[2].row"``."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


EXIT_RESOURCES = 71
"""Exit code when the system runs out of what a command needs (file descriptors, processes or
threads, memory): sysexits' EX_OSERR. The one-line message names the limit to raise."""

EXIT_OUTPUT = 74
"""Exit code when standard output or standard error cannot be written (a full device, an I/O
error): sysexits' EX_IOERR. A broken pipe (``benchspace ... | head``) is no error (exit 0)."""
