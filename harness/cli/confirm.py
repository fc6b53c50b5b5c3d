"""A/B each change of a generated header at its consumers; exit 1 if any gets slower."""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchspace.generators.header_io import checked_in_incumbents, read_header
from benchspace.generators.header_model import incumbents_from_header
from benchspace.generators.header_parse import parse_header
from benchspace.generators.review import review_header
from benchspace.generators.review_format import review_document
from benchspace.generators.session import open_session
from benchspace.harness.abtest.ab import ABOptions, ABResult, check_options
from benchspace.harness.abtest.confirm import (
    ProposedChange,
    Target,
    confirm_changes,
    confirm_document,
    exit_code,
    parse_changes,
)
from benchspace.harness.abtest.confirm_format import render_markdown
from benchspace.harness.cli.numbers import count, non_negative, seconds
from benchspace.harness.errors import HeaderError, UsageError
from benchspace.harness.execute.invoke import DEFAULT_BACKEND, DEFAULT_DTYPE, RunOptions
from benchspace.harness.files import check_not_input, check_output, read_object
from benchspace.harness.jsonio import dumps, write_json_atomic
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space
from benchspace.harness.store import Store
from benchspace.harness.values import Value, parse_value
from benchspace.harness.variants.confirm_sides import CompileConfirm, unknown_given


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
    parser.add_argument("--timeout", type=seconds, default=600.0, help="seconds per invocation")
    parser.add_argument(
        "--rounds", type=count(1, 10**6), default=30, help="most pairs per A/B (default 30)"
    )
    parser.add_argument("--max-time", type=seconds, help="seconds per A/B")
    parser.add_argument("--margin", type=non_negative, default=0.0, metavar="PCT", help="as for ab")
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
    parser.add_argument(
        "--compile", action="append", default=[], metavar="NAME=VAL",
        help="a compile-time value both sides' variants take (repeat; default: the checked-in "
        "header's value for the bucket)",
    )  # fmt: skip
    parser.add_argument(
        "--builds-store", type=Path,
        help="store whose builds table finds and records the variants (default: the sweep's "
        "<profile>.store.sqlite when it exists, else <build-dir>/variants/builds.store.sqlite)",
    )  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no progress on a terminal")


def _generated_review(args: argparse.Namespace, space: Space) -> dict[str, Any]:
    """The review document of --generated, or of a header generated now from the profile."""
    session = open_session(args.profile, space=space, header=args.header)
    header = session.require_checked_in()
    if args.generated is not None:
        generated = read_header(args.generated)
        if generated is None:
            raise HeaderError(f"{args.generated}: no such file; run `benchspace generate` first")
    else:
        text = session.generate(
            include_incumbent=args.include_incumbent,
            allow_space_mismatch=args.allow_space_mismatch,
        ).text
        generated = parse_header(text, f"(header generated from {args.profile})")
    return review_document(review_header(space, session.profile, generated, header))


def _read_review(path: Path) -> dict[str, Any]:
    return read_object(
        path,
        error=HeaderError,
        kind="review",
        missing="no such file; write it with `benchspace review --format json`",
    )


def select(changes: list[ProposedChange], only: list[str]) -> list[ProposedChange]:
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
    if args.out is not None:
        check_output(args.out, option="--out")
        inputs = ((args.profile, "the profile"), (args.review, "the review"))
        check_not_input(args.out, option="--out", inputs=(*inputs, (args.space, "the space")))
    space = load_space(args.space)
    given = _given(args.compile, space)  # a usage error before anything is measured
    meta = load_profile(args.profile).meta
    if args.review is not None:
        review, source = _read_review(args.review), str(args.review)
    else:
        review, source = _generated_review(args, space), str(args.generated or args.profile)
    changes = select(parse_changes(review, source), args.only)
    options = RunOptions(
        build_dir=args.build_dir or Path(meta.build_dir or "build"),
        backend=meta.backend or DEFAULT_BACKEND,
        dtype=meta.dtype or DEFAULT_DTYPE,
        timeout_s=args.timeout,
        host=platform.node(),
    )
    ab = ABOptions(
        rounds=args.rounds, max_time_s=args.max_time, margin_pct=args.margin, seed=args.seed
    )
    check_options(ab)  # a usage error before the store is made
    store_path = args.store or args.profile.with_name(
        args.profile.name.removesuffix(".json") + ".confirm.store.sqlite"
    )
    if not store_path.is_dir():  # a directory is refused by the store itself
        check_output(store_path, option="--store")
    report = None if args.quiet or not sys.stderr.isatty() else _report
    compiled = _compile_confirm(args, space, given, options.build_dir, store_path)
    with Store(store_path) as store:
        outcomes = confirm_changes(
            space,
            changes,
            options=options,
            ab=ab,
            accept_unconfirmed=args.accept_unconfirmed,
            record=store.add,
            report=report,
            compile_confirm=compiled,
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


def _given(items: list[str], space: Space) -> dict[str, Value]:
    """``--compile NAME=VALUE`` pairs, each a compile-time parameter of the space."""
    given: dict[str, Value] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name:
            raise UsageError(f"--compile {item!r}: write NAME=VALUE")
        given[name] = parse_value(text)
    unknown = unknown_given(space, given)
    if unknown:
        raise UsageError(f"--compile {unknown[0]}: not a compile-time parameter of the space")
    return given


def _compile_confirm(
    args: argparse.Namespace,
    space: Space,
    given: Mapping[str, Value],
    build_dir: Path,
    store_path: Path,
) -> CompileConfirm | None:
    """How compile-time changes get their variants (None: the space has no such bench)."""
    if not any(bench.build is not None for bench in space.benches):
        return None
    builds = args.builds_store
    if builds is None:
        sweep = args.profile.with_name(args.profile.name.removesuffix(".json") + ".store.sqlite")
        builds = sweep if sweep.is_file() else build_dir / "variants" / "builds.store.sqlite"
    if builds.resolve() == store_path.resolve():
        raise UsageError("--builds-store: give another file than --store (each is opened once)")
    parsed = read_header(args.header) if args.header is not None else None
    if parsed is not None:
        incumbents: Mapping[str, Mapping[str, Value]] = incumbents_from_header(space, parsed)
    else:
        incumbents = {} if args.header is not None else checked_in_incumbents(space)[0]
    return CompileConfirm(
        space=space, build_dir=build_dir, store_path=builds, given=given, incumbents=incumbents
    )


def _report(change: ProposedChange, target: Target, result: ABResult | None) -> None:
    verdict = "error" if result is None else result.comparison.verdict
    print(f"confirm: {change.name} at {target.label}: {verdict}", file=sys.stderr, flush=True)
