"""Check space files without running anything: schema, cross-field rules, invocation count."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchspace.harness.errors import PathError, SpaceError
from benchspace.harness.project_paths import add_root_arguments, find_project_root, inside_project
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import case_count, count_invocations, count_with_repeats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--space`` (repeatable)."""
    parser.add_argument(
        "--space",
        action="append",
        required=True,
        metavar="FILE",
        help="space file to check (repeat for several)",
    )
    add_root_arguments(parser)


def validate_line(
    path: str, *, root: Path | None = None, allow_outside_root: bool = False
) -> tuple[bool, list[str]]:
    """Check one file: (ok, output lines)."""
    try:
        space = load_space(path, allow_outside_root=allow_outside_root)
        if space.header is not None:
            # What generate, review, port and tune will resolve: inside the project.
            inside_project(
                Path(space.header.path),
                root or find_project_root(space.path.parent) or Path.cwd(),
                where=f"{space.path}: $.header.path",
                allow_outside=allow_outside_root,
            )
    except (SpaceError, PathError) as exc:
        return False, [f"error: {line}" for line in str(exc).splitlines()]
    benches, cases = len(space.benches), case_count(space)
    once, repeated = count_invocations(space), count_with_repeats(space)
    summary = (
        f"ok: {path}: {benches} bench{'es' if benches != 1 else ''}, "
        f"{cases} case{'s' if cases != 1 else ''}, "
        f"{once} invocations"
    )
    if repeated != once:
        summary += f" ({repeated} with the space's repeats)"
    return True, [summary]


def run(args: argparse.Namespace) -> int:
    """Print one line per valid file and one per problem; exit 1 if any file is invalid."""
    all_ok = True
    for path in args.space:
        ok, lines = validate_line(path, root=args.root, allow_outside_root=args.allow_outside_root)
        all_ok = all_ok and ok
        for line in lines:
            print(line, file=sys.stdout if ok else sys.stderr)
    return 0 if all_ok else 1
