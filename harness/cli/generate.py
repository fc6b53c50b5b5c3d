"""Generate a bucketed constexpr tuning header from a profile.

    benchspace generate --profile P [--space S] --out H
    python generators/generate_tuning_header.py --profile P [--space S] --out H

The space defaults to the one the profile records (``meta.provenance.space_path``). The
checked-in header, read for incumbents, is the space's ``header.path`` resolved against the
repository root: the nearest directory above the space file that holds ``.git``, or the
current directory when there is none. ``--header`` names it explicitly.

Retunes are stable: a bucket keeps its incumbent (the checked-in value, or with
``--incumbents-from OLD.json`` the value a header generated from an older profile has) unless the
profile's winner beats it beyond the measured noise: the gain ``review`` reports (geometric mean
over the bucket's cases of the speed-up) must exceed its noise (twice its standard error, from
the measurements' spread), and the profile's verdicts (``decided``) must have beaten it: an
incumbent tied or unbeaten in every case of the bucket stays, and among values tied without it
the smallest is taken (generators/ties.py). Ties keep the incumbent, so unchanged hardware gives
an unchanged header. Without a spread (one sample per configuration) the winner replaces it.
``--challenger-wins`` turns the rule off: the best score wins, however small the margin.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchspace.generators.generate import gave_way
from benchspace.generators.header_io import write_header
from benchspace.generators.session import open_session, read_holds
from benchspace.harness.errors import BenchspaceError, HeaderError
from benchspace.harness.files import check_output, guard_output, read_text
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.project_paths import add_root_arguments
from benchspace.harness.spaces.inputs import space_inputs


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
        "--challenger-wins",
        action="store_true",
        help="the profile's best value replaces the incumbent even when it wins within the "
        "measured noise (default: the incumbent is kept unless beaten beyond the noise)",
    )
    parser.add_argument(
        "--incumbents-from",
        metavar="OLD_PROFILE.json",
        help="take the incumbents from the header this older profile generates, not from the "
        "checked-in header",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if --out differs"
    )
    add_root_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Generate the header the options describe."""
    if args.out != "-" and not args.check:
        check_output(args.out, option="--out")  # before the profile is read
    session = open_session(
        args.profile,
        space=args.space,
        header=args.header,
        root=args.root,
        allow_outside_root=args.allow_outside_root,
    )
    if args.out != "-" and not args.check:
        inputs = [
            (args.profile, "the profile"),
            *space_inputs(session.space, header=False),
            (args.hold, "--hold"),
            (args.incumbents_from, "--incumbents-from"),
        ]
        guard_output(args.out, option="--out", inputs=inputs)
    if session.checked_in is None and args.header:
        raise HeaderError(
            f"{session.header_path}: no such file; check --header (leave it out when "
            "there is no checked-in header yet)"
        )
    generated = session.generate(
        include_incumbent=args.include_incumbent,
        allow_space_mismatch=args.allow_space_mismatch,
        holds=read_holds(Path(args.hold)) if args.hold else None,
        keep_incumbents=not args.challenger_wins,
        previous=load_profile(args.incumbents_from) if args.incumbents_from else None,
    )
    for note in generated.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(generated.text)
        return 0
    out = Path(args.out)
    if args.check:
        current = read_text(out, error=HeaderError, kind="header") if out.exists() else None
        if current != generated.text:
            print(f"{out}: out of date; regenerate it with `benchspace generate`", file=sys.stderr)
            return 1
        print(f"{out}: up to date")
        return 0
    write_header(out, generated.text)
    origins = [b.origin for c in generated.model.constants for b in c.buckets]
    held = f", {origins.count('held')} held after confirm" if "held" in origins else ""
    held += gave_way(generated.model)
    print(
        f"wrote {out}: {len(generated.model.constants)} constants, {len(origins)} values "
        f"({origins.count('profile')} from the profile, {origins.count('fallback')} fallback, "
        f"{origins.count('incumbent')} kept from {session.header_path}{held})"
    )
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = "generate_tuning_header.py") -> int:
    """Script entry point (``generators/generate_tuning_header.py``); returns the exit code."""
    parser = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").strip().splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BenchspaceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
