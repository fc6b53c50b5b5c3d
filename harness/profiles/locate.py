"""Where a profile's space is: found from the profile, wherever the command runs."""

from __future__ import annotations

from pathlib import Path

from benchspace.harness.profiles.model import Profile


def recorded_space(profile: Profile) -> Path | None:
    """The space file the profile's sweep read, found from the profile: through the path
    recorded relative to the profile's folder (``space_path_relative``), so that a profile
    and its project moved together, or read from another working directory, still find it;
    else the recorded path (absolute since profiles record both). None when neither is a
    file."""
    prov = profile.meta.provenance
    if prov is None or prov.space_path is None:
        return None
    relative = prov.other.get("space_path_relative")
    if isinstance(relative, str) and profile.source:
        beside = Path(profile.source).parent / relative
        if beside.is_file():
            return beside
    named = Path(prov.space_path)
    return named if named.is_file() else None
