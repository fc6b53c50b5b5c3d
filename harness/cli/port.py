"""Port chosen constants of a generated header into the checked-in header, in place."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchspace.generators.header_io import default_header_path, read_header, write_header
from benchspace.generators.header_parse import ParsedHeader
from benchspace.generators.port import (
    accepted_constants,
    check_accepted,
    port_values,
    select_constants,
)
from benchspace.harness.errors import HeaderError, UsageError
from benchspace.harness.files import guard_output, locked, read_object
from benchspace.harness.project_paths import ALLOW_OPTION, add_root_arguments
from benchspace.harness.spaces.load import load_space


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of ``port``."""
    parser.add_argument("--generated", required=True, help="header written by `generate`")
    parser.add_argument(
        "--header",
        help="checked-in header to edit (or give --space)",
    )
    parser.add_argument(
        "--space",
        help="space whose header.path (under its project root) is the header to edit",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--only",
        metavar="NAME[,NAME...]",
        help="families (all buckets) or single NAME_BUCKET constants to port",
    )
    which.add_argument(
        "--accepted", metavar="REVIEW.json", help="port the accepted changes of a review"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the edits, write nothing")
    add_root_arguments(parser)


def _space_header(args: argparse.Namespace, generated: ParsedHeader) -> Path:
    """The header to edit: --header, else the header.path of --space (inside its project)."""
    if args.header:
        return Path(args.header)
    if not args.space:
        # The banner names the space the header was generated from, but the generated header
        # is the input under review: following it would let that file choose what is edited.
        raise UsageError(
            f"{generated.source}: port does not follow the space named in a generated header's "
            "banner; pass --header, the checked-in header to edit, or --space, the space whose "
            "header.path it is"
        )
    space = load_space(args.space)
    if space.header is None:
        raise UsageError(f"{space.path}: has no header section; pass --header")
    return default_header_path(space, root=args.root, allow_outside=args.allow_outside_root)


def _real_target(path: Path, allow: bool) -> Path:
    """The file to write: `path`, or the real target of a symbolic link when allowed."""
    if not path.is_symlink():
        return path
    if not allow:
        raise HeaderError(
            f"{path}: is a symbolic link (to {path.resolve()}); writing it would replace the link "
            "by a plain file and leave the real header unchanged: pass the real header as "
            f"--header, or {ALLOW_OPTION} to edit it through the link"
        )
    return path.resolve()


def run(args: argparse.Namespace) -> int:
    """Rewrite the chosen values in place."""
    generated_path = Path(args.generated)
    generated = read_header(generated_path)
    if generated is None:
        raise HeaderError(f"{generated_path}: no such file; run `benchspace generate` first")
    header_path = _space_header(args, generated)
    target = _real_target(header_path, args.allow_outside_root)
    with locked(target):  # another port into this header waits: no edit is lost
        return _port(args, generated, header_path, target)


def _port(
    args: argparse.Namespace, generated: ParsedHeader, header_path: Path, target: Path
) -> int:
    header = read_header(header_path)
    if header is None:
        raise HeaderError(f"{header_path}: no such file; pass the checked-in header as --header")
    inputs = [(args.generated, "the generated header"), (args.accepted, "the review")]
    if args.space:
        inputs.append((args.space, "the space"))
    if not args.dry_run:
        guard_output(target, option="--header", inputs=inputs)
    if args.only is not None:
        items = [item.strip() for item in args.only.split(",") if item.strip()]
        if not items:
            raise UsageError("--only needs at least one NAME")
        names = select_constants(generated, items)
    else:
        document = read_object(
            args.accepted,
            error=HeaderError,
            kind="review",
            missing="no such review file; write it with `benchspace review --format json`",
        )
        accepted = accepted_constants(document, args.accepted)
        check_accepted(generated, accepted, args.accepted)
        names = list(accepted)
    text, edits = port_values(header, generated, names)
    for edit in edits:
        print(f"{header_path}:{edit.line}: {edit.name}: {edit.old_text} -> {edit.new_text}")
    unchanged = len(names) - len(edits)
    if args.dry_run:
        print(f"dry run: {len(edits)} values would change, {unchanged} already equal")
        return 0
    if edits:
        write_header(target, text)
    print(f"ported {len(edits)} values into {header_path} ({unchanged} already equal)")
    return 0
