#!/usr/bin/env python3
"""Report (not a test): what the caps of kept retune profiles could resolve.

For each folder given (``benchmarks/race.py --keep DIR``'s, or any folder of
``retune*.json[.gz]`` profiles), per retune: how many case winners a cap decided with others
left unbeaten, the gap each such cap resolves (harness/sweep/resolution.py: the widest gap to
the winner its last look would have dropped at the noise it measured; least, median, most), and
about how many rounds the race's 1 % margin would take at that noise. A profile written before
the figures existed has them recomputed from the unbeaten rows' samples (their common rounds)
as one look at the end: a little narrower than a race's last look, which shares the error with
the looks before it.

    python benchmarks/cap_resolution.py evaluation/data/demo_retunes/amd_2core_median_gap \\
        evaluation/data/demo_retunes/referee
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.profiles.read import load_profile  # noqa: E402
from benchspace.harness.sweep.decide import RaceRule  # noqa: E402
from benchspace.harness.sweep.resolution import resolution  # noqa: E402


def cap_resolutions(profile: Path) -> list[tuple[float, int]]:
    """(resolves %, rounds for the margin) of every case winner a cap decided with others
    unbeaten (module docstring)."""
    out = []
    for result in load_profile(profile).results.values():
        for best in result.per_case_best:
            v = best.decided
            if v is None or v.decided != "cap" or not v.unbeaten:
                continue
            if v.resolves_pct is not None and v.rounds_for_margin is not None:
                out.append((v.resolves_pct, v.rounds_for_margin))
                continue
            unbeaten = [dict(u) for u in v.unbeaten]
            rows = [r for r in result.rows if r.case_index == best.case_index and r.samples
                    and dict(r.params) in unbeaten]  # fmt: skip
            n = min((len(r.samples or ()) for r in rows), default=0)
            lead = [i for i, r in enumerate(rows) if dict(r.params) == dict(best.params)]
            samples = [list(r.samples or ())[:n] for r in rows]
            res = resolution(samples, range(len(rows)), lead[0] if lead else None,
                             result.direction, RaceRule(), looks=1)  # fmt: skip
            if res is not None and res.rounds_for_margin is not None:
                out.append((res.resolves_pct, res.rounds_for_margin))
    return out


def line(label: str, caps: list[tuple[float, int]]) -> str:
    """One retune's caps as a line."""
    if not caps:
        return f"{label}: no case winner a cap decided with others unbeaten"
    gaps, rounds = sorted(g for g, _ in caps), sorted(r for _, r in caps)
    return (
        f"{label}: caps {len(caps)}; they resolve gaps over {gaps[0]:.1f} / "
        f"{gaps[len(gaps) // 2]:.1f} / {gaps[-1]:.1f} % (least / median / most); 1 % would "
        f"take ~{rounds[0]} to {rounds[-1]} rounds"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="folders of retune profiles")
    args = parser.parse_args()
    for folder in args.folders:
        kept = sorted(folder.glob("retune*.json")) + sorted(folder.glob("retune*.json.gz"))
        if not kept:
            print(f"{folder}: no retune*.json or retune*.json.gz profiles", file=sys.stderr)
            return 1
        print(f"== {folder}")
        for profile in kept:
            print(line(f"  {profile.name.split('.')[0]}", cap_resolutions(profile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
