"""Print the winner's speed-up over the library's default, per case, from one profile.

    python examples/cuda_reduce/speedup.py --profile P --space spaces/h200_reduce.json \
        [--json OUT]

The library's default is what the space's header names as each constant's fallback
(`benchspace.harness.variants.default_gain`); both figures come from the same rounds: the
confirmation's where `tune --confirm` ran, else the sweep's (the output says which).
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
    library_defaults,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True)
    parser.add_argument("--space", required=True)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        space = load_space(args.space)
        profile = load_profile(args.profile)
    except BenchspaceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = []
    for result in profile.results.values():
        gains = case_gains(result, library_defaults(space, result.bench))
        print("\n".join(gain_lines(result.bench, result.metric, gains)))
        out.append(gains_data(result.bench, result.metric, gains))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
