"""Review a generated header against the checked-in one, with the profile as evidence."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchspace.generators.header_io import read_header, write_header
from benchspace.generators.review import review_header
from benchspace.generators.review_format import render_review
from benchspace.generators.session import open_session
from benchspace.harness.errors import HeaderError
from benchspace.harness.files import check_output, guard_output
from benchspace.harness.profiles.decided_format import decided_lines
from benchspace.harness.project_paths import add_root_arguments
from benchspace.harness.spaces.inputs import space_inputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of ``review``."""
    parser.add_argument("--generated", required=True, help="header written by `generate`")
    parser.add_argument(
        "--header",
        help="checked-in header (default: the space's header.path under the repository root)",
    )
    parser.add_argument("--profile", required=True, help="the profile the header came from")
    parser.add_argument("--space", help="space file (default: the one the profile records)")
    parser.add_argument("--format", choices=("md", "text", "json"), default="md")
    parser.add_argument("--out", help="write the review here instead of stdout")
    parser.add_argument(
        "--include-incumbent",
        action="store_true",
        help="accept incumbents missing from a grid (they show as not measured)",
    )
    add_root_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the review."""
    if args.out:
        check_output(args.out, option="--out")  # before the profile is read
    session = open_session(
        args.profile,
        space=args.space,
        header=args.header,
        no_header_section="nothing to review",
        root=args.root,
        allow_outside_root=args.allow_outside_root,
    )
    generated_path = Path(args.generated)
    if args.out:
        inputs = [
            (generated_path, "the generated header"),
            (session.header_path, "the checked-in header"),
            (args.profile, "the profile"),
            *space_inputs(session.space),
        ]
        guard_output(args.out, option="--out", inputs=inputs)
    generated = read_header(generated_path)
    if generated is None:
        raise HeaderError(f"{generated_path}: no such file; run `benchspace generate` first")
    header = session.require_checked_in()
    session.check(include_incumbent=args.include_incumbent)
    review = review_header(session.space, session.profile, generated, header)
    text = render_review(review, args.format)
    if not text.endswith("\n"):
        text += "\n"
    decided = decided_lines(session.profile) if args.format != "json" else []
    if decided:  # how the winners were decided (tune --race / --confirm)
        text += "\nHow the winners were decided:\n" + "\n".join(decided) + "\n"
    if args.out:
        write_header(Path(args.out), text)  # atomic, like every file benchspace writes
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
