#!/usr/bin/env python3
"""A fake batched benchmark: ``fake_batch M CONFIG [CONFIG ...]`` prints one CSV row per config.

The value of config ``kX`` is ``M * X``; a config listed in ``FAKE_DIE_ON`` (comma list) kills
the process (SIGSEGV) before its row is printed; one in ``FAKE_BAD`` gets a row with status
``cannot_implement``. Every start appends its argv to ``FAKE_LOG``.
"""

from __future__ import annotations

import json
import os
import signal
import sys


def main(argv: list[str]) -> int:
    log = os.environ.get("FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(argv) + "\n")
    m = int(argv[0])
    die = set(filter(None, os.environ.get("FAKE_DIE_ON", "").split(",")))
    bad = set(filter(None, os.environ.get("FAKE_BAD", "").split(",")))
    print("config,status,ms_mean,ms_stdev", flush=True)
    for config in argv[1:]:
        if config in die:
            os.kill(os.getpid(), signal.SIGSEGV)
        if config in bad:
            print(f"{config},cannot_implement,,", flush=True)
            continue
        print(f"{config},ok,{m * int(config[1:])},0.1", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
