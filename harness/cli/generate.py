"""Generate a bucketed constexpr tuning header from a profile."""

from __future__ import annotations

import argparse

from generators import generate_tuning_header


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of ``generate`` (shared with generate_tuning_header.py)."""
    generate_tuning_header.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Generate the header."""
    return generate_tuning_header.run(args)
