"""Compare two profiles: per bench and case the winners, NEW/OLD with its noise, header changes.

    benchspace compare OLD.json NEW.json [--space S] [--format text|md|json]

The header part generates the header from each profile with one space (``--space``, else the
space NEW records, else OLD's) and the same checked-in header, and lists the values that differ.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from benchspace.harness.analysis.compare import HeaderChange, ProfileComparison, compare_profiles
from benchspace.harness.analysis.compare_format import render_compare
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.profiles.decided_format import decided_lines
from benchspace.harness.profiles.locate import recorded_space
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space
from benchspace.harness.values import Value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``compare``."""
    parser.add_argument("old", type=Path, help="the earlier profile (OLD)")
    parser.add_argument("new", type=Path, help="the later profile (NEW)")
    parser.add_argument(
        "--space",
        type=Path,
        help="space whose header section maps profiles to constants (default: the one NEW "
        "records, else OLD's)",
    )
    parser.add_argument(
        "--header", help="checked-in header to read incumbents from (default: the space's)"
    )
    parser.add_argument(
        "--allow-different-spaces",
        action="store_true",
        help="compare profiles tuned with different spaces (matched by bench and fixed values)",
    )
    parser.add_argument("--format", choices=("text", "md", "json"), default="text")


def _space(args: argparse.Namespace, old: Profile, new: Profile) -> Space | None:
    if args.space is not None:
        return load_space(args.space)
    for profile in (new, old):
        named = recorded_space(profile)
        if named is not None:
            return load_space(named)
    return None


def _values(
    space: Space, profile: Profile, args: argparse.Namespace
) -> dict[tuple[str, str], tuple[Value, str]]:
    """(constant, bucket) -> (value, origin) of the header a generate from `profile` writes."""
    # The header rules and choices live with the generator: imported only here.
    from benchspace.generators.session import open_session

    session = open_session(profile.source, space=space, header=args.header)
    generated = session.generate(allow_space_mismatch=args.allow_different_spaces)
    return {
        (choice.constant.name, bucket.bucket): (bucket.value, bucket.origin)
        for choice in generated.model.constants
        for bucket in choice.buckets
    }


def with_header(
    comparison: ProfileComparison, args: argparse.Namespace, old: Profile, new: Profile
) -> ProfileComparison:
    """The comparison with the header values a generate from NEW changes against OLD's."""
    space = _space(args, old, new)
    if space is None:
        note = "neither profile names a space file that exists here; pass --space"
        return replace(comparison, header_note=note)
    if space.header is None:
        return replace(comparison, header_note=f'{space.path} has no "header" section')
    try:
        a, b = _values(space, old, args), _values(space, new, args)
    except BenchspaceError as exc:
        return replace(comparison, header_note=str(exc).splitlines()[0])
    changes = []
    for key in dict.fromkeys([*b, *a]):
        old_value, old_origin = a.get(key, (None, "absent"))
        new_value, new_origin = b.get(key, (None, "absent"))
        if old_value != new_value or type(old_value) is not type(new_value):
            changes.append(
                HeaderChange(
                    constant=key[0],
                    bucket=key[1],
                    old=old_value,
                    new=new_value,
                    old_origin=old_origin,
                    new_origin=new_origin,
                )
            )
    return replace(
        comparison,
        header=tuple(changes),
        header_unchanged=len(set(a) | set(b)) - len(changes),
        header_note=f"space {space.path}",
    )


def run(args: argparse.Namespace) -> int:
    """Print the comparison."""
    old, new = load_profile(args.old), load_profile(args.new)
    comparison = compare_profiles(old, new, allow_different_spaces=args.allow_different_spaces)
    comparison = with_header(comparison, args, old, new)
    print(render_compare(comparison, args.format), end="")
    if args.format != "json":  # how each side's winners were decided (tune --race / --confirm)
        lines = [*decided_lines(old, label="old ", detail=False),
                 *decided_lines(new, label="new ", detail=False)]  # fmt: skip
        if lines:
            print("\n".join(["", "How the winners were decided:", *lines]))
    return 0
