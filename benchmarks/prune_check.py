#!/usr/bin/env python3
"""Benchmark (not a test): does ``sensitivity --write-pruned`` shrink a space and keep its winners?

1. ``benchspace tune`` the full space (default spaces/demo.json) with ``--repeats 5`` (the
   noise floor is two standard errors of a difference of medians: five repeats give a floor
   0.8 times three's, on medians that a single disturbed run does not move);
2. ``benchspace sensitivity --write-pruned --trim per-case`` on that profile (noise measured
   from the repeats; ``--trim global`` keeps a value everywhere unless it never came within
   noise of any case's best);
3. ``benchspace tune`` the pruned space, into a store of its own so that every configuration is
   measured afresh (reusing the first sweep's store would re-measure nothing);
4. compare: invocations per repeat before and after, and per case whether the pruned run's
   winner equals the full run's or is within the bench's noise floor of it. "Within noise"
   judges the gap between the two winners: how much worse the pruned winner measured in the
   full run, and how much better it measured in the pruned run, averaged over the runs that
   measured both configurations.

Prints the figures; exits 1 when a winner is neither equal nor within noise, or when the cut
is below --min-cut percent. A winner that differs only in a pre-tuned parameter is judged on
the pre_tune phases' own tables (each choice's score, the geometric mean over the phase's
cases of value / case best); profiles without those tables count it apart. Build the demo
first:

    cmake -S . -B /tmp/demo-build -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/demo-build -j2
    python benchmarks/prune_check.py --build-dir /tmp/demo-build
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.harness.analysis.sensitivity import analyse_profile  # noqa: E402
from benchspace.harness.cli import main as benchspace  # noqa: E402
from benchspace.harness.plan import count_invocations  # noqa: E402
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, Profile  # noqa: E402
from benchspace.harness.profiles.read import load_profile  # noqa: E402
from benchspace.harness.profiles.scoring import ratio  # noqa: E402
from benchspace.harness.spaces.load import load_space  # noqa: E402
from benchspace.harness.values import same_key  # noqa: E402


def _resolved(entry: MeasurementRow, names: list[str]) -> dict[str, Any]:
    """A configuration's values of `names`: tuned first, then the case's fixed values."""
    return {k: entry.param(k) for k in names}


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return a.keys() == b.keys() and all(same_key(a[k]) == same_key(b[k]) for k in a)


def _lookup(result: BenchResult | None, case: int, want: Mapping[str, Any]) -> float | None:
    for m in result.rows if result is not None else ():
        if m.case_index == case and m.median is not None and _same(_resolved(m, list(want)), want):
            return float(m.median)
    return None


def _phase_score(
    result: BenchResult | None, win: Mapping[str, Any], names: set[str]
) -> float | None:
    """The score a pre_tune phase's table gives the winner's values of `names`."""
    for phase in result.pre_tune if result is not None else ():
        if not names <= set(phase.params):
            continue
        for row in phase.table or ():
            if row.score is not None and all(
                same_key(row.params.get(n)) == same_key(win[n]) for n in names
            ):
                return float(row.score)
    return None


def _show(values: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={json.dumps(v)}" for k, v in sorted(values.items())) or "-"


def _excess(value: float, best: float, direction: str) -> float:
    return 100.0 * (ratio(value, best, direction) - 1.0)


def _verdict(
    full_run: BenchResult,
    pruned_run: BenchResult | None,
    mine: MeasurementRow,
    theirs: MeasurementRow,
    floor: float,
) -> tuple[str, str]:
    """(category, text) for one case: equal, within noise, pre-tune or different."""
    names = sorted(mine.params)
    full_win, pruned_win = _resolved(mine, names), _resolved(theirs, names)
    if _same(full_win, pruned_win):
        return "equal", "equal"
    pre_tuned = set(full_run.pre_tuned)
    differ = {k for k in names if same_key(full_win[k]) != same_key(pruned_win[k])}
    case, direction = mine.case_index, full_run.direction
    # How much worse the pruned winner is than the full winner, as each run measured them
    # (the full run: >= 0; the pruned run: <= 0); their mean pools both runs' samples, so one
    # disturbed run does not decide alone.
    gaps: list[tuple[str, float]] = []
    value = _lookup(full_run, case, pruned_win)
    if value is not None and mine.median is not None:
        gaps.append(("full run", _excess(value, float(mine.median), direction)))
    value = _lookup(pruned_run, case, full_win)
    if value is not None and theirs.median is not None:
        gaps.append(("pruned run", -_excess(value, float(theirs.median), direction)))
    if not gaps and differ <= pre_tuned:
        # The winners differ only in what a pre_tune phase decided: compare the two choices
        # on the phases' own tables (their scores, geometric means over the phase's cases).
        value = _phase_score(full_run, pruned_win, differ)
        mine_score = _phase_score(full_run, full_win, differ)
        if value is not None and mine_score is not None:
            gaps.append(("full run pre_tune", 100.0 * (value / mine_score - 1.0)))
        value = _phase_score(pruned_run, full_win, differ)
        theirs_score = _phase_score(pruned_run, pruned_win, differ)
        if value is not None and theirs_score is not None:
            gaps.append(("pruned run pre_tune", -100.0 * (value / theirs_score - 1.0)))
        if not gaps:
            return "pre-tune", f"pre_tune re-decided {', '.join(sorted(differ))} (no table)"
    if not gaps:
        return "different", "DIFFERENT (not comparable: neither run measured the other's)"
    gap = sum(g for _, g in gaps) / len(gaps)
    shown = ", ".join(f"{where} {g:+.2f} %" for where, g in gaps)
    text = f"(gap {gap:+.2f} % vs floor {floor:.2f} %; {shown})"
    return (
        ("within noise", f"within noise {text}")
        if gap <= floor
        else ("different", f"DIFFERENT {text}")
    )


def compare(
    full: Profile, pruned: Profile, floors: Mapping[str, float]
) -> tuple[list[list[str]], Counter[str]]:
    """Per case rows, and how many cases fell in each category."""
    rows = [["bench", "case", "fixed", "full winner", "pruned winner", "verdict"]]
    counts: Counter[str] = Counter()
    for result in full.results.values():
        other = pruned.results.get(result.bench)
        theirs = {e.case_index: e for e in other.per_case_best} if other is not None else {}
        for mine in result.per_case_best:
            names = sorted(mine.params)
            entry = theirs.get(mine.case_index)
            if entry is None:
                kind, text, shown = "different", "MISSING in the pruned run", "-"
            else:
                kind, text = _verdict(result, other, mine, entry, floors[result.bench])
                shown = _show(_resolved(entry, names))
            counts[kind] += 1
            rows.append([result.bench, str(mine.case_index), _show(mine.fixed),
                         _show(_resolved(mine, names)), shown, text])  # fmt: skip
    return rows, counts


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in rows)  # fmt: skip


def _run(argv: list[str]) -> None:
    print(f"$ benchspace {' '.join(argv)}", flush=True)
    code = benchspace(argv)
    if code != 0:
        raise SystemExit(f"benchspace {argv[0]} exited {code}")


def main() -> int:
    """Run the four steps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--space", type=Path, default=ROOT / "spaces" / "demo.json")
    parser.add_argument("--build-dir", type=Path, default=Path("/tmp/demo-build"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/prune-check"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-cut", type=float, default=40.0, help="percent (default 40)")
    parser.add_argument("--trim", choices=("global", "per-case"), default="per-case")
    parser.add_argument(
        "--reuse", action="store_true", help="keep the profiles of an earlier run; compare only"
    )
    args = parser.parse_args()
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    full, pruned_space, pruned = (
        work / "full.json",
        work / "pruned-space.json",
        work / "pruned.json",
    )
    if not args.reuse:
        for path in work.iterdir():
            if path.name.startswith(("full.", "pruned.", "pruned-space.")):
                path.unlink()
    common = ["--build-dir", str(args.build_dir), "--repeats", str(args.repeats), "--quiet"]
    if not full.exists():
        _run(["tune", "--space", str(args.space), "--out", str(full), *common])
    # The plot needs matplotlib (benchspace[plot]): asked for only when it is there.
    plot = ["--plot", str(work / "sensitivity.png")] if find_spec("matplotlib") else []
    _run(["sensitivity", str(full), "--space", str(args.space), "--write-pruned",
          str(pruned_space), "--trim", args.trim, *plot])  # fmt: skip
    if not pruned.exists():
        _run(["tune", "--space", str(pruned_space), "--out", str(pruned), *common])
    before = count_invocations(load_space(args.space))
    after = count_invocations(load_space(pruned_space))
    cut = 100.0 * (before - after) / before
    full_doc, pruned_doc = load_profile(full), load_profile(pruned)
    report = analyse_profile(full_doc, source=str(full))
    floors = {b.bench: b.noise.pct for b in report.benches}
    rows, counts = compare(full_doc, pruned_doc, floors)
    print()
    print(_table(rows))
    print()
    print(
        f"invocations per repeat: full {before}, pruned {after} ({cut:.1f} % fewer); "
        f"x{args.repeats} repeats: {before * args.repeats} -> {after * args.repeats}"
    )
    print(
        "noise floors (full run, from repeats): "
        + ", ".join(f"{b} {f:.2f} %" for b, f in floors.items())
    )
    cases = sum(counts.values())
    print(
        f"per-case winners: {counts['equal'] + counts['within noise']} of {cases} equal or "
        f"within noise ({counts['equal']} equal, {counts['within noise']} within noise, "
        f"{counts['pre-tune']} re-decided by the unpruned pre_tune phase, "
        f"{counts['different']} different)"
    )
    ok = counts["different"] == 0 and cut >= args.min_cut
    if cut < args.min_cut:
        print(f"cut {cut:.1f} % is below --min-cut {args.min_cut:g} %")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
