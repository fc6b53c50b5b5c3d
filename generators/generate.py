"""Generate a header from a space and a profile: check the rules, choose every value, render.

Pure: the files are read by `benchspace.generators.session`, written by the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchspace.generators.header_model import (
    HeaderModel,
    Holds,
    Incumbents,
    apply_holds,
    choose_header,
)
from benchspace.generators.render import Provenance, render_header
from benchspace.generators.rules import check_header_rules, incumbent_problems
from benchspace.harness.errors import HeaderError
from benchspace.harness.profiles.model import Profile
from benchspace.harness.spaces.model import Space


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
    keep_incumbents: bool = True,
    previous: Profile | None = None,
) -> GeneratedHeader:
    """Check the rules, choose every value and render the header (pure).

    With `keep_incumbents` an incumbent stays unless a challenger beats it beyond the measured
    noise. The incumbents are the checked-in header's values, or, given a `previous` profile,
    the values a header generated from that profile would have.
    """
    for view in (profile, previous):
        if view is None or not view.space_sha256 or allow_space_mismatch:
            continue
        if view.space_sha256 != space.sha256:
            raise HeaderError(
                f"{view.source}: $.meta.provenance.space_sha256: the profile was tuned with "
                f"space {view.space_sha256[:12]}, but {space.path} is {space.sha256[:12]}; pass "
                "the space it was tuned with, or --allow-space-mismatch if only the header "
                "section changed"
            )
    problems = check_header_rules(
        space, incumbents, header=header_source, include_incumbent=include_incumbent
    )
    if problems:
        raise HeaderError("\n".join(problems))
    missing = (
        incumbent_problems(space, incumbents, header=header_source) if include_incumbent else []
    )
    notes = [
        f"{line} (ignored: --include-incumbent; the incumbent competes only where it was measured)"
        for line in missing
    ]
    if previous is not None:
        before = choose_header(space, previous, incumbents, keep_incumbents=keep_incumbents)
        incumbents = {
            c.constant.name: {b.bucket: b.value for b in c.buckets} for c in before.constants
        }
    model = choose_header(space, profile, incumbents, keep_incumbents=keep_incumbents)
    if holds:
        model = apply_holds(model, holds)
    text = render_header(model, provenance)
    return GeneratedHeader(text=text, model=model, notes=(*notes, *model.notes))


def gave_way(model: HeaderModel) -> str:
    """Where the profile's winner gave way, for generate's summary line: "; N incumbents kept:
    ..." per reason (empty when it never did)."""
    chosen = [b for c in model.constants for b in c.buckets if b.origin == "profile"]
    by_noise = sum(b.kept_by == "noise" for b in chosen)
    by_verdict = sum(b.kept_by == "verdict" and b.value == b.incumbent for b in chosen)
    tied = sum(b.kept_by == "verdict" and b.value != b.incumbent for b in chosen)
    out = ""
    if by_noise:
        out += f"; {by_noise} incumbents kept: the profile's winner won within noise"
    if by_verdict:
        out += f"; {by_verdict} incumbents kept: the verdicts left them unbeaten"
    if tied:
        out += f"; {tied} values the smallest of a tie, not the profile's winner"
    return out
