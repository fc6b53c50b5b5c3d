#!/usr/bin/env python3
"""A fake benchmark with known means and deterministic seeded noise (racing, confirmation).

``fake_noisy CASE CONFIG [MORE ...]`` prints a minibench CSV table whose ``Time (µs) / matrix``
is the true mean of (CASE, CONFIG, ...) times a lognormal factor of relative sd ``sd`` (the key
joins the arguments with commas: ``"0,3"``, or ``"0,3,1"`` for three). The means come from
the JSON file ``$FAKE_NOISY_SPEC``: ``{"means": {"CASE,CONFIG": mean, ...}, "sd": 0.02,
"seed": 1}``. The k-th call of a (CASE, CONFIG) draws from ``Random(f"{seed}:{CASE}:{CONFIG}:
{k}")``, k = its calls finished for a live sweep, counted in ``$FAKE_NOISY_STATE``: the same
invocation sequence prints the same values, also across a SIGKILL and resume (a call whose
sweep died meanwhile is not counted). Appends its argv to ``$FAKE_LOG`` when set.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time


def main(argv: list[str]) -> int:
    positional = [a for a in argv if not a.startswith("-")]
    case, config = positional[0], ",".join(positional[1:])
    with open(os.environ["FAKE_NOISY_SPEC"], encoding="utf-8") as fh:
        spec = json.load(fh)
    mean = float(spec["means"][f"{case},{config}"])
    state = os.environ["FAKE_NOISY_STATE"]
    os.makedirs(state, exist_ok=True)
    counter = os.path.join(state, f"{case}_{config.replace(',', '_')}")
    parent = os.getppid()
    k = os.path.getsize(counter) if os.path.exists(counter) else 0
    rng = random.Random(f"{spec.get('seed', 1)}:{case}:{config}:{k}")
    sd = float(spec.get("sd", 0.02))
    value = mean * math.exp(rng.gauss(0.0, sd) - sd * sd / 2)
    sleep = float(os.environ.get("FAKE_SLEEP", "0"))
    if sleep:
        time.sleep(sleep)
    if os.getppid() != parent:
        return 0  # the sweep that asked was killed: nobody reads this sample, it is not drawn
    # One O_APPEND byte per finished call.
    fd = os.open(counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b".")
    os.close(fd)
    log = os.environ.get("FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(argv) + "\n")
    head = "name,arg0,arg1,iterations,avg_ms,stddev_ms,Time (µs) / matrix,Time (µs) / matrix_std"
    row = f'"BM_NOISY<float>",{case},{positional[1]},10,{value / 1000:.9f},0.0,{value:.9f},0.0'
    text = f"{head}\n{row}\n"
    out = next((a.split("=", 1)[1] for a in argv if a.startswith("--csv=")), None)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
