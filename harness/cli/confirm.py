"""A/B each change of a generated header at its consumers; exit 1 if any gets slower."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.ab import ABOptions, ABResult
from harness.confirm import (
    STATUSES,
    ConfirmedChange,
    ReviewedChange,
    Target,
    confirm_changes,
    confirm_document,
    exit_code,
    parse_changes,
)
from harness.errors import HeaderError, UsageError
from harness.invoke import RunOptions
from harness.jsonio import dumps, write_json_atomic
from harness.profiles.read import load_profile
from harness.space import Space, load_space
from harness.store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the changes come from, where to run, the A/B budget and the outputs."""
    parser.add_argument("--space", required=True, type=Path, help="space file")
    parser.add_argument("--profile", required=True, type=Path, help="profile the header came from")
    parser.add_argument(
        "--header", type=Path, help="checked-in header (default: the space's header.path)"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--generated", type=Path, help="header written by `benchspace generate`")
    source.add_argument(
        "--review", type=Path, help="JSON written by `benchspace review --format json`"
    )
    parser.add_argument(
        "--allow-space-mismatch",
        action="store_true",
        help="as for generate, when the header is generated here (no --generated/--review)",
    )
    parser.add_argument(
        "--include-incumbent", action="store_true", help="as for generate, likewise"
    )
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME",
        help="confirm only this constant family or NAME_BUCKET (repeat)",
    )  # fmt: skip
    parser.add_argument("--build-dir", type=Path, help="default: the profile's build_dir")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per invocation")
    parser.add_argument("--rounds", type=int, default=30, help="most pairs per A/B (default 30)")
    parser.add_argument("--max-time", type=float, help="seconds per A/B")
    parser.add_argument("--margin", type=float, default=0.0, metavar="PCT", help="as for ab")
    parser.add_argument("--seed", type=int, default=0, help="order and bootstrap seed")
    parser.add_argument(
        "--accept-unconfirmed",
        action="store_true",
        help="accept changes no declared consumer measures (default: not accepted)",
    )
    parser.add_argument("--format", choices=("md", "json"), default="md")
    parser.add_argument("--out", type=Path, help="write the confirmed review JSON here")
    parser.add_argument(
        "--store", type=Path, help="measurement store (default <profile>.confirm.store.sqlite)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on a terminal")


def _generated_review(args: argparse.Namespace, space: Space) -> dict[str, Any]:
    """The review document of --generated, or of a header generated now from the profile."""
    from generators.generate_tuning_header import default_header_path, generate_header
    from generators.header_io import read_header
    from generators.header_model import incumbents_from_header
    from generators.header_parse import parse_header
    from generators.render import Provenance
    from generators.review import review_header
    from generators.review_format import review_document
    from harness import __version__

    profile = load_profile(args.profile)
    header_path = args.header or default_header_path(space)
    header = read_header(header_path)
    if header is None:
        raise HeaderError(f"{header_path}: no such file; pass the checked-in header as --header")
    if args.generated is not None:
        generated = read_header(args.generated)
        if generated is None:
            raise HeaderError(f"{args.generated}: no such file; run `benchspace generate` first")
    else:
        text = generate_header(
            space,
            profile,
            incumbents=incumbents_from_header(space, header),
            provenance=Provenance(
                benchspace_version=__version__,
                profile_sha256=profile.sha256,
                space_path=str(space.path),
                space_sha256=space.sha256,
            ),
            include_incumbent=args.include_incumbent,
            allow_space_mismatch=args.allow_space_mismatch,
            header_source=str(header_path),
        ).text
        generated = parse_header(text, f"(header generated from {args.profile})")
    return review_document(review_header(space, profile, generated, header))


def _read_review(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise HeaderError(
            f"{path}: no such file; write it with `benchspace review --format json`"
        ) from None
    except json.JSONDecodeError as exc:
        raise HeaderError(f"{path}: line {exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise HeaderError(f"{path}: $: a review is a JSON object")
    return data


def select(changes: list[ReviewedChange], only: list[str]) -> list[ReviewedChange]:
    """Changes named by --only (a family or one NAME_BUCKET); all without it."""
    if not only:
        return changes
    known = {c.constant for c in changes} | {c.name for c in changes}
    unknown = [o for o in only if o not in known]
    if unknown:
        shown = ", ".join(sorted(known)) or "none"
        raise UsageError(f"--only {unknown[0]}: not a changed constant (changed: {shown})")
    return [c for c in changes if c.constant in only or c.name in only]


def run(args: argparse.Namespace) -> int:
    """Confirm every change; print the table; write --out; exit 1 if one is rejected."""
    space = load_space(args.space)
    meta = load_profile(args.profile).meta
    if args.review is not None:
        review, source = _read_review(args.review), str(args.review)
    else:
        review, source = _generated_review(args, space), str(args.generated or args.profile)
    changes = select(parse_changes(review, source), args.only)
    options = RunOptions(
        build_dir=args.build_dir or Path(meta.build_dir or "build"),
        backend=meta.backend or "CPU",
        dtype=meta.dtype or "float",
        timeout_s=args.timeout,
        host=platform.node(),
    )
    ab = ABOptions(
        rounds=args.rounds, max_time_s=args.max_time, margin_pct=args.margin, seed=args.seed
    )
    store_path = args.store or args.profile.with_name(
        args.profile.name.removesuffix(".json") + ".confirm.store.sqlite"
    )
    report = None if args.quiet or not sys.stderr.isatty() else _report
    with Store(store_path) as store:
        outcomes = confirm_changes(
            space,
            changes,
            options=options,
            ab=ab,
            accept_unconfirmed=args.accept_unconfirmed,
            record=store.add,
            report=report,
        )
    settings = {
        "profile": str(args.profile),
        "build_dir": str(options.build_dir),
        "rounds": args.rounds,
        "max_time_s": args.max_time,
        "margin_pct": args.margin,
        "seed": args.seed,
        "store": str(store_path),
    }
    document = confirm_document(review, outcomes, settings)
    if args.out is not None:
        write_json_atomic(args.out, document)
        print(f"wrote {args.out}", file=sys.stderr)
    sys.stdout.write(dumps(document) if args.format == "json" else render_markdown(outcomes))
    return exit_code(outcomes)


def _report(change: ReviewedChange, target: Target, result: ABResult | None) -> None:
    verdict = "error" if result is None else result.comparison.verdict
    print(f"confirm: {change.name} at {target.label}: {verdict}", file=sys.stderr, flush=True)


_SHOWN = {"B faster": "new faster", "A faster": "new slower"}


def _shown(value: object) -> str:
    return "—" if value is None else str(value)


def render_markdown(outcomes: Sequence[ConfirmedChange]) -> str:
    """A table of every A/B, then one verdict line per change."""
    lines = [
        "| change | old → new | consumer | median old | median new | new/old | 95 % interval "
        "| p (MWU) | pairs | verdict |",
        "|---|---|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for o in outcomes:
        ch = o.change
        head = f"`{ch.name}` | {_shown(ch.entry.get('old'))} → {_shown(ch.entry.get('new'))}"
        if not o.runs:
            lines.append(f"| {head} | — | | | | | | | {o.status} |")
        for run in o.runs:
            if run.result is None:
                lines.append(f"| {head} | {run.target.label} | | | | | | | error |")
                continue
            c = run.result.comparison
            lines.append(
                f"| {head} | {run.target.label} | {c.median_a:.6g} | {c.median_b:.6g} | "
                f"{c.ratio:.4f} ({(c.ratio - 1) * 100:+.1f} %) | [{c.ci_low:.3f}, "
                f"{c.ci_high:.3f}] | {c.p_value:.2g} | {c.n_pairs} | "
                f"{_SHOWN.get(c.verdict, c.verdict)} |"
            )
    lines.append("")
    for o in outcomes:
        lines.append(f"- `{o.change.name}`: **{o.status}** — {o.reason}")
        lines += [f"  - note: {n}" for n in o.notes]
        for run in o.runs:
            if run.result is not None:
                lines += [f"  - warning ({run.target.label}): {w}" for w in run.result.warnings]
    counts = {s: sum(o.status == s for o in outcomes) for s in STATUSES}
    shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n or s in ("accepted", "rejected"))
    lines += ["", f"{shown} of {len(outcomes)} changes."]
    return "\n".join(lines) + "\n"
