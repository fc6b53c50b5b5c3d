#!/usr/bin/env python3
"""Benchmark (not a test): replay ``tune --race`` on the samples of a fixed-repeat sweep.

A store written by ``tune --repeats N`` holds every configuration's N interleaved rounds. This
runs the race's own loop (``harness/sweep/race.py``: the same looks, drops and stops) with a
measurement that answers each (configuration, round) from the store instead of running the
benchmark, and prints per bench and phase the invocations the race would have made beside the
fixed sweep's, each case's verdict, and whether its winner is the fixed sweep's (else how far
behind it reads on the fixed sweep's own medians, which chose that winner and so overstate
the gap); for a ``cap``, what it resolves and the widest gap an unbeaten configuration read
(harness/sweep/resolution.py). A live race differs in one way: its rounds measure only the
survivors, so what a round shares (the machine's load) is not the fixed sweep's; the decisions
are otherwise the ones ``tune --race`` takes on these samples.

    benchspace tune --space spaces/demo.json --build-dir build --repeats 10 \\
        --store /tmp/fixed.sqlite --out /tmp/fixed.json
    python benchmarks/race_replay.py /tmp/fixed.sqlite --space spaces/demo.json \\
        [--min-repeats 2] [--margin 1.0] [--confidence 0.95]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.measurement import Measurement, Status  # noqa: E402
from benchspace.harness.plan import Config, Task, make_config  # noqa: E402
from benchspace.harness.spaces.load import load_space  # noqa: E402
from benchspace.harness.sweep.decide import RaceRule  # noqa: E402
from benchspace.harness.sweep.race import race_tasks  # noqa: E402

Recorded = dict[tuple[int, Config], dict[int, float]]


def read_store(path: Path) -> dict[tuple[str, str], Recorded]:
    """Per (bench, phase): each (case, configuration)'s ok values by round."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT bench, phase, case_index, params, repeat, value FROM attempts "
        "WHERE status = 'ok' AND value IS NOT NULL ORDER BY id"
    ).fetchall()
    db.close()
    out: dict[tuple[str, str], Recorded] = {}
    for bench, phase, case, params, repeat, value in rows:
        config = make_config(json.loads(params))
        out.setdefault((bench, phase), {}).setdefault((case, config), {})[repeat] = value
    return out


def replay(
    recorded: Recorded, bench: str, phase: str, direction: str, rule: RaceRule
) -> tuple[int, int, list[str], list[bool]]:
    """The race on these samples: its invocations, the fixed sweep's, lines to print, and per
    ``cap`` that left others unbeaten whether an unbeaten one read a gap wider than what the cap
    is said to resolve (harness/sweep/resolution.py; never, when the figure is right)."""
    tasks = [Task(bench=bench, case_index=c, phase=phase, config=k) for c, k in recorded]
    asked = 0
    wider: list[bool] = []

    def measure(jobs: Sequence[tuple[Task, int]]) -> list[Measurement]:
        nonlocal asked
        asked += len(jobs)
        made = []
        for task, repeat in jobs:
            value = recorded[task.case_index, task.config].get(repeat)
            status: Status = "ok" if value is not None else "missing"
            made.append(
                Measurement(
                    bench=bench,
                    case_index=task.case_index,
                    phase=phase,
                    params=dict(task.config),
                    argv=(),
                    env={},
                    exe_sha256="",
                    status=status,
                    value=value,
                    repeat=repeat,
                )
            )
        return made

    _, decisions = race_tasks(tasks, measure, direction, rule)
    fixed = sum(len(v) for v in recorded.values())
    share = asked / fixed if fixed else 0.0
    lines = [f"{bench} {phase}: race {asked} of {fixed} invocations ({share:.0%})"]
    sign = -1.0 if direction == "max" else 1.0
    for case, decision in sorted(decisions.items()):
        medians = {
            k: statistics.median(v.values()) for (c, k), v in recorded.items() if c == case and v
        }
        best = min(medians, key=lambda k: sign * medians[k])
        won = decision.winner
        if won is None or won not in medians:
            verdict = "no winner"
        elif won == best:
            verdict = "the fixed sweep's winner"
        else:
            gap = 100.0 * sign * (medians[won] - medians[best]) / abs(medians[best])
            verdict = f"{_name(won)}, {gap:+.2f} % behind {_name(best)} on the fixed medians"
        res = decision.resolution
        gaps = (
            ""
            if res is None
            else f" (resolves {res.resolves_pct:.1f} %, read {res.read_pct:.1f} %)"
        )
        lines.append(
            f"  case {case}: {decision.decided} after {decision.rounds} rounds, "
            f"{decision.samples} samples{gaps}: {verdict}"
        )
        if res is not None:
            wider.append(res.read_pct > res.resolves_pct)
    return asked, fixed, lines, wider


def _name(config: Config) -> str:
    return ",".join(f"{k}={v}" for k, v in config)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--space", type=Path, required=True)
    parser.add_argument("--min-repeats", type=int, default=RaceRule().min_repeats)
    parser.add_argument("--margin", type=float, default=RaceRule().margin_pct)
    parser.add_argument("--confidence", type=float, default=RaceRule().confidence)
    args = parser.parse_args()
    space = load_space(args.space)
    directions = {b.name: b.direction for b in space.benches}
    recorded = read_store(args.store)
    total = asked = 0
    wider: list[bool] = []
    for (bench, phase), samples in recorded.items():
        cap = max(max(v) + 1 for v in samples.values())
        rule = RaceRule(
            min_repeats=args.min_repeats, cap=cap, margin_pct=args.margin,
            confidence=args.confidence,
        )  # fmt: skip
        done, of, lines, caps = replay(samples, bench, phase, directions[bench], rule)
        print("\n".join(lines))
        wider += caps
        asked, total = asked + done, total + of
    print(f"all: race {asked} of {total} invocations ({asked / total:.0%})")
    print(f"caps with others unbeaten: {len(wider)}; reading a gap wider than they resolve: "
          f"{sum(wider)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
