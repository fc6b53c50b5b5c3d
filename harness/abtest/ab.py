"""A/B: run one benchmark under two environments (or two executables), interleaved in pairs.

Each pair runs A and B back to back in an order drawn per pair from a seeded generator, so
slow drift of the machine (clocks, thermals, other load) lands on both sides alike. After a
minimum number of pairs, and then at doubling pair counts, the ratio B/A of the medians is
checked (see `benchspace.harness.abtest.stats`); the run stops at the first look that decides
(interval clear of 1 by the margin, rank test agreeing), or when the pair or time budget is
spent. A failed run is an error, not a sample. Every attempt, warm-ups included, can be
recorded in a store.
"""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from benchspace.harness.abtest.stats import (
    MIN_PAIRS,
    RESAMPLES,
    Comparison,
    compare,
    look_confidence,
    look_schedule,
    noise_warning,
)
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.invoke import (
    Invocation,
    RunOptions,
    build_invocation,
    resolve_executable,
    sha256_file,
)
from benchspace.harness.execute.process import run_invocation
from benchspace.harness.execute.readers import Stream
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import ParamValue, Task, make_config
from benchspace.harness.spaces.model import Bench, Case

Env = Mapping[str, str | None]
Stop = Literal["decided", "rounds", "time"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_assignments(items: Iterable[str], *, option: str) -> dict[str, str | None]:
    """``VAR=VAL`` sets, ``VAR=`` sets empty, ``VAR`` alone unsets; the last one wins."""
    out: dict[str, str | None] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not _ENV_NAME.fullmatch(name):
            raise UsageError(
                f"{option} {item!r}: {name!r} is not an environment variable name; write "
                "VAR=VALUE to set, VAR= to set empty, VAR to unset"
            )
        out[name] = value if eq else None
    return out


def format_env(env: Env) -> str:
    """``VAR=VAL`` words (``-VAR`` for an unset variable), shell-quoted; ``(inherited)`` if none."""
    words = [f"-{k}" if v is None else f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())]
    return " ".join(words) or "(inherited)"


def pair_orders(seed: int, pairs: int) -> tuple[str, ...]:
    """Per pair, ``"AB"`` or ``"BA"``: which side runs first, drawn from `seed`."""
    rng = random.Random(seed)
    return tuple("AB" if rng.random() < 0.5 else "BA" for _ in range(pairs))


def find_executable(exe: str, build_dir: Path) -> Path:
    """A path as given (when it has a slash), else under the build dir, else on PATH."""
    given = Path(exe)
    if "/" in exe:
        if given.is_file() and os.access(given, os.X_OK):
            return given.resolve()
        raise BenchspaceError(
            f"ab: executable {exe!r} not found or not executable; build it or fix the path"
        )
    found = resolve_executable(exe, build_dir)
    if found is None:
        which = shutil.which(exe)
        found = Path(which) if which else None
    if found is None:
        raise BenchspaceError(
            f"ab: executable {exe!r} not found in {build_dir}/benchmarks, {build_dir} or on "
            "PATH; build it or pass --build-dir"
        )
    return found.resolve()


def exe_invocation(
    exe: str,
    args: Sequence[str],
    *,
    reader: str,
    metric: str,
    row: str | None = None,
    pattern: str | None = None,
    stream: Stream = "stdout",
    options: RunOptions,
) -> Invocation:
    """The invocation of a bare executable: reader flags, then `args` (``{out}`` allowed)."""
    path = find_executable(exe, options.build_dir)
    bench = Bench(
        name=path.name,
        exe=exe,
        metric=metric,
        reader=reader,
        pattern=pattern,
        stream=stream,
        row=row,
        flags=tuple(args),
        cases=(Case(index=0, fixed={}, tune={}),),
    )
    task = Task(bench=bench.name, case_index=0, phase="ab", config=())
    return build_invocation(
        bench, task, exe_path=path, exe_sha256=sha256_file(path), options=options
    )


def case_params(
    bench: Bench, case_index: int, given: Mapping[str, ParamValue]
) -> dict[str, ParamValue]:
    """Values of the parameters a case tunes: `given` first; else env parameters stay unset
    (the library's compiled value decides) and argument parameters take their grid's first."""
    case = bench.cases[case_index]
    grids = {**{k: v for p in bench.pre_tune for k, v in p.params.items()}, **case.tune}
    values = {name: None if name in bench.env else grid[0] for name, grid in grids.items()}
    unknown = [name for name in given if name not in grids]
    if unknown:
        tuned = ", ".join(sorted(grids)) or "none"
        raise UsageError(
            f"--param {unknown[0]}: bench {bench.name!r} case {case_index} tunes no parameter "
            f"{unknown[0]!r} (it tunes: {tuned}); name one of those"
        )
    values.update(given)
    missing = [n for n in bench.arg_names() if values.get(n, case.fixed.get(n)) is None]
    if missing:
        raise UsageError(
            f"bench {bench.name!r} case {case_index}: argument {missing[0]!r} has no value; "
            f"pass --param {missing[0]}=VALUE"
        )
    return values


def case_invocation(
    bench: Bench,
    case_index: int,
    *,
    params: Mapping[str, ParamValue],
    options: RunOptions,
    exe: str | None = None,
) -> Invocation:
    """The invocation of one case of a space's bench (its reader, flags, row and metric)."""
    if not 0 <= case_index < len(bench.cases):
        raise UsageError(
            f"--case {case_index}: bench {bench.name!r} has cases 0..{len(bench.cases) - 1}"
        )
    path = find_executable(exe or bench.exe, options.build_dir)
    values = case_params(bench, case_index, params)
    task = Task(bench=bench.name, case_index=case_index, phase="ab", config=make_config(values))
    return build_invocation(
        bench, task, exe_path=path, exe_sha256=sha256_file(path), options=options
    )


def with_side(inv: Invocation, env: Env, *, exe_path: Path | None = None) -> Invocation:
    """`inv` with a side's overrides on top of its own env (and, optionally, another exe)."""
    side = replace(inv, env={**inv.env, **env})
    if exe_path is None:
        return side
    return replace(
        side,
        exe=str(exe_path),
        exe_path=exe_path,
        exe_sha256=sha256_file(exe_path),
        argv=(str(exe_path), *inv.argv[1:]),
    )


@dataclass(frozen=True, kw_only=True)
class Side:
    """One side of an A/B: what it runs and what distinguishes it."""

    label: str
    invocation: Invocation
    overrides: Env = field(default_factory=dict)
    """The variables this side sets or unsets on top of the benchmark's own environment."""


@dataclass(frozen=True, kw_only=True)
class ABOptions:
    """Budget and decision settings of one A/B."""

    rounds: int = 30
    """Most pairs to run."""
    max_time_s: float | None = None
    margin_pct: float = 0.0
    min_pairs: int = MIN_PAIRS
    warmup_pairs: int = 1
    seed: int = 0
    resamples: int = RESAMPLES


@dataclass(frozen=True, kw_only=True)
class ABResult:
    """What an A/B measured and concluded."""

    a: Side
    b: Side
    direction: str
    samples_a: tuple[float, ...]
    samples_b: tuple[float, ...]
    orders: tuple[str, ...]
    comparison: Comparison
    looks: tuple[int, ...]
    stop: Stop
    elapsed_s: float
    seed: int
    warnings: tuple[str, ...] = ()


PairProgress = Callable[[int, int, Comparison | None], None]
"""Called after every pair with (pairs done, most pairs, the comparison if it looked)."""


def check_options(options: ABOptions) -> None:
    """Refuse budgets and margins that cannot give a verdict."""
    if options.rounds < options.min_pairs:
        raise UsageError(
            f"--rounds {options.rounds}: a verdict needs at least {options.min_pairs} pairs"
        )
    if options.max_time_s is not None and options.max_time_s <= 0:
        raise UsageError(f"--max-time {options.max_time_s:g}: must be positive")
    if not 0 <= options.margin_pct < 100:
        raise UsageError(f"--margin {options.margin_pct:g}: must be a percentage in [0, 100)")


def _attempt(
    side: Side, phase: str, index: int, run: Callable[[Invocation], Measurement]
) -> Measurement:
    return run(replace(side.invocation, phase=phase, repeat=index))


def _failure(side: Side, m: Measurement, where: str) -> BenchspaceError:
    lines = [ln for ln in m.stderr_tail.splitlines() if ln.strip()]
    tail = f"; stderr: {lines[-1].strip()}" if lines else ""
    return BenchspaceError(
        f"ab: side {side.label} ({format_env(side.overrides)}) {m.status} on {where}: "
        f"{m.error}; command: {shlex.join(m.argv)}{tail}; fix the command or the override"
    )


def run_ab(
    a: Side,
    b: Side,
    options: ABOptions,
    *,
    direction: str,
    run: Callable[[Invocation], Measurement] = run_invocation,
    record: Callable[[Measurement], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    progress: PairProgress | None = None,
) -> ABResult:
    """Run interleaved pairs until the verdict is decided or the budget is spent."""
    check_options(options)
    schedule = look_schedule(options.min_pairs, options.rounds)
    confidence = look_confidence(len(schedule))
    orders = pair_orders(options.seed, options.rounds)
    sides = {"A": a, "B": b}
    t0 = clock()

    def measure(side: Side, phase: str, index: int) -> float:
        m = _attempt(side, phase, index, run)
        if record is not None:
            record(m)
        if not m.ok or m.value is None:
            warm = phase != "ab"
            raise _failure(side, m, f"{'warm-up ' if warm else ''}pair {index + 1}")
        return m.value

    xs: dict[str, list[float]] = {"A": [], "B": []}
    for w in range(options.warmup_pairs):
        for label in orders[w % len(orders)]:
            measure(sides[label], "ab-warmup", w)

    def look(n: int) -> Comparison:
        return compare(
            xs["A"][:n],
            xs["B"][:n],
            direction=direction,
            margin_pct=options.margin_pct,
            decision_confidence=confidence,
            min_pairs=options.min_pairs,
            seed=options.seed,
            resamples=options.resamples,
        )

    looks: list[int] = []
    comparison: Comparison | None = None
    stop: Stop = "rounds"
    last_pair_s = 0.0
    for i in range(options.rounds):
        elapsed = clock() - t0
        if options.max_time_s is not None and i and elapsed + last_pair_s > options.max_time_s:
            stop = "time"
            break
        for label in orders[i]:
            xs[label].append(measure(sides[label], "ab", i))
        last_pair_s = clock() - t0 - elapsed
        looked = None
        if i + 1 in schedule:
            looked = comparison = look(i + 1)
            looks.append(i + 1)
        if progress is not None:
            progress(i + 1, options.rounds, looked)
        if looked is not None and looked.decided:
            stop = "decided"
            break
    n = len(xs["A"])
    if n < 2:
        raise BenchspaceError(
            f"ab: only {n} pair within --max-time {options.max_time_s:g} s; a comparison needs "
            "at least 2; raise --max-time"
        )
    if comparison is None or looks[-1] != n:
        comparison = look(n)
        looks.append(n)
    warnings = []
    if n < options.min_pairs:
        warnings.append(
            f"only {n} pairs within --max-time {options.max_time_s:g} s; no verdict below "
            f"{options.min_pairs}; raise --max-time"
        )
    noisy = noise_warning(comparison)
    if noisy is not None:
        warnings.append(noisy)
    return ABResult(
        a=a,
        b=b,
        direction=direction,
        samples_a=tuple(xs["A"]),
        samples_b=tuple(xs["B"]),
        orders=orders[:n],
        comparison=comparison,
        looks=tuple(looks),
        stop=stop,
        elapsed_s=clock() - t0,
        seed=options.seed,
        warnings=tuple(warnings),
    )
