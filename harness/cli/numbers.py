"""Argument types for numbers on the command line: finite, in range, or a usage error (exit 2).

``float("inf")``, ``float("nan")`` and ``1e400`` all parse; a timeout of ``inf`` ends in an
``OverflowError`` deep inside the process layer and a ``nan`` one never fires. Every option that
is a duration, a percentage or a count goes through one of these instead.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

MAX_SECONDS = 604800.0
"""The longest duration an option takes: a week (the space's ``timeout_s`` has the same cap)."""


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; write e.g. 60")
    return value


def seconds(text: str) -> float:
    """A duration in seconds: finite, above 0, at most a week."""
    value = _number(text)
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text} must be above 0 and at most {MAX_SECONDS:g} seconds (a week); write e.g. 60"
        )
    return value


def non_negative(text: str) -> float:
    """A finite number at least 0 (a percentage margin, milliseconds)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must be at least 0")
    return value


def count(low: int, high: int) -> Callable[[str], int]:
    """An integer from `low` to `high`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} must be from {low} to {high}")
        return value

    parse.__name__ = "count"
    return parse
