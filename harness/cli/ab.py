"""A/B one benchmark under two environments (or executables), interleaved, with a verdict."""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from harness.ab import (
    ABOptions,
    ABResult,
    Progress,
    Side,
    ab_record,
    case_invocation,
    exe_invocation,
    find_executable,
    format_env,
    parse_assignments,
    run_ab,
    with_side,
)
from harness.abstats import Comparison
from harness.errors import UsageError
from harness.invoke import Invocation, RunOptions
from harness.jsonio import dumps
from harness.readers import READERS
from harness.space_load import load_space
from harness.store import Store
from harness.values import Value


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
    what.add_argument("--backend", default="CPU", help="passed to minibench executables")
    what.add_argument("--type", dest="dtype", default="float", help="passed to minibench")
    what.add_argument("--timeout", type=float, default=600.0, help="seconds per invocation")
    sides = parser.add_argument_group("the two sides")
    sides.add_argument(
        "--a", action="append", default=[], metavar="VAR=VAL",
        help="environment of A (repeat); VAR= sets empty, VAR alone unsets",
    )  # fmt: skip
    sides.add_argument("--b", action="append", default=[], metavar="VAR=VAL", help="as --a, for B")
    sides.add_argument("--exe-b", help="run B with this executable instead of A's")
    budget = parser.add_argument_group("budget and decision")
    budget.add_argument("--rounds", type=int, help="most pairs (default 30; 1000 with --max-time)")
    budget.add_argument("--max-time", type=float, help="seconds for the whole A/B")
    budget.add_argument(
        "--margin", type=float, default=0.0, metavar="PCT",
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
        value: Value = text
        for kind in (int, float):
            try:
                value = kind(text)
                break
            except ValueError:
                continue
        out[name] = value
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
        inv = case_invocation(bench, args.case, params=parse_params(args.param), options=options)
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


def _progress(tty: bool, quiet: bool) -> Progress | None:
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
    progress = _progress(sys.stderr.isatty(), args.quiet)
    if args.store:
        with Store(args.store) as store:
            result = run_ab(
                a, b, ab_options, direction=direction, record=store.add, progress=progress
            )
    else:
        result = run_ab(a, b, ab_options, direction=direction, progress=progress)
    print(render(result, args.format), end="")
    return 0


def render(result: ABResult, fmt: str) -> str:
    """The report in the asked format."""
    if fmt == "json":
        return dumps(ab_record(result))
    return render_md(result) if fmt == "md" else render_text(result)


# ---------------------------------------------------------------- rendering


def change_pct(ratio: float) -> str:
    """A ratio as a signed percentage change of B against A: ``-3.1 %``."""
    return f"{(ratio - 1.0) * 100:+.1f} %"


def interval_text(c: Comparison) -> str:
    """``[0.962, 0.978]``."""
    return f"[{c.ci_low:.3f}, {c.ci_high:.3f}]"


_STOPS = {
    "decided": "the interval cleared 1{margin} and the rank test agreed after {n} pairs",
    "rounds": "the pair budget ({n} pairs) was spent",
    "time": "the time budget was spent after {n} pairs",
}


def render_text(result: ABResult) -> str:
    """A short plain-text report."""
    c = result.comparison
    inv = result.a.invocation
    better = "lower" if result.direction == "min" else "higher"
    margin = f" by ±{c.margin_pct:g} %" if c.margin_pct else ""
    lines = [
        f"A: {format_env(result.a.overrides)}  [{shlex.join(result.a.invocation.argv)}]",
        f"B: {format_env(result.b.overrides)}  [{shlex.join(result.b.invocation.argv)}]",
        f"metric {inv.metric} ({better} is better), {c.n_pairs} pairs interleaved in random "
        f"order (seed {result.seed})",
        f"median A {c.median_a:.6g}, median B {c.median_b:.6g}",
        f"B/A {c.ratio:.4f} ({change_pct(c.ratio)}), 95 % interval {interval_text(c)}, "
        f"Mann-Whitney U p = {c.p_value:.2g}",
        f"verdict: {c.verdict}",
        "stopped: "
        + _STOPS[result.stop].format(margin=margin, n=c.n_pairs)
        + f"; looks at {', '.join(map(str, result.looks))} pairs, each at "
        f"{c.decision_confidence * 100:.2f} % confidence",
    ]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines) + "\n"


MD_HEADER = (
    "| A | B | median A | median B | B/A | 95 % interval | p (MWU) | pairs | verdict |\n"
    "|---|---|---:|---:|---:|---|---:|---:|---|\n"
)


def md_row(a: str, b: str, c: Comparison) -> str:
    """One Markdown table row of a comparison."""
    return (
        f"| {a} | {b} | {c.median_a:.6g} | {c.median_b:.6g} | {c.ratio:.4f} "
        f"({change_pct(c.ratio)}) | {interval_text(c)} | {c.p_value:.2g} | {c.n_pairs} | "
        f"**{c.verdict}** |\n"
    )


def side_label(side: Side, other: Side) -> str:
    """The side's overrides, and its executable when the two sides run different ones."""
    label = f"`{format_env(side.overrides)}`"
    if side.invocation.exe_path != other.invocation.exe_path:
        label += f" `{Path(side.invocation.exe).name}`"
    return label


def render_md(result: ABResult) -> str:
    """A one-row Markdown table plus warnings."""
    a, b = side_label(result.a, result.b), side_label(result.b, result.a)
    out = MD_HEADER + md_row(a, b, result.comparison)
    out += "".join(f"\n> warning: {w}\n" for w in result.warnings)
    return out
