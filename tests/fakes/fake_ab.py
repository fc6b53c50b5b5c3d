#!/usr/bin/env python3
"""A fake benchmark for A/B runs: a metric with seeded noise and an effect chosen by env.

Prints a CSV table on stdout (``name,time_ms``, one row ``BM_AB``). The value is
``FAKE_AB_BASE`` (default 100, times the first positional integer / 100 when one is given)
times ``FAKE_AB_FACTOR`` (default 1) times a cost read from the variable named by
``FAKE_AB_WATCH``: ``FAKE_AB_COSTS="16:1.0,48:1.1,128/48:0.9"`` maps its value (optionally
per first positional argument, ``N/VALUE``) to a factor; an unset variable reads as ``-``, an
unlisted value as 1. Noise is Gaussian with relative sd ``FAKE_AB_NOISE`` (default 0.02),
drawn from ``FAKE_AB_SEED`` and an invocation counter kept in the file ``FAKE_AB_STATE``
(without it every run draws the same number), so a sequence of runs is deterministic per
seed. Appends ``{"argv": ..., "env": {TEST_*, FAKE_AB_*}}`` to ``FAKE_AB_LOG`` when set.
``FAKE_AB_FAIL_WHEN=VAR=VALUE`` exits 3 when that variable has that value.
"""

import json
import os
import random
import sys


def _counter(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            count = int(fh.read().strip() or 0)
    except FileNotFoundError:
        count = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(str(count + 1))
    return count


def _cost(n: str | None) -> float:
    watch = os.environ.get("FAKE_AB_WATCH")
    if not watch:
        return 1.0
    value = os.environ.get(watch, "-")
    costs: dict[str, float] = {}
    for item in os.environ.get("FAKE_AB_COSTS", "").split(","):
        key, _, factor = item.strip().rpartition(":")
        if key:
            costs[key] = float(factor)
    if n is not None and f"{n}/{value}" in costs:
        return costs[f"{n}/{value}"]
    return costs.get(value, 1.0)


def main(argv: list[str]) -> int:
    env = os.environ
    log = env.get("FAKE_AB_LOG")
    if log:
        seen = {k: v for k, v in env.items() if k.startswith(("TEST_", "FAKE_AB_"))}
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"argv": argv, "env": seen}) + "\n")
    fail = env.get("FAKE_AB_FAIL_WHEN", "")
    if fail:
        var, _, refused = fail.partition("=")
        if env.get(var) == refused:
            sys.stderr.write(f"fake_ab: refusing {var}={refused}\n")
            return 3
    positional = [a for a in argv if not a.startswith("-")]
    n = positional[0] if positional else None
    base = float(env.get("FAKE_AB_BASE", "100"))
    if n is not None:
        base *= int(n) / 100.0
    state = env.get("FAKE_AB_STATE")
    count = _counter(state) if state else 0
    rng = random.Random(f"{env.get('FAKE_AB_SEED', '0')}:{count}")
    noise = float(env.get("FAKE_AB_NOISE", "0.02"))
    value = base * float(env.get("FAKE_AB_FACTOR", "1")) * _cost(n) * (1 + noise * rng.gauss())
    sys.stdout.write(f"name,time_ms\nBM_AB,{value:.6f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
