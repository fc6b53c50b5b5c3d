"""Review a generated header against the checked-in one, with the profile as evidence."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generators.generate_tuning_header import space_for
from generators.header_io import default_header_path, read_header, write_header
from generators.header_model import incumbents_from_header
from generators.review import review_header
from generators.review_format import render_review
from generators.rules import feed_problems, incumbent_problems
from harness.errors import HeaderError
from harness.profiles.read import load_profile


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


def run(args: argparse.Namespace) -> int:
    """Print (or write) the review."""
    profile = load_profile(args.profile)
    space = space_for(profile, args.space)
    if space.header is None:
        raise HeaderError(f'{space.path}: $: the space has no "header" section; nothing to review')
    generated_path = Path(args.generated)
    generated = read_header(generated_path)
    if generated is None:
        raise HeaderError(f"{generated_path}: no such file; run `benchspace generate` first")
    header_path = Path(args.header) if args.header else default_header_path(space)
    header = read_header(header_path)
    if header is None:
        raise HeaderError(f"{header_path}: no such file; pass the checked-in header as --header")
    incumbents = incumbents_from_header(space, header)
    problems = feed_problems(space)
    if not args.include_incumbent:
        problems += incumbent_problems(space, incumbents, header=str(header_path))
    if problems:
        raise HeaderError("\n".join(problems))
    text = render_review(review_header(space, profile, generated, header), args.format)
    if not text.endswith("\n"):
        text += "\n"
    if args.out:
        write_header(Path(args.out), text)  # atomic, like every file benchspace writes
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
