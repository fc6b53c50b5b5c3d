"""The macros a generated header must not declare: ``data/cxx_macros.txt``, shipped with the
package (captured with ``g++ -dM -E``; its header says how). Read once, on first use."""

from __future__ import annotations

import functools
import importlib.resources


@functools.cache
def cxx_macros() -> frozenset[str]:
    """Macros g++ predefines or the generated headers' includes define."""
    text = (
        importlib.resources.files("benchspace.harness")
        .joinpath("data/cxx_macros.txt")
        .read_text("utf-8")
    )
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )
