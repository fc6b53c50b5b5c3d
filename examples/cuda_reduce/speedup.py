"""Print the winner's speed-up over the library's default, per case, from one profile.

    python examples/cuda_reduce/speedup.py --profile P --space spaces/h200_reduce.json \
        [--timed-in Q] [--json OUT]

The library's default is what the space's header names as each constant's fallback
(`benchspace.harness.variants.default_gain`); both figures come from the same rounds: the
confirmation's where `tune --confirm` ran, else the sweep's (the output says which).
``--timed-in Q``: the winners P picked, and the default, as another independent run Q of the
same space timed them (a held-out figure: Q's rounds did not choose P's winners).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space
from benchspace.harness.variants.default_gain import (
    case_gains,
    gain_lines,
    gains_data,
    held_out_gains,
    library_defaults,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True)
    parser.add_argument("--space", required=True)
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--timed-in", help="another run's profile: time P's winners there")
    args = parser.parse_args(argv)
    try:
        space = load_space(args.space)
        profile = load_profile(args.profile)
        timer = load_profile(args.timed_in) if args.timed_in else None
    except BenchspaceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = []
    for result in profile.results.values():
        defaults = library_defaults(space, result.bench)
        timed_in = None
        if timer is not None and result.bench in timer.results:
            gains = held_out_gains(result, timer.results[result.bench], defaults)
            timed_in = args.timed_in
        else:
            gains = case_gains(result, defaults)
        print("\n".join(gain_lines(result.bench, result.metric, gains, timed_in)))
        out.append(gains_data(result.bench, result.metric, gains))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
