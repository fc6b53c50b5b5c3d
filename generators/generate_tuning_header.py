"""Generate a bucketed constexpr tuning header from a profile (library and script).

    python generators/generate_tuning_header.py --profile P [--space S] --out H
    benchspace generate --profile P [--space S] --out H

The space defaults to the one the profile records (``meta.provenance.space_path``). The
checked-in header, read for incumbents, is the space's ``header.path`` resolved against the
repository root: the nearest directory above the space file that holds ``.git``, or the
current directory when there is none. ``--header`` names it explicitly.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generators.header_io import default_header_path as default_header_path
from generators.header_io import display_path as display_path
from generators.header_io import read_header, write_header
from generators.header_io import repo_root as repo_root
from generators.header_model import (
    HeaderModel,
    Holds,
    Incumbents,
    apply_holds,
    choose_header,
    incumbents_from_header,
)
from generators.render import Provenance, render_header
from generators.rules import feed_problems, incumbent_problems
from harness import __version__
from harness.errors import BenchspaceError, HeaderError
from harness.measurement import Value
from harness.profiles.model import Profile
from harness.profiles.read import load_profile
from harness.review_doc import review_changes
from harness.space import Space, load_space


@dataclass(frozen=True, kw_only=True, slots=True)
class GeneratedHeader:
    """A rendered header with the choices behind it."""

    text: str
    model: HeaderModel
    notes: tuple[str, ...]


def generate_header(
    space: Space,
    profile: Profile,
    *,
    incumbents: Incumbents,
    provenance: Provenance,
    include_incumbent: bool = False,
    allow_space_mismatch: bool = False,
    header_source: str = "the checked-in header",
    holds: Holds | None = None,
) -> GeneratedHeader:
    """Check the rules, choose every value and render the header (pure)."""
    if profile.space_sha256 and profile.space_sha256 != space.sha256 and not allow_space_mismatch:
        raise HeaderError(
            f"{profile.source}: $.meta.provenance.space_sha256: the profile was tuned with space "
            f"{profile.space_sha256[:12]}, but {space.path} is {space.sha256[:12]}; pass the "
            "space it was tuned with, or --allow-space-mismatch if only the header section changed"
        )
    problems = feed_problems(space)
    missing = incumbent_problems(space, incumbents, header=header_source)
    if missing and not include_incumbent:
        problems += missing
    if problems:
        raise HeaderError("\n".join(problems))
    notes = [
        f"{line} (ignored: --include-incumbent; the incumbent competes only where it was measured)"
        for line in missing
    ]
    model = choose_header(space, profile, incumbents)
    if holds:
        model = apply_holds(model, holds)
    text = render_header(model, provenance)
    return GeneratedHeader(text=text, model=model, notes=(*notes, *model.notes))


# ---------------------------------------------------------------- the edges: files


def read_holds(path: Path) -> Holds:
    """The changes a confirm run rejected, as holds: (constant, bucket) -> (old value, why)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise HeaderError(f"{path}: cannot read the confirm output ({exc})") from None
    if not isinstance(doc, dict):
        raise HeaderError(f"{path}: $: pass the file `benchspace confirm --out` wrote")
    changes = review_changes(doc, str(path))
    holds: dict[tuple[str, str], tuple[Value, str]] = {}
    for i, change in enumerate(changes):
        if not isinstance(change, dict) or change.get("verdict") != "rejected":
            continue
        try:
            key = (str(change["constant"]), str(change["bucket"]))
            holds[key] = (change["old"], f"rejected at the consumer ({change.get('reason', '')})")
        except KeyError as exc:
            raise HeaderError(f"{path}: $.changes[{i}]: no {exc.args[0]!r}") from None
    return holds


def space_for(profile: Profile, space_arg: str | None) -> Space:
    """The space given, else the one the profile records."""
    if space_arg is not None:
        return load_space(space_arg)
    if profile.space_path is None:
        raise HeaderError(
            f"{profile.source}: $.meta.provenance.space_path: the profile does not say which "
            "space it was tuned with; pass --space"
        )
    return load_space(profile.space_path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``generate``."""
    parser.add_argument("--profile", required=True, help="profile JSON written by tune")
    parser.add_argument("--space", help="space file (default: the one the profile records)")
    parser.add_argument("--out", required=True, help="header to write ('-' for stdout)")
    parser.add_argument(
        "--header",
        help="checked-in header to read incumbents from (default: the space's header.path "
        "under the repository root of the space file)",
    )
    parser.add_argument(
        "--include-incumbent",
        action="store_true",
        help="accept incumbents missing from a grid; they compete only where measured",
    )
    parser.add_argument(
        "--allow-space-mismatch",
        action="store_true",
        help="accept a space whose hash differs from the profile's (e.g. a new header section)",
    )
    parser.add_argument(
        "--hold",
        metavar="CONFIRM.json",
        help="keep the old value of every change this `benchspace confirm --out` file rejected",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if --out differs"
    )


def run(args: argparse.Namespace) -> int:
    """Generate the header the options describe."""
    profile = load_profile(args.profile)
    space = space_for(profile, args.space)
    if space.header is None:
        raise HeaderError(
            f'{space.path}: $: the space has no "header" section; add one that maps bench '
            "parameters to constants"
        )
    header_path = Path(args.header) if args.header else default_header_path(space)
    parsed = read_header(header_path)
    if parsed is None and args.header:
        raise HeaderError(
            f"{header_path}: no such file; check --header (leave it out when "
            "there is no checked-in header yet)"
        )
    incumbents = incumbents_from_header(space, parsed) if parsed is not None else {}
    generated = generate_header(
        space,
        profile,
        incumbents=incumbents,
        provenance=Provenance(
            benchspace_version=__version__,
            profile_sha256=profile.sha256,
            space_path=display_path(space.path),
            space_sha256=space.sha256,
        ),
        include_incumbent=args.include_incumbent,
        allow_space_mismatch=args.allow_space_mismatch,
        header_source=str(header_path),
        holds=read_holds(Path(args.hold)) if args.hold else None,
    )
    for note in generated.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(generated.text)
        return 0
    out = Path(args.out)
    if args.check:
        current = out.read_text(encoding="utf-8") if out.exists() else None
        if current != generated.text:
            print(f"{out}: out of date; regenerate it with `benchspace generate`", file=sys.stderr)
            return 1
        print(f"{out}: up to date")
        return 0
    write_header(out, generated.text)
    origins = [b.origin for c in generated.model.constants for b in c.buckets]
    held = f", {origins.count('held')} held after confirm" if "held" in origins else ""
    print(
        f"wrote {out}: {len(generated.model.constants)} constants, {len(origins)} values "
        f"({origins.count('profile')} from the profile, {origins.count('fallback')} fallback, "
        f"{origins.count('incumbent')} kept from {header_path}{held})"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Script entry point; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="generate_tuning_header.py", description=(__doc__ or "").strip().splitlines()[0]
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BenchspaceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
