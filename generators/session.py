"""One header session: a profile, its space and the checked-in header, read for a header command.

``generate``, ``review`` and ``confirm`` all start here: load the profile and the space it was
tuned with, find and read the checked-in header, then check the rules and generate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchspace.generators.generate import GeneratedHeader, generate_header
from benchspace.generators.header_io import (
    checked_in_incumbents,
    default_header_path,
    display_path,
    read_header,
)
from benchspace.generators.header_model import Holds, Incumbents, incumbents_from_header
from benchspace.generators.header_parse import ParsedHeader
from benchspace.generators.render import Provenance
from benchspace.generators.rules import add_incumbents, check_header_rules
from benchspace.harness import __version__
from benchspace.harness.errors import HeaderError
from benchspace.harness.files import read_json
from benchspace.harness.profiles.locate import recorded_space
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.review_doc import review_changes
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space
from benchspace.harness.values import Value


@dataclass(frozen=True, kw_only=True)
class HeaderSession:
    """What a header command reads: the profile, the space and the checked-in header."""

    profile: Profile
    space: Space
    header_path: Path
    """Where the checked-in header is (given, or the space's ``header.path``)."""
    checked_in: ParsedHeader | None
    """The checked-in header; None when there is no such file."""

    def incumbents(self) -> Incumbents:
        """The values the checked-in header ships (none without a checked-in header)."""
        return (
            {} if self.checked_in is None else incumbents_from_header(self.space, self.checked_in)
        )

    def require_checked_in(self) -> ParsedHeader:
        """The checked-in header; HeaderError when there is none."""
        if self.checked_in is None:
            raise HeaderError(
                f"{self.header_path}: no such file; pass the checked-in header as --header"
            )
        return self.checked_in

    def check(self, *, include_incumbent: bool) -> None:
        """Raise HeaderError for every rule the space and the checked-in header break."""
        problems = check_header_rules(
            self.space,
            self.incumbents(),
            header=str(self.header_path),
            include_incumbent=include_incumbent,
        )
        if problems:
            raise HeaderError("\n".join(problems))

    def generate(
        self,
        *,
        include_incumbent: bool = False,
        allow_space_mismatch: bool = False,
        holds: Holds | None = None,
        keep_incumbents: bool = True,
        previous: Profile | None = None,
    ) -> GeneratedHeader:
        """The header the profile gives, against the checked-in header's incumbents.

        With `keep_incumbents` an incumbent (the checked-in value, or the `previous` profile's
        winner) stays unless a challenger beats it beyond the measured noise.
        """
        return generate_header(
            self.space,
            self.profile,
            incumbents=self.incumbents(),
            provenance=Provenance(
                benchspace_version=__version__,
                profile_sha256=self.profile.sha256,
                space_path=display_path(self.space.path),
                space_sha256=self.space.sha256,
            ),
            include_incumbent=include_incumbent,
            allow_space_mismatch=allow_space_mismatch,
            header_source=str(self.header_path),
            holds=holds,
            keep_incumbents=keep_incumbents,
            previous=previous,
        )


def open_session(
    profile: str | Path,
    *,
    space: str | Path | Space | None = None,
    header: str | Path | None = None,
    no_header_section: str = "add one that maps bench parameters to constants",
    root: Path | None = None,
    allow_outside_root: bool = False,
) -> HeaderSession:
    """Read the profile, its space (given, else the one it records) and the checked-in header.

    `no_header_section` ends the message when the space has no ``header`` section. The space's
    ``header.path`` must stay inside the project `root` (default: the space's repository)
    unless `allow_outside_root`.
    """
    view = load_profile(profile)
    loaded = space if isinstance(space, Space) else space_for(view, space)
    if loaded.header is None:
        raise HeaderError(
            f'{loaded.path}: $: the space has no "header" section; {no_header_section}'
        )
    header_path = (
        Path(header)
        if header
        else default_header_path(loaded, root=root, allow_outside=allow_outside_root)
    )
    return HeaderSession(
        profile=view, space=loaded, header_path=header_path, checked_in=read_header(header_path)
    )


def space_for(profile: Profile, space_arg: str | Path | None) -> Space:
    """The space given, else the one the profile records."""
    if space_arg is not None:
        return load_space(space_arg)
    if profile.space_path is None:
        raise HeaderError(
            f"{profile.source}: $.meta.provenance.space_path: the profile does not say which "
            "space it was tuned with; pass --space"
        )
    found = recorded_space(profile)
    return load_space(found if found is not None else profile.space_path)


def read_holds(path: Path) -> Holds:
    """The changes a confirm run rejected, as holds: (constant, bucket) -> (old value, why)."""
    doc = read_json(
        path,
        error=HeaderError,
        kind="confirm output",
        missing="no such file; pass the file `benchspace confirm --out` wrote",
    )
    if not isinstance(doc, dict):
        raise HeaderError(f"{path}: $: pass the file `benchspace confirm --out` wrote")
    changes = review_changes(doc, str(path))
    holds: dict[tuple[str, str], tuple[Value, str]] = {}
    for i, change in enumerate(changes):
        if not isinstance(change, dict) or change.get("verdict") != "rejected":
            continue
        try:
            constant, bucket, old = change["constant"], change["bucket"], change["old"]
        except KeyError as exc:
            raise HeaderError(f"{path}: $.changes[{i}]: no {exc.args[0]!r}") from None
        if not isinstance(constant, str) or not isinstance(bucket, str):
            raise HeaderError(
                f"{path}: $.changes[{i}]: constant and bucket are names (strings); pass the file "
                "`benchspace confirm --out` wrote"
            )
        if not isinstance(old, bool | int | float | str):
            raise HeaderError(
                f"{path}: $.changes[{i}].old: {old!r} is not a constant's value; pass the file "
                "`benchspace confirm --out` wrote"
            )
        holds[(constant, bucket)] = (old, f"rejected at the consumer ({change.get('reason', '')})")
    return holds


def check_space_header(
    space: Space,
    include_incumbent: bool,
    *,
    root: Path | None = None,
    allow_outside_root: bool = False,
) -> list[str]:
    """The header rules against the space's checked-in header (what ``tune`` checks).

    With `include_incumbent`, incumbents missing from a grid are not problems: sweep
    `space_with_incumbents` instead, so that they are measured.
    """
    if space.header is None:
        return []
    incumbents, path = checked_in_incumbents(space, root=root, allow_outside=allow_outside_root)
    return check_header_rules(
        space, incumbents, header=str(path), include_incumbent=include_incumbent
    )


def space_with_incumbents(
    space: Space, *, root: Path | None = None, allow_outside_root: bool = False
) -> Space:
    """`space` with its checked-in header's incumbents added where a grid lacks them."""
    if space.header is None:
        return space
    shipped = checked_in_incumbents(space, root=root, allow_outside=allow_outside_root)[0]
    return add_incumbents(space, shipped)
