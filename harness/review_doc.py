"""The review document (``benchspace-review``, version 1): what ``review --format json``
writes and ``confirm``, ``port --accepted`` and ``generate --hold`` read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchspace.harness.errors import HeaderError

REVIEW_FORMAT = "benchspace-review"
REVIEW_VERSION = 1


def review_changes(document: Mapping[str, Any], source: str) -> list[Any]:
    """The ``changes`` list of a review (or confirm) document, after checking its format."""
    if document.get("format") != REVIEW_FORMAT:
        raise HeaderError(
            f"{source}: $.format: {document.get('format')!r} is not a review; pass the JSON "
            "written by `benchspace review --format json`"
        )
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > REVIEW_VERSION:
        raise HeaderError(
            f"{source}: $.version: {version!r} is not a review version this benchspace reads "
            f"(up to {REVIEW_VERSION}); upgrade benchspace"
        )
    changes = document.get("changes")
    if not isinstance(changes, list):
        raise HeaderError(f"{source}: $.changes: missing or not a list; regenerate the review")
    return changes
