#!/usr/bin/env python3
"""A fake ``cutlass_bench``: the real driver's argv, CSV and order of rows, without a GPU.

``fake_cutlass_driver.py [--lib-dir DIR] [--csv OUT|-] [...] M N K CONFIG [CONFIG ...]``
prints the header, then (like the real check phase) a row at once for each configuration that
fails early, then one ``ok`` row per remaining configuration, in argument order, after the
timed rounds. Times are a deterministic function of the kernel's tile, the knobs and the shape.
``--describe`` prints the real driver's description.

Environment:
``FAKE_CUTLASS_FAIL``   ``status:substring[,status:substring...]``: configurations containing the
                        substring get that early status (``cannot_implement``, ``launch_error``,
                        ``wrong_result``, ``unknown_kernel``).
``FAKE_CUTLASS_CRASH``  substring: the driver dies when it reaches the first configuration
                        containing it, in the way ``FAKE_CUTLASS_CRASH_MODE`` says:
                        ``row`` (default; like the real signal handler: a ``crashed`` row for it,
                        then SIGSEGV), ``silent`` (SIGKILL, no row: killed from outside),
                        ``context`` (a ``launch_error`` row, exit 3: context lost),
                        ``hang`` (sleeps until killed).
``FAKE_CUTLASS_LOG``    a file that every invocation appends its argv to (JSON, one a line).

``cublas:heuristic``, ``cublas:algo<i>`` and pinned ``cublaslt:id=..;...`` (the v2 and v4 driver's
cuBLASLt configurations) are timed like a 128x128 tile (``--cublas-algos``, ``--cublas-lib`` and
``--sample-ms``, ``--graph``, the seeds and ``--sentinel`` are accepted and ignored).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sys
import time

COLUMNS = (
    "config,name,M,N,K,raster,swizzle,status,ms_mean,ms_stdev,tflops,rel_err,nonfinite,"
    "smem_bytes,stages,regs,local_bytes,sm_clock_mhz,power_w"
)
DESCRIBE = {
    "format": "cutlass_bench",
    "version": 1,
    "abi_version": 1,
    "columns": COLUMNS,
    "statuses": [
        "ok",
        "cannot_implement",
        "launch_error",
        "wrong_result",
        "unknown_kernel",
        "crashed",
        "timeout",
        "not_offered",
    ],
    "raster": ["H", "M", "N"],
    "swizzle": [1, 2, 4, 8],
    "defaults": {
        "warmups": 5,
        "rounds": 5,
        "iters": 3,
        "heat_s": 2.0,
        "timeout_s": 30.0,
        "max_rel_err": 0.01,
    },
}
_OPTIONS_WITH_VALUE = {
    "--lib-dir",
    "--lib",
    "--csv",
    "--warmups",
    "--rounds",
    "--iters",
    "--heat-s",
    "--timeout-s",
    "--device",
    "--cublas-algos",
    "--cublas-lib",
    "--sample-ms",
    "--graph",
    "--shuffle-seed",
    "--order-seed",
    "--sentinel",
    "--rounds-csv",
    "--configs",
    "--cublas-workspace-mib",
    "--cublas-space-tries",
}
_TILE = re.compile(r"_(\d+)x(\d+)x(\d+)_(\d+)x(\d+)x1_")


def _split(config: str) -> tuple[str, str, int]:
    if config.startswith("cublaslt:"):  # a pinned configuration: raster H, swizzle 1
        return "cublas", "H", 1
    parts = config.split(":")
    raster = parts[1] if len(parts) > 1 else "H"
    swizzle = int(parts[2]) if len(parts) > 2 else 1
    return parts[0], raster, swizzle


def _ms(config: str, m: int, n: int, k: int) -> float:
    name, raster, swizzle = _split(config)
    tile = _TILE.search(name)
    tm, tn = (int(tile.group(1)), int(tile.group(2))) if tile else (128, 128)
    waves = -(-m // tm) * -(-n // tn) / 132
    efficiency = 0.5 + 0.3 * min(1.0, tm * tn / (128 * 256))
    key = config if config.startswith("cublaslt:") else f"{name}{raster}{swizzle}"
    jitter = int(hashlib.sha256(key.encode()).hexdigest()[:4], 16)
    ideal_ms = 2.0 * m * n * k / 800e12 * 1e3
    return ideal_ms / efficiency * (1.0 + 0.05 * (waves % 1)) * (1.0 + jitter / 65536 / 10)


def _row(config: str, shape: tuple[int, int, int], status: str, ms: float | None = None) -> str:
    name, raster, swizzle = _split(config)
    m, n, k = shape
    if ms is None:
        timing = ",,,"
        check = "5.0000e-01,12," if status == "wrong_result" else ",,"
    else:
        tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12
        timing = f"{ms:.6f},{ms * 0.01:.6f},{tflops:.2f},"
        check = "1.6600e-03,0,"
    static = ",,,," if status == "unknown_kernel" else "229760,7,168,0,"
    tail = "1515,690.0" if ms is not None else ","
    return f"{config},{name},{m},{n},{k},{raster},{swizzle},{status},{timing}{check}{static}{tail}"


def _emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _failures() -> list[tuple[str, str]]:
    spec = os.environ.get("FAKE_CUTLASS_FAIL", "")
    pairs = [item.split(":", 1) for item in spec.split(",") if ":" in item]
    return [(status, needle) for status, needle in pairs]


def _die(config: str, shape: tuple[int, int, int]) -> None:
    mode = os.environ.get("FAKE_CUTLASS_CRASH_MODE", "row")
    if mode == "row":
        _emit(_row(config, shape, "crashed"))
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "silent":
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "context":
        _emit(_row(config, shape, "launch_error"))
        sys.exit(3)
    else:
        while True:
            time.sleep(3600)


def main(argv: list[str]) -> int:
    log = os.environ.get("FAKE_CUTLASS_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(argv) + "\n")
    if "--describe" in argv:
        _emit(json.dumps(DESCRIBE))
        return 0
    positional: list[str] = []
    csv_out = "-"
    i = 0
    while i < len(argv):
        if argv[i] in _OPTIONS_WITH_VALUE:
            if argv[i] == "--csv":
                csv_out = argv[i + 1]
            i += 2
            continue
        positional.append(argv[i])
        i += 1
    if len(positional) < 4:
        sys.stderr.write("cutlass_bench: M N K and at least one CONFIG are required\n")
        return 2
    if csv_out != "-":
        sys.stdout = open(csv_out, "w", encoding="utf-8")  # noqa: SIM115
    shape = (int(positional[0]), int(positional[1]), int(positional[2]))
    configs = positional[3:]
    crash_at = os.environ.get("FAKE_CUTLASS_CRASH")
    failures = _failures()
    _emit(COLUMNS)
    passed = []
    for config in configs:
        sys.stderr.write(f"cutlass_bench: running {config}\n")
        if crash_at and crash_at in config:
            _die(config, shape)
        status = next((s for s, needle in failures if needle in config), None)
        if status is not None:
            _emit(_row(config, shape, status))
        else:
            passed.append(config)
    for config in passed:
        _emit(_row(config, shape, "ok", _ms(config, *shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
