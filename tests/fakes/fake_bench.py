#!/usr/bin/env python3
"""A fake benchmark executable: deterministic output from its argv and environment.

Speaks two output formats, chosen by the flags it is given: minibench CSV (``--csv=FILE``)
and Google Benchmark JSON (``--benchmark_out=FILE``); with neither, it prints a CSV table to
stdout. Positional arguments are integers (``n block ...``); the metric is a smooth function
of them with its minimum at ``block == FAKE_BEST`` (default 32), and ``FAKE_LANES`` from the
environment scales it, so env parameters matter.

Faults, chosen per invocation by ``FAKE_MODE`` (environment) or by a positional value equal to
``FAKE_CRASH_AT`` etc.: ``ok``, ``rows`` (several rows), ``crash`` (SIGSEGV), ``hang``,
``exit1``, ``garbage``, ``partial`` (output cut mid-row), ``slow`` (sleeps FAKE_SLEEP s), and
the fault matrix's (benchmarks/fault_matrix.py): ``abort`` (SIGABRT), ``rtsig`` (killed by
SIGRTMIN+3), ``termhang`` (hangs ignoring SIGTERM), ``cr`` (``\r`` progress updates in the
CSV), ``bigfield`` (a 200 KiB cell), ``norow`` (a header only), ``fork`` (leaves a child in
its process group), ``setsid`` (leaves a grandchild in a session of its own), ``closed``
(closes stdout, prints nothing), ``flood`` (FAKE_FLOOD_MB of junk before the table),
``replace`` (rebuilds its own executable: a new binary whose values are halved), ``vanish``
(moves its executable to ``<exe>.away``, for a driver to put back), ``zero`` and ``negative``
(a time of 0, a negative time).
Every invocation appends its argv to ``FAKE_LOG`` when set, so tests can count runs, and the
pid of every process it leaves behind to ``FAKE_PIDS``.

``--describe`` (benchspace's convention, docs/formats.md) is answered only when
``FAKE_DESCRIBE_ARGS`` is set (comma list of argument names; ``FAKE_DESCRIBE_ROWS`` the row
names): one JSON line, exit 0. Otherwise the flag is ignored like any other, as an executable
that does not know the convention would. ``FAKE_NAMES=batchlas`` names rows as BatchLAS's
minibench does, ``(BM_FAKE<float, batchlas::Backend::NETLIB>)``, from ``--backend`` and
``--type``, and prints no row for a backend other than NETLIB or CUDA. ``FAKE_ITERATIONS=1``
reports what minibench writes for a configuration slower than ``--min_time``: one timed
iteration, stddev 0.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

_MODES = (
    "crash", "hang", "exit1", "garbage", "partial", "slow", "abort", "rtsig", "termhang", "cr",
    "bigfield", "norow", "fork", "setsid", "closed", "flood", "replace", "vanish", "rows",
    "zero", "negative",
)  # fmt: skip


def _leave(detach: bool) -> None:
    """Leave a sleeping process behind: a child in our group, or (``detach``) a grandchild in
    a session of its own; its pid goes to FAKE_PIDS."""
    if os.fork() == 0:
        if detach:
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
        pids = os.environ.get("FAKE_PIDS")
        if pids:
            with open(pids, "a", encoding="utf-8") as fh:
                fh.write(f"{os.getpid()}\n")
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(60)
        os._exit(0)
    if detach:
        os.wait()
    time.sleep(0.05)


def _rebuild(exe: str) -> None:
    """Replace the executable (atomically, a new inode) with one whose values are halved."""
    with open(exe, encoding="utf-8") as fh:
        text = fh.read()
    if "FAKE_BUILD=2" in text:
        return
    new = text.replace("exec ", "FAKE_BUILD=2 exec ", 1)
    with open(exe + ".new", "w", encoding="utf-8") as fh:
        fh.write(new)
    os.chmod(exe + ".new", 0o755)
    os.replace(exe + ".new", exe)


def _mode(args: list[int]) -> str:
    for mode in _MODES:
        trigger = os.environ.get(f"FAKE_{mode.upper()}_AT")
        if trigger is not None and int(trigger) in args:
            return mode
    return os.environ.get("FAKE_MODE", "ok")


def _value(args: list[int]) -> float:
    n = args[0] if args else 64
    block = args[1] if len(args) > 1 else 32
    best = int(os.environ.get("FAKE_BEST", "32"))
    lanes = int(os.environ.get("FAKE_LANES", "4") or 4)
    lane_cost = 1.0 + abs(lanes - 4) / 8.0
    build = 0.5 if os.environ.get("FAKE_BUILD") == "2" else 1.0
    return n * (1.0 + ((block - best) / 64.0) ** 2) * lane_cost * build


def main(argv: list[str]) -> int:
    pids = os.environ.get("FAKE_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
    log = os.environ.get("FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(argv) + "\n")
    described = os.environ.get("FAKE_DESCRIBE_ARGS")
    if "--describe" in argv and described is not None:
        rows = [r for r in os.environ.get("FAKE_DESCRIBE_ROWS", "BM_FAKE").split(",") if r]
        doc = {"format": "benchspace-describe", "version": 1}
        doc.update(args=[a for a in described.split(",") if a], rows=rows)
        print(json.dumps(doc))
        return 0
    csv_out = json_out = None
    positional: list[int] = []
    for arg in argv:
        if arg.startswith("--csv="):
            csv_out = arg.split("=", 1)[1]
        elif arg.startswith("--benchmark_out="):
            json_out = arg.split("=", 1)[1]
        elif arg.startswith("-"):
            continue
        else:
            positional.append(int(arg))
    mode = _mode(positional)
    if mode == "crash":
        sys.stderr.write("fake: segfault coming\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "hang":
        time.sleep(3600)
    if mode == "slow":
        time.sleep(float(os.environ.get("FAKE_SLEEP", "1")))
    if mode == "abort":
        os.abort()
    if mode == "rtsig":
        os.kill(os.getpid(), signal.SIGRTMIN + 3)
    if mode == "termhang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)
    if mode in ("fork", "setsid"):
        _leave(detach=mode == "setsid")
    if mode == "closed":
        os.close(1)
        sys.stderr.write("fake: stdout closed\n")
        return 0
    exe = os.environ.get("FAKE_EXE", "")
    if mode == "replace" and exe:
        _rebuild(exe)
    if mode == "vanish" and exe and os.path.exists(exe):
        os.replace(exe, exe + ".away")
    if mode == "flood":
        junk = ("x" * 1023 + "\n").encode() * 1024
        for _ in range(int(os.environ.get("FAKE_FLOOD_MB", "200"))):
            sys.stdout.buffer.write(junk)
        sys.stdout.flush()
    if mode == "exit1":
        sys.stderr.write("fake: bad arguments\n")
        return 1
    value = _value(positional)
    if mode in ("zero", "negative"):
        value = 0.0 if mode == "zero" else -value
    rows = [("BM_FAKE<float>", value)]
    if mode == "rows" or os.environ.get("FAKE_ROWS"):
        rows = [("BM_FAKE_SETUP<float>", 1.0), ("BM_FAKE_MAIN<float>", value)]
    if os.environ.get("FAKE_NAMES") == "batchlas":
        flags = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
        backend, dtype = flags.get("backend", ""), flags.get("type", "float")
        known = backend in ("NETLIB", "CUDA")
        rows = [(f"({n.split('<')[0]}<{dtype}, batchlas::Backend::{backend}>)", v) for n, v in rows]
        rows = rows if known else []
    text = _gbench(rows, positional) if json_out is not None else _minibench(rows, positional)
    if mode == "garbage":
        text = "\x00\x01 not a benchmark table \ufffd\n"
    if mode == "partial":
        text = text[: len(text) // 2]
    if mode == "cr":
        head, _, body = text.partition("\n")
        text = f"running 10%\rrunning 90%\r{head}\nwarming up\r{body}"
    if mode == "bigfield":
        head, _, body = text.partition("\n")
        text = f'{head}\n"{"x" * (200 << 10)}"{body[body.index(",") :]}'
    if mode == "norow":
        text = text.partition("\n")[0] + "\n"
    target = csv_out or json_out
    if target:
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _minibench(rows: list[tuple[str, float]], args: list[int]) -> str:
    head = ["name"] + [f"arg{i}" for i in range(len(args))]
    head += ["iterations", "avg_ms", "stddev_ms", "Time (µs) / matrix", "Time (µs) / matrix_std"]
    lines = [",".join(head)]
    iterations = int(os.environ.get("FAKE_ITERATIONS", "10"))
    std = 0.0001 if iterations > 1 else 0.0
    for name, value in rows:
        cells = [f'"{name}"'] + [str(a) for a in args]
        cells += [str(iterations), f"{value / 1000:.6f}", f"{std:.6f}", f"{value:.6f}"]
        cells += [f"{value / 100 if iterations > 1 else 0.0:.6f}"]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def _gbench(rows: list[tuple[str, float]], args: list[int]) -> str:
    names = ["n", "block", "c", "d", "e"]
    suffix = "".join(f"/{names[i]}:{a}" for i, a in enumerate(args))
    benchmarks = []
    for name, value in rows:
        run_name = name.split("<")[0] + suffix
        benchmarks.append(
            {
                "name": run_name,
                "run_name": run_name,
                "run_type": "iteration",
                "repetitions": 1,
                "repetition_index": 0,
                "threads": 1,
                "iterations": 100,
                "real_time": value,
                "cpu_time": value,
                "time_unit": "ns",
            }
        )
    doc = {
        "context": {"date": "2026-11-29T00:00:00+00:00", "num_cpus": 2},
        "benchmarks": benchmarks,
    }
    return json.dumps(doc, indent=2) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
