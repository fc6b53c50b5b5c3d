#!/usr/bin/env python3
"""A minibench-style benchmark executable modelled on BatchLAS's eigen-solver benches.

It speaks the command line BatchLAS's ``evaluation/common/benchmark_runner.py`` builds
(``--backend= --type= --csv=FILE --warmup= --min_time= --min_iters= --max_iters=`` then one
integer per ``arg_spec`` entry) and writes the CSV minibench writes:
``name,arg0..argK,iterations,avg_ms,stddev_ms,<metric>,<metric>_std`` with the name quoted
(``"BM_STEDC<float, batchlas::Backend::CUDA>"``), plus minibench's table on stdout.

Which bench it is comes from the name it is run under (link it as
``<build>/benchmarks/stedc_benchmark`` etc.); the executables and their positional arguments
are those of tests/generators/spaces/batchlas.json. The metric is a smooth model of the
arguments and of the ``BATCHLAS_TUNE_*`` variables the benches read, with deterministic noise
(a hash of the configuration, at most 0.4 %); ``MINIBENCH_DRIFT=1`` models a later build (a
little faster, some optima moved). Standard library only: it runs under any python3.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys

# exe -> (row names, metric column, {position: (optimum, weight)}, {env var: (optimum, weight)})
Knobs = dict[int, tuple[int, float]]
BENCHES: dict[str, tuple[tuple[str, ...], str, Knobs, dict[str, tuple[int, float]]]] = {
    "stedc_benchmark": (
        ("STEDC",),
        "Time (µs) / matrix",
        {2: (32, 0.04), 4: (8, 0.012), 5: (4, 0.009)},
        {},
    ),
    "sytrd_blocked_benchmark": (("SYTRD_BLOCKED",), "T(µs)/matrix", {2: (16, 0.05)}, {}),
    "ormqr_blocked_benchmark": (("ORMQR_BLOCKED",), "Time (µs) / matrix", {4: (16, 0.06)}, {}),
    "gesvd_blocked_benchmark": (
        ("GESVD_BLOCKED",),
        "Time (µs) / matrix",
        {},
        {"BATCHLAS_TUNE_GEBRD_BLOCK_SIZE": (16, 0.03)},
    ),
    "sb2st_hh_benchmark": (
        ("SB2ST_HH_CHASE", "SB2ST_HH_BACK"),
        "Time (ms)",
        {},
        {"BATCHLAS_TUNE_SB2ST_BACK_TILE": (4, 0.05), "BATCHLAS_TUNE_SB2ST_BACK_SUBS": (8, 0.02)},
    ),
    "syev_benchmark": (
        ("SYEV",),
        "Time (µs) / matrix",
        {2: (16, 0.04)},
        {"BATCHLAS_TUNE_SY2SB_ORMQR_NB": (16, 0.02)},
    ),
}
# Values a bench reads as "unset": it keeps its compiled value (BatchLAS's tuning_env_override).
COMPILED = {"BATCHLAS_TUNE_SY2SB_ORMQR_NB": 32, "BATCHLAS_TUNE_GEBRD_BLOCK_SIZE": 16}


def _penalty(value: int, optimum: int, weight: float) -> float:
    return 1.0 + weight * (math.log2(max(value, 1)) - math.log2(optimum)) ** 2


def _noise(*parts: object) -> float:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return 1.0 + 0.004 * (int.from_bytes(digest[:4], "big") / 2**32 - 0.5) * 2


def _env_value(var: str) -> int | None:
    text = os.environ.get(var, "")
    try:
        value = int(text, 10)
    except ValueError:
        return COMPILED.get(var)
    return value if value > 0 else COMPILED.get(var)


def model(exe: str, row: str, args: list[int]) -> float:
    """The metric of one row (microseconds per matrix; seconds per batch for ``Time (ms)``)."""
    _, metric, knobs, env_knobs = BENCHES[exe]
    drift = os.environ.get("MINIBENCH_DRIFT") == "1"
    n = args[0] if args else 64
    value = 0.004 * n**2.1 * (0.97 if drift else 1.0)
    for pos, (optimum, weight) in knobs.items():
        if pos < len(args):
            best = optimum * 2 if drift and n >= 512 else optimum
            value *= _penalty(args[pos], best, weight)
    if exe == "stedc_benchmark" and len(args) > 3:
        value *= {0: 1.21, 1: 1.025, 2: 1.0}.get(args[3], 1.3)
    if exe == "syev_benchmark" and len(args) > 4:
        value *= (1.016 if args[3] else 1.0) * (1.5 if args[4] else 1.0)
    if row != "SB2ST_HH_CHASE":
        for var, (optimum, weight) in env_knobs.items():
            got = _env_value(var)
            if got is not None:
                value *= _penalty(got, optimum, weight)
    if metric == "Time (ms)":
        value *= 1e-6 * (args[1] if len(args) > 1 else 1)
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("BATCHLAS_TUNE_"))
    return value * _noise(exe, row, args, env, drift)


def main(argv: list[str]) -> int:
    exe = os.path.basename(argv[0])
    if exe not in BENCHES:
        print(f"{exe}: not a bench this model knows ({', '.join(BENCHES)})", file=sys.stderr)
        return 2
    flags: dict[str, str] = {}
    args: list[int] = []
    for word in argv[1:]:
        if word.startswith("--"):
            key, _, value = word[2:].partition("=")
            flags[key] = value
        else:
            args.append(int(word))
    rows, metric, _, _ = BENCHES[exe]
    backend, dtype = flags.get("backend", "CUDA"), flags.get("type", "float")
    iterations = max(int(flags.get("min_iters", "1")), min(int(flags.get("max_iters", "20")), 5))
    head = ["name", *(f"arg{i}" for i in range(len(args)))]
    head += ["iterations", "avg_ms", "stddev_ms", metric, f"{metric}_std"]
    lines = [",".join(head)]
    for row in rows:
        name = f"BM_{row}<{dtype}, batchlas::Backend::{backend}>"
        value = model(exe, row, args)
        batch = args[1] if len(args) > 1 else 1
        avg_ms = value if metric == "Time (ms)" else value * batch / 1000.0
        cells = [f'"{name}"', *map(str, args), str(iterations), f"{avg_ms:.6f}"]
        cells += [f"{avg_ms * 0.01:.6f}", f"{value:.6f}", f"{value * 0.01:.6f}"]
        lines.append(",".join(cells))
        print(
            f"({name}){'    '.join(map(str, args))}    {iterations}    {avg_ms:.4f}    {value:.4f}"
        )
    if "csv" in flags:
        with open(flags["csv"], "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
