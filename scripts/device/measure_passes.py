#!/usr/bin/env python3
"""On the GPU machine: measure a block of shapes for dataset v2 with ``cutlass_bench``.

Every driver invocation is one shape and one *pass*; each pass times its CUTLASS
configurations and the cuBLASLt ones (``cublas:heuristic``, ``cublas:algo0..N-1``) in the
same interleaved rounds:

* evaluation shapes: pass ``x`` = every compiled kernel at default knobs; pass ``k`` = the
  ``--top`` best kernels of pass ``x`` (by median time), each at every knob setting
  (:func:`knob_grid`);
* training shapes: pass ``t`` = ``--train-kernels`` kernels drawn per shape (all of them for
  the first ``--exhaustive-first`` shapes this invocation measures) at default knobs plus
  ``--train-knobs`` drawn (kernel, non-default knob) configurations of those kernels;
* evaluation shapes measured before over fewer kernels (``--topup FILE``: per ``MxNxK`` the
  kernels it measured and its best ``--top`` at default knobs): pass ``y`` re-times the knob
  sweep of that earlier best beside the kernels not measured yet (at default knobs), in one
  run, so it replaces the shape's earlier ``k`` pass as the sweep the oracle comes from.

``--extra FILE`` (per ``MxNxK``, configurations) adds configurations to a shape's ``k`` or
``y`` pass, e.g. what tune-my-shapes shortlisted, so they are timed in the oracle's rounds.
``--rounds-x`` sets the rounds of the ``x`` pass (it only picks the kernels the ``k`` pass
sweeps; ``k``, ``y`` and ``t`` keep ``--rounds``).

Writes under ``--out``: ``v2_<split>_rounds.csv.gz`` (one row per configuration and round),
``v2_<split>_rows.csv.gz`` (one row per configuration, failures included) and a log. Both
gzip files are appended one member per shape, so a killed run keeps every finished shape.
Standard library only: it runs on the device's python3, without the project installed.

    python3 scripts/device/measure_passes.py --bench DIR/cutlass_bench --build-dir DIR \\
        --shapes evaluation/data/shapes/h200_v2.json --split eval --out $OUT --deadline-s 500
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

RASTERS = ("H", "M", "N")
SWIZZLES = (1, 2, 4, 8)
STREAM_K_EXTRA = ("H:1:k2:dK", "H:1:k4:dK", "H:1:dD", "H:1:dS")
"""Stream-K kernels only: split-K 2 and 4, forced data-parallel, forced stream-K."""
ROUND_FIELDS = ("run", "split", "pass", "config", "M", "N", "K", "round", "seq", "ms",
                "sm_clock_mhz", "power_w", "t_s")  # fmt: skip


def knob_grid(name: str, stream_k: bool) -> list[str]:
    """Every knob setting of a kernel: raster x max swizzle, plus the Stream-K settings."""
    out = [f"{name}:{r}:{s}" for r in RASTERS for s in SWIZZLES]
    if stream_k:
        out += [f"{name}:{extra}" for extra in STREAM_K_EXTRA]
    out[0] = name  # H:1 is the default: the plain name
    return out


def cublas_configs(algos: int) -> list[str]:
    """The cuBLASLt configurations timed in every pass."""
    return ["cublas:heuristic", *(f"cublas:algo{i}" for i in range(algos))]


def compiled_kernels(build_dir: Path) -> dict[str, dict[str, object]]:
    """Kernels with a built library whose ptxas report shows no spill."""
    index = json.loads((build_dir / "batches.json").read_text())
    out = {}
    for name, rec in index["kernels"].items():
        if not (build_dir / rec["library"]).exists():
            continue
        if (rec.get("spill_stores") or 0) > 0 or (rec.get("stack_frame") or 0) > 0:
            continue
        out[name] = rec
    return dict(sorted(out.items()))


class Sink:
    """Appends CSV rows to a gzip file, one gzip member per flush."""

    def __init__(self, path: Path, fields: tuple[str, ...] | None) -> None:
        self.path, self.fields = path, fields
        self.header_done = path.exists() and path.stat().st_size > 0
        self.buffer = io.StringIO()

    def rows(self, rows: list[dict[str, object]], fields: tuple[str, ...]) -> None:
        writer = csv.DictWriter(self.buffer, fieldnames=list(fields), extrasaction="ignore")
        if not self.header_done:
            writer.writeheader()
            self.header_done = True
        writer.writerows(rows)

    def flush(self) -> None:
        text = self.buffer.getvalue()
        if text:
            with gzip.open(self.path, "at", encoding="utf-8") as handle:
                handle.write(text)
        self.buffer = io.StringIO()


Rows = list[dict[str, str]]


def run_driver(
    args: argparse.Namespace,
    shape: tuple[int, int, int],
    configs: list[str],
    work: Path,
    timeout_s: float,
    log: Callable[[str], None],
    rounds_n: int,
) -> tuple[Rows, Rows]:
    """One invocation (retried without a configuration that killed the driver)."""
    summary: list[dict[str, str]] = []
    rounds: list[dict[str, str]] = []
    left = list(configs)
    for _attempt in range(3):
        cfg = work / "configs.txt"
        cfg.write_text("\n".join(left) + "\n")
        rounds_path = work / "rounds.csv"
        cmd = [str(args.bench), "--lib-dir", str(args.build_dir), "--configs", str(cfg),
               "--rounds-csv", str(rounds_path), "--warmups", str(args.warmups),
               "--rounds", str(rounds_n), "--iters", str(args.iters),
               "--heat-s", str(args.heat_s), "--cublas-algos", str(args.cublas_algos),
               *(["--cublas-lib", args.cublas_lib] if args.cublas_lib else []),
               *(str(v) for v in shape)]  # fmt: skip
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
            out, err, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            rc = -9
        lines = [line for line in out.splitlines() if line.strip()]
        got = list(csv.DictReader(lines)) if lines and lines[0].startswith("config,") else []
        # Driver 3's position sentinel: its copy (config <text>@last) is not a row of the
        # dataset; the first copy's row keeps sentinel_ratio for the position check.
        last = {r.get("position") for r in got if r.get("sentinel") == "last"}
        got = [r for r in got if r.get("sentinel") != "last"]
        summary += got
        if rounds_path.exists():
            with rounds_path.open() as handle:
                rounds += [
                    r for r in csv.DictReader(handle)
                    if r.get("t_s") and (r.get("position") is None or r["position"] not in last)
                ]  # fmt: skip
        note = [line for line in err.splitlines() if "cuBLASLt" in line][:1]
        log(f"  {len(left)} configs rc={rc} rows={len(got)} {' '.join(note)}")
        if rc == 0:
            break
        log("  stderr tail: " + " | ".join(err.splitlines()[-4:]))
        done = {r["config"] for r in got}
        running = [ln.split("running ", 1)[1] for ln in err.splitlines() if " running " in ln]
        bad = running[-1] if running else None
        left = [c for c in left if c not in done and c != bad]
        # Rows of an unfinished run are incomplete: drop its rounds of configs never summarised.
        rounds = [r for r in rounds if r["config"] in {s["config"] for s in summary}]
        if rc == -9 or not left:
            break
    return summary, rounds


def median_ms(row: dict[str, str]) -> float:
    try:
        return float(row["ms_median"])
    except (KeyError, ValueError):
        return float("inf")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", type=Path, required=True)
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument("--shapes", type=Path, required=True)
    p.add_argument("--split", choices=("eval", "train"), required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--deadline-s", type=float, default=500.0)
    p.add_argument("--skip-shapes", type=Path, help="MxNxK lines already measured")
    p.add_argument("--cublas-lib", default="")
    p.add_argument("--cublas-algos", type=int, default=8)
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--train-kernels", type=int, default=320)
    p.add_argument("--train-knobs", type=int, default=80)
    p.add_argument("--exhaustive-first", type=int, default=0)
    p.add_argument("--warmups", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=3)
    p.add_argument("--heat-s", type=float, default=1.0)
    p.add_argument("--max-shapes", type=int, default=10_000)
    p.add_argument("--topup", type=Path, help="JSON: MxNxK -> {measured: [...], top: [...]}")
    p.add_argument("--extra", type=Path, help="JSON: MxNxK -> configurations for pass k")
    p.add_argument("--rounds-x", type=int, default=None, help="rounds of passes x and y")
    args = p.parse_args()
    started = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    log_file = (args.out / f"v2_{args.split}_log.txt").open("a")

    def log(text: str) -> None:
        line = f"[{time.monotonic() - started:6.1f}s] {text}"
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    kernels = compiled_kernels(args.build_dir)
    names = list(kernels)
    stream_k = {n for n in names if "_stream_k_" in n}
    shapes = json.loads(args.shapes.read_text())[args.split]
    skip = set()
    if args.skip_shapes and args.skip_shapes.exists():
        skip = {ln.strip() for ln in args.skip_shapes.read_text().splitlines() if ln.strip()}
    log(f"{len(names)} kernels ({len(stream_k)} Stream-K), {len(shapes)} {args.split} shapes, "
        f"{len(skip)} to skip")  # fmt: skip
    rounds_sink = Sink(args.out / f"v2_{args.split}_rounds.csv.gz", ROUND_FIELDS)
    rows_sink = Sink(args.out / f"v2_{args.split}_rows.csv.gz", None)
    work = Path("/tmp/measure_passes")
    work.mkdir(exist_ok=True)
    cublas = cublas_configs(args.cublas_algos)
    topup = json.loads(args.topup.read_text()) if args.topup else {}
    extra = json.loads(args.extra.read_text()) if args.extra else {}
    per_shape: list[float] = []
    measured = 0
    for entry in shapes:
        shape = (int(entry["M"]), int(entry["N"]), int(entry["K"]))
        key = "x".join(str(v) for v in shape)
        if key in skip:
            continue
        left = args.deadline_s - (time.monotonic() - started)
        guess = 1.5 * max(per_shape[-5:]) if per_shape else 20.0
        if left < guess or measured >= args.max_shapes:
            log(f"stop before {key}: {left:.0f}s left, a shape takes about {guess:.0f}s")
            break
        t0 = time.monotonic()
        rng = random.Random(f"{key}-{args.split}")
        earlier = topup.get(key)
        if args.split == "eval" and earlier is not None:
            new = [n for n in names if n not in set(earlier["measured"])]
            if not new:
                continue
            grid = [c for n in earlier["top"] if n in kernels for c in knob_grid(n, n in stream_k)]
            grid += [c for c in extra.get(key, []) if c not in grid and c not in new]
            passes = [("y", [*new, *grid, *cublas])]
        elif args.split == "eval":
            passes = [("x", [*names, *cublas])]
        else:
            exhaustive = measured < args.exhaustive_first or len(names) <= args.train_kernels
            chosen = list(names) if exhaustive else rng.sample(names, args.train_kernels)
            knobs = [c for n in chosen for c in knob_grid(n, n in stream_k)[1:]]
            knobs = rng.sample(knobs, min(args.train_knobs, len(knobs)))
            passes = [("t", [*chosen, *knobs, *cublas])]
        done_passes = 0
        while passes:
            tag, configs = passes.pop(0)
            rng.shuffle(configs)
            timeout = max(30.0, args.deadline_s - (time.monotonic() - started) + 20)
            log(f"{key} pass {tag}: {len(configs)} configs")
            pass_rounds = args.rounds_x if tag == "x" and args.rounds_x else args.rounds
            summary, rounds = run_driver(
                args, shape, configs, work, min(timeout, 240.0), log, pass_rounds
            )
            run = f"{args.split}-{key}-{tag}"
            for r in summary:
                r.update(run=run, split=args.split, **{"pass": tag})
            for r in rounds:
                r.update(run=run, split=args.split, **{"pass": tag})
            if summary:
                fields = ("run", "split", "pass", *summary[0].keys())
                rows_sink.rows(summary, tuple(dict.fromkeys(fields)))
            rounds_sink.rows(rounds, ROUND_FIELDS)
            done_passes += 1
            if tag == "x":
                ok = [r for r in summary if r["status"] == "ok" and r["name"] != "cublas"]
                top = sorted(ok, key=median_ms)[: args.top]
                grid = [c for r in top for c in knob_grid(r["name"], r["name"] in stream_k)]
                grid += [c for c in extra.get(key, []) if c not in grid]
                if grid:
                    passes.append(("k", [*grid, *cublas]))
        rows_sink.flush()
        rounds_sink.flush()
        measured += 1
        per_shape.append(time.monotonic() - t0)
        log(f"{key}: {done_passes} passes in {per_shape[-1]:.1f}s")
        (args.out / f"v2_{args.split}_done.txt").open("a").write(key + "\n")
    log(f"measured {measured} shapes in {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
