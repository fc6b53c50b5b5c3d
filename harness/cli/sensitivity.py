"""Rank how much each tuned parameter moves the metric, against measured noise; prune the space."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

from benchspace.harness.analysis.prune import incumbents, invocation_counts, prune_space
from benchspace.harness.analysis.sensitivity import analyse_profile
from benchspace.harness.analysis.sensitivity_format import (
    plot,
    pruned_data,
    render,
    render_pruned,
    report_data,
)
from benchspace.harness.analysis.sensitivity_report import DEFAULT_NOISE_PCT
from benchspace.harness.cli import MissingExtraError
from benchspace.harness.errors import HeaderError, ProfileError, UsageError
from benchspace.harness.files import check_output
from benchspace.harness.jsonio import dumps, write_text_atomic
from benchspace.harness.profiles.locate import recorded_space
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space

PLOT_SUFFIXES = frozenset({".png", ".pdf", ".svg", ".eps", ".ps", ".jpg", ".jpeg", ".webp"})
"""What matplotlib writes (the format follows the file name's ending)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options as BatchLAS's sensitivity.py, with a measured noise floor and pruning."""
    parser.add_argument("profile", type=Path, help="profile written by `benchspace tune`")
    parser.add_argument(
        "--space", type=Path, help="the space the profile swept (default: the one it names)"
    )
    parser.add_argument(
        "--noise",
        default="auto",
        metavar="auto|PCT",
        help="noise floor in percent; auto (default) measures it from repeats or the "
        f"benchmark's reported spread and falls back to {DEFAULT_NOISE_PCT:g} %% when unknown",
    )
    parser.add_argument(
        "--write-pruned", type=Path, metavar="OUT.json", help="write the pruned space here"
    )
    parser.add_argument(
        "--trim",
        choices=("global", "per-case"),
        default="global",
        help="with --write-pruned: drop only values that won no case and came within noise of "
        "no case's best (global, default), or also each case's values not within noise of "
        "that case's best (per-case)",
    )
    parser.add_argument("--plot", type=Path, metavar="PNG", help="plot spreads per parameter")
    parser.add_argument("--format", choices=("text", "md", "json"), default="text")


def _noise(text: str) -> float | None:
    if text == "auto":
        return None
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise UsageError(f"--noise: {text!r} is not auto or a percentage; write e.g. 2.5") from None
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"--noise: {text} must be a non-negative percentage; write e.g. 2.5")
    return value


def _space_path(args: argparse.Namespace, profile: Profile) -> Path | None:
    if args.space is not None:
        return Path(args.space)
    return recorded_space(profile)


def _incumbents(space: Space) -> dict[tuple[str, str], dict[int, Any]]:
    """What the checked-in header ships, per bench parameter and case (as generate reads it)."""
    if space.header is None:
        return {}
    from benchspace.generators.header_io import checked_in_incumbents

    shipped, path = checked_in_incumbents(space)
    if not path.is_file():
        raise HeaderError(
            f"{space.path}: $.header.path: {space.header.path} not found (looked for {path}); "
            "run from the repository root, or fix the path, so that incumbents are kept"
        )
    return incumbents(space, shipped)


def _check_same_space(profile: Profile, space: Space, *, source: str) -> None:
    """Refuse to prune a space with a profile of another version of it (when it says)."""
    swept = profile.space_sha256
    if swept and swept != space.sha256:
        raise ProfileError(
            f"{source}: $.meta.provenance.space_sha256: {swept[:12]}… but {space.path} hashes "
            f"to {space.sha256[:12]}…: the space changed since this sweep; prune the space the "
            "profile swept, or tune again"
        )


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))


def run(args: argparse.Namespace) -> int:
    """Analyse the profile, print the report, optionally write the pruned space and a plot."""
    noise = _noise(args.noise)
    if args.plot is not None and Path(args.plot).suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(
            f"--plot {args.plot}: not an image file name; end it in .png, .pdf or .svg"
        )
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise MissingExtraError("sensitivity --plot", "matplotlib", "plot")  # before any write
    for path, option in ((args.write_pruned, "--write-pruned"), (args.plot, "--plot")):
        if path is not None:
            check_output(path, option=option)
    profile = load_profile(args.profile)
    report = analyse_profile(profile, source=str(args.profile), noise_pct=noise)
    pruned: dict[str, Any] | None = None
    if args.write_pruned is not None:
        space_path = _space_path(args, profile)
        if space_path is None:
            raise UsageError(
                f"--write-pruned: {args.profile} names no space file that exists here; "
                "pass --space SPACE.json"
            )
        out = Path(args.write_pruned)
        for other, what in ((space_path, "the space"), (Path(args.profile), "the profile")):
            if _same_file(out, other):
                raise UsageError(
                    f"--write-pruned: {out} is {what} ({other}); write the pruned space to a "
                    "new file"
                )
        space = load_space(space_path)
        _check_same_space(profile, space, source=str(args.profile))
        result = prune_space(
            space,
            report,
            incumbent_values=_incumbents(space),
            profile=str(args.profile),
            per_case=args.trim == "per-case",
        )
        before, after = invocation_counts(space, result.raw, source=str(out))
        # The author's key order is kept (not sorted) so the pruned file diffs cleanly.
        write_text_atomic(out, json.dumps(result.raw, indent=2, ensure_ascii=False) + "\n")
        pruned = pruned_data(result, before=before, after=after, path=out, space=space_path)
    if args.plot is not None:
        plot(report, args.plot)
    if args.format == "json":
        data = report_data(report)
        if pruned is not None:
            data["pruned"] = pruned
        print(dumps(data), end="")
    else:
        print(render(report, markdown=args.format == "md"), end="")
        if pruned is not None:
            print(render_pruned(pruned, markdown=args.format == "md"), end="")
    return 0
