"""Port chosen constants of a generated header into the checked-in header, in place."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from generators.header_io import default_header_path, read_header, repo_root, write_header
from generators.header_parse import ParsedHeader
from generators.port import accepted_constants, check_accepted, port_values, select_constants
from harness.errors import HeaderError, UsageError
from harness.spaces.load import load_space


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of ``port``."""
    parser.add_argument("--generated", required=True, help="header written by `generate`")
    parser.add_argument(
        "--header",
        help="checked-in header to edit (default: the header.path of the space the generated "
        "header names, under the repository root)",
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


def _named_header(generated: ParsedHeader) -> Path:
    """The checked-in header of the space the generated header's banner names."""
    match = re.search(r"\(space (.+) [0-9a-f]{12}\)", generated.banner)
    if match is None:
        raise UsageError(
            f"{generated.source}: names no space in its first line; pass --header, the "
            "checked-in header to edit"
        )
    space = load_space(repo_root(Path.cwd()) / match.group(1))
    if space.header is None:
        raise UsageError(f"{space.path}: has no header section; pass --header")
    return default_header_path(space)


def run(args: argparse.Namespace) -> int:
    """Rewrite the chosen values in place."""
    generated_path = Path(args.generated)
    generated = read_header(generated_path)
    if generated is None:
        raise HeaderError(f"{generated_path}: no such file; run `benchspace generate` first")
    header_path = Path(args.header) if args.header else _named_header(generated)
    header = read_header(header_path)
    if header is None:
        raise HeaderError(f"{header_path}: no such file; pass the checked-in header as --header")
    if args.only is not None:
        items = [item.strip() for item in args.only.split(",") if item.strip()]
        if not items:
            raise UsageError("--only needs at least one NAME")
        names = select_constants(generated, items)
    else:
        try:
            document = json.loads(Path(args.accepted).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise HeaderError(f"{args.accepted}: no such review file") from None
        except json.JSONDecodeError as exc:
            raise HeaderError(f"{args.accepted}: not JSON ({exc})") from None
        if not isinstance(document, dict):
            raise HeaderError(f"{args.accepted}: $: a review is a JSON object")
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
        write_header(header_path, text)
    print(f"ported {len(edits)} values into {header_path} ({unchanged} already equal)")
    return 0
