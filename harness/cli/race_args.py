"""``tune``'s racing, stopping and confirmation flags (harness/sweep/race.py, confirm.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchspace.harness.cli.numbers import count, non_negative
from benchspace.harness.errors import UsageError
from benchspace.harness.spaces.model import Space
from benchspace.harness.sweep.confirm import ConfirmOptions
from benchspace.harness.sweep.decide import DEFAULT_MARGIN_PCT, DEFAULT_MIN_REPEATS, RaceRule
from benchspace.harness.sweep.incumbents import incumbent_family
from benchspace.harness.sweep.race import Racing, parse_stop

CONFIRM_CAP_FACTOR = 3
"""A raced confirmation's default cap: this many times its first rounds."""


def add_race_arguments(parser: argparse.ArgumentParser) -> None:
    """--race, --min-repeats, --margin, --stop, --confirm, --confirm-rounds, --confirm-cap."""
    parser.add_argument(
        "--race",
        action="store_true",
        help="repeat only configurations not yet beaten (--repeats is the cap)",
    )
    parser.add_argument(
        "--min-repeats",
        type=count(2, 1000),
        default=DEFAULT_MIN_REPEATS,
        help=f"with --race: repeats every configuration gets first (default {DEFAULT_MIN_REPEATS})",
    )
    parser.add_argument(
        "--margin",
        type=non_negative,
        default=DEFAULT_MARGIN_PCT,
        metavar="PCT",
        help="with --race: survivors all within this %% of the leader are a tie "
        f"(default {DEFAULT_MARGIN_PCT:g})",
    )
    parser.add_argument(
        "--stop",
        metavar="rse:X%",
        help="repeat each configuration until the relative standard error of its centre is "
        "under X (or --repeats)",
    )
    parser.add_argument(
        "--confirm",
        type=count(1, 1000),
        metavar="K",
        help="re-time each case's top K (and the incumbent) in fresh rounds; the profile's "
        "figures come from them",
    )
    parser.add_argument(
        "--confirm-rounds",
        type=count(1, 1000),
        metavar="N",
        help="rounds of the confirmation (default: the bench's repeats, at least 3); with "
        "--race, the rounds every pick gets first (at least 2)",
    )
    parser.add_argument(
        "--confirm-cap",
        type=count(2, 10000),
        metavar="N",
        help="with --race: undecided cases' picks are raced on to N rounds (default 3 x "
        "--confirm-rounds)",
    )


def race_options(
    args: argparse.Namespace, space: Space, *, root: Path | None, allow_outside: bool
) -> dict[str, Any]:
    """TuneOptions' ``racing`` and ``confirm`` from the flags."""
    if args.confirm_rounds is not None and args.confirm is None:
        raise UsageError("--confirm-rounds: applies only with --confirm K")
    if args.race and args.confirm_rounds == 1:
        raise UsageError(
            "--confirm-rounds 1: a raced confirmation needs 2 rounds at least (a noise "
            "estimate) before its first look"
        )
    if args.confirm_cap is not None and not (args.race and args.confirm is not None):
        raise UsageError("--confirm-cap: applies only with --race and --confirm K")
    if not args.race and (args.min_repeats != DEFAULT_MIN_REPEATS):
        raise UsageError("--min-repeats: applies only with --race")
    stop = parse_stop(args.stop) if args.stop else None
    incumbents: dict[str, dict[int, dict[str, Any]]] = {}
    baselines: dict[str, dict[str, Any]] = {}
    if space.header is not None and (args.race or args.confirm is not None):
        from benchspace.generators.header_io import checked_in_incumbents
        from benchspace.generators.incumbent_cases import incumbent_configs
        from benchspace.harness.variants.default_gain import library_defaults

        shipped = checked_in_incumbents(space, root=root, allow_outside=allow_outside)[0]
        incumbents = incumbent_configs(space, shipped)
        for bench in space.benches if args.confirm is not None else ():
            default = library_defaults(space, bench.name)
            if default:
                baselines[bench.name] = default
    racing = None
    if args.race or stop is not None:
        rule = RaceRule(
            min_repeats=args.min_repeats,
            margin_pct=args.margin,
            stop_rse=stop,
            family=incumbent_family(space, incumbents),
        )
        racing = Racing(rule=rule, drop=bool(args.race), incumbents=incumbents)
    confirm = None
    if args.confirm is not None:
        repeats = args.repeats or 3
        rounds = args.confirm_rounds or max(repeats, 3)
        cap = None
        if args.race:
            cap = args.confirm_cap or CONFIRM_CAP_FACTOR * rounds  # at least rounds: .rule
        confirm = ConfirmOptions(
            k=args.confirm,
            rounds=rounds,
            cap=cap,
            incumbents=incumbents,
            baselines=baselines,
        )
    return {"racing": racing, "confirm": confirm}
