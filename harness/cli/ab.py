"""A/B one benchmark under two environments (or executables), interleaved, with a verdict."""

from __future__ import annotations

import argparse
import platform
import sys
from dataclasses import replace
from pathlib import Path

from benchspace.harness.abtest.ab import (
    ABOptions,
    PairProgress,
    Side,
    case_invocation,
    check_options,
    exe_invocation,
    find_executable,
    parse_assignments,
    run_ab,
    with_side,
)
from benchspace.harness.abtest.ab_format import render_ab
from benchspace.harness.abtest.stats import Comparison
from benchspace.harness.cli.numbers import count, non_negative, seconds
from benchspace.harness.errors import UsageError
from benchspace.harness.execute.invoke import DEFAULT_BACKEND, Invocation, RunOptions
from benchspace.harness.execute.readers import READERS
from benchspace.harness.files import check_output
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Bench
from benchspace.harness.store import Store
from benchspace.harness.values import Value, parse_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """What to run (an executable, or a space's bench and case), the two sides, the budget."""
    what = parser.add_argument_group("what to run (--exe, or --space with --bench and --case)")
    what.add_argument("--exe", help="benchmark executable (path, name under the build dir, PATH)")
    what.add_argument("--arg", action="append", default=[], help="argument (repeat; {out} ok)")
    what.add_argument("--space", type=Path, help="space file holding the bench")
    what.add_argument("--bench", help="bench of the space")
    what.add_argument("--case", type=int, help="case index of the bench")
    what.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE",
        help="value of a parameter the case tunes (default: the first of its grid)",
    )  # fmt: skip
    what.add_argument("--reader", choices=READERS, help="output reader (default minibench-csv)")
    what.add_argument("--pattern", help="regex reader pattern")
    what.add_argument("--row", help="substring choosing the output row")
    what.add_argument("--metric", help="field to compare (required with --exe)")
    what.add_argument("--direction", choices=("min", "max"), help="which is better (default min)")
    what.add_argument("--build-dir", type=Path, default=Path("build"), help="default: build")
    what.add_argument("--backend", default=DEFAULT_BACKEND, help="passed to minibench executables")
    what.add_argument("--type", dest="dtype", default="float", help="passed to minibench")
    what.add_argument("--timeout", type=seconds, default=600.0, help="seconds per invocation")
    sides = parser.add_argument_group("the two sides")
    sides.add_argument(
        "--a", action="append", default=[], metavar="VAR=VAL",
        help="environment of A (repeat); VAR= sets empty, VAR alone unsets",
    )  # fmt: skip
    sides.add_argument("--b", action="append", default=[], metavar="VAR=VAL", help="as --a, for B")
    sides.add_argument("--exe-b", help="run B with this executable instead of A's")
    sides.add_argument(
        "--compile-a", action="append", default=[], metavar="NAME=VAL",
        help="compile-time value of A (a bench with \"compile\"; repeat): its variant is built",
    )  # fmt: skip
    sides.add_argument(
        "--compile-b", action="append", default=[], metavar="NAME=VAL",
        help="as --compile-a, for B (on top of A's values)",
    )  # fmt: skip
    budget = parser.add_argument_group("budget and decision")
    budget.add_argument(
        "--rounds", type=count(1, 10**6), help="most pairs (default 30; 1000 with --max-time)"
    )
    budget.add_argument("--max-time", type=seconds, help="seconds for the whole A/B")
    budget.add_argument(
        "--margin", type=non_negative, default=0.0, metavar="PCT",
        help="decide only when the interval lies outside [1-PCT%%, 1+PCT%%] (default 0)",
    )  # fmt: skip
    budget.add_argument("--seed", type=int, default=0, help="order and bootstrap seed")
    budget.add_argument("--format", choices=("text", "md", "json"), default="text")
    budget.add_argument("--store", type=Path, help="record every attempt in this store")
    budget.add_argument("--quiet", action="store_true", help="no progress on a terminal")


def parse_params(items: list[str]) -> dict[str, Value]:
    """``NAME=VALUE`` pairs; integers and floats are read as numbers."""
    out: dict[str, Value] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name:
            raise UsageError(f"--param {item!r}: write NAME=VALUE")
        out[name] = parse_value(text)
    return out


def _base(args: argparse.Namespace, options: RunOptions) -> tuple[Invocation, str]:
    """A's invocation before its overrides, and the direction."""
    if args.exe and args.space:
        raise UsageError("--exe and --space: give one (an executable, or a space's bench)")
    if args.space:
        if args.bench is None or args.case is None:
            raise UsageError("--space needs --bench and --case")
        if args.arg:
            raise UsageError("--arg goes with --exe; a space's bench has its own arguments")
        bench = load_space(args.space).bench(args.bench)
        bench = replace(
            bench,
            reader=args.reader or bench.reader,
            pattern=args.pattern if args.pattern is not None else bench.pattern,
            row=args.row if args.row is not None else bench.row,
            metric=args.metric or bench.metric,
            direction=args.direction or bench.direction,
        )
        params = parse_params(args.param)
        if bench.build is not None:
            return _variant_base(args, bench, params, options), bench.direction
        if args.compile_a or args.compile_b:
            raise UsageError(f"--compile-a/--compile-b: bench {bench.name!r} has no compile")
        inv = case_invocation(bench, args.case, params=params, options=options)
        return inv, bench.direction
    if not args.exe:
        raise UsageError("give --exe E (with --arg ...) or --space S --bench B --case I")
    if args.metric is None:
        raise UsageError("--exe needs --metric (the output field to compare)")
    inv = exe_invocation(
        args.exe,
        args.arg,
        reader=args.reader or "minibench-csv",
        metric=args.metric,
        row=args.row,
        pattern=args.pattern,
        options=options,
    )
    return inv, args.direction or "min"


def _variant_base(
    args: argparse.Namespace, bench: Bench, params: dict[str, Value], options: RunOptions
) -> Invocation:
    """A's invocation on the A variant; B's executable (the B variant) goes to ``--exe-b``."""
    from benchspace.harness.variants.ab_sides import build_sides, side_values
    from benchspace.harness.variants.settings import space_root

    if args.exe_b:
        raise UsageError("--exe-b: a bench with compile-time parameters builds B's (--compile-b)")
    if not 0 <= args.case < len(bench.cases):
        raise UsageError(
            f"--case {args.case}: bench {bench.name!r} has cases 0..{len(bench.cases) - 1}"
        )
    a = side_values(bench, args.case, params, parse_params(args.compile_a))
    b = side_values(bench, args.case, {**params, **dict(a)}, parse_params(args.compile_b))
    store = args.store or args.build_dir / "variants" / "builds.store.sqlite"
    exe_a, exe_b = build_sides(
        bench,
        (a, b),
        store_path=store,
        build_dir=args.build_dir,
        source_dir=space_root(load_space(args.space)),
    )
    args.exe_b = str(exe_b)
    return case_invocation(
        bench, args.case, params={**params, **dict(a)}, options=options, exe=str(exe_a)
    )


def _progress(tty: bool, quiet: bool) -> PairProgress | None:
    if quiet or not tty:
        return None

    def show(done: int, total: int, c: Comparison | None) -> None:
        if c is not None:
            print(
                f"ab: {done}/{total} pairs, B/A {c.ratio:.4f} "
                f"[{c.decision_low:.4f}, {c.decision_high:.4f}] {c.verdict}",
                file=sys.stderr,
                flush=True,
            )

    return show


def run(args: argparse.Namespace) -> int:
    """Run the A/B and print its report; exit 0 for any verdict."""
    options = RunOptions(
        build_dir=args.build_dir,
        backend=args.backend,
        dtype=args.dtype,
        timeout_s=args.timeout,
        host=platform.node(),
    )
    base, direction = _base(args, options)
    env_a = parse_assignments(args.a, option="--a")
    env_b = parse_assignments(args.b, option="--b")
    exe_b = find_executable(args.exe_b, args.build_dir) if args.exe_b else None
    a = Side(label="A", invocation=with_side(base, env_a), overrides=env_a)
    b = Side(label="B", invocation=with_side(base, env_b, exe_path=exe_b), overrides=env_b)
    rounds = args.rounds if args.rounds is not None else (1000 if args.max_time else 30)
    ab_options = ABOptions(
        rounds=rounds, max_time_s=args.max_time, margin_pct=args.margin, seed=args.seed
    )
    check_options(ab_options)  # a usage error before the store is made
    progress = _progress(sys.stderr.isatty(), args.quiet)
    if args.store and not args.store.is_dir():  # a directory is refused by the store itself
        check_output(args.store, option="--store")
    if args.store:
        with Store(args.store) as store:
            result = run_ab(
                a, b, ab_options, direction=direction, record=store.add, progress=progress
            )
    else:
        result = run_ab(a, b, ab_options, direction=direction, progress=progress)
    print(render_ab(result, args.format), end="")
    return 0
