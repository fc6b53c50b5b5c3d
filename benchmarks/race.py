#!/usr/bin/env python3
"""Benchmark (not a test): does ``tune --race`` find ``--repeats 10``'s winners with fewer
invocations, and does ``tune --confirm`` take the winner's curse out of the figures?

1. Synthetic bench (tests/fakes/fake_noisy.py: known means, seeded lognormal noise, --noise 1 %;
   per case a best, a near-tie 0.4 % slower and eight configurations 6-60 % slower),
   then the bundled demo (spaces/demo.json, built into --build-dir as scripts/demo.sh does):
   ``tune --repeats 10`` against ``tune --race --repeats 10``, each into a store of its own;
   per case whether the race's winner is the same, or within the margin of the fixed-repeat
   winner, and the invocations of each. On the synthetic bench the gap is judged on the true
   means. On the demo the true means are unknown, and the fixed-repeat run's medians chose its
   own winner, so they overstate its lead (the winner's curse): where the winners differ, a
   referee run (``tune --repeats 20`` over the two winners alone, in interleaved rounds of
   their own) measures the gap, and the gap read off the fixed-repeat run is printed beside.
   Beside the criterion, its own noise: a second ``--repeats 10`` sweep of the demo judged
   against the first the same way (how often two fixed sweeps disagree beyond the margin).
   Each run's pre_tune phases say how they decided their winner (the demo's sort cutoff): the
   race's phase keeps the checked-in value unless it beats it (harness/sweep/incumbents.py),
   where the fixed sweep, which judges no incumbent, takes the best median.
2. 20 near-ties (means within 0.95 %, a known best, 2 % noise) on 8 cases: ``tune --repeats 3
   --confirm 3 --confirm-rounds 10``: the mean relative error of each case's reported best
   against its true mean, from the selection figures and from the confirmation's.
3. Five retunes of the demo with ``--race --repeats 10 --confirm 3`` (the confirmation's
   first rounds tune's default, the repeats: 10, ``--confirm-rounds N`` to change; raced, so
   undecided cases go on to 3 x that), each into a fresh store; the header each generates;
   how many header values differ from the first's.

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2
    python benchmarks/race.py --build-dir build
    python benchmarks/race.py --build-dir build --only-retunes --retunes 5   # part 3 alone
    python benchmarks/race.py --only-retunes --keep DIR    # part 3, its profiles kept in DIR
    python benchmarks/race.py --only-retunes --confirm-cap 90   # part 3, a longer confirmation
    python benchmarks/race.py --regenerate DIR             # the headers generated again

Exits 1 when a criterion fails (race: <= 40 % of the invocations and every winner equal or
within the margin; confirmation bias <= 1 %; 0 header values differ).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # cap_resolution.py beside this one
FAKE = ROOT / "tests" / "fakes" / "fake_noisy.py"
RUN = re.compile(r"(\d+) invocations run, (\d+) from the store")
MARGIN = 1.0


def cli(*args: str, env: Mapping[str, str] | None = None) -> str:
    """Run ``benchspace ARGS``; its stdout (exit status 0 required)."""
    argv = [sys.executable, "-m", "benchspace.harness.cli", *args]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        argv, env={**os.environ, "PYTHONPATH": path, **(env or {})},
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"benchspace {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def tune(space: Path, build: Path, out: Path, *flags: str, env: Mapping[str, str]) -> int:
    """Tune into a fresh store; the invocations it ran."""
    text = cli("tune", "--space", str(space), "--build-dir", str(build), "--out", str(out),
               "--quiet", "--allow-failures", *flags, env=env)  # fmt: skip
    match = RUN.search(text)
    assert match is not None, text
    return int(match.group(1))


def winners(profile: Path) -> dict[tuple[str, int], tuple[dict[str, Any], float, dict[str, Any]]]:
    """(bench, case) -> (winner's params, its median, its decided record)."""
    data = json.loads(profile.read_text())
    out = {}
    for r in data["results"]:
        for b in r["per_case_best"]:
            out[r["bench"], b["case_index"]] = (b["params"], b["median"], b.get("decided") or {})
    return out


def medians(profile: Path) -> dict[tuple[str, int, str], float]:
    """(bench, case, params as JSON) -> median, every row."""
    data = json.loads(profile.read_text())
    return {
        (r["bench"], m["case_index"], json.dumps(m["params"], sort_keys=True)): m["median"]
        for r in data["results"]
        for m in r["measurements"]
    }


def directions(profile: Path) -> dict[str, str]:
    return {r["bench"]: r["direction"] for r in json.loads(profile.read_text())["results"]}


REFEREE_ROUNDS = 20


def referee_space(
    data: dict[str, Any], key: tuple[str, int], pair: tuple[dict[str, Any], ...]
) -> dict[str, Any]:
    """The space that times two configurations of one case alone: the case's bench with that
    case only, the parameters they share fixed, the others a grid of their two values."""
    bench, case = key
    spec = next(b for b in data["spaces"] if b["bench"] == bench)
    first, second = pair
    names = [*dict.fromkeys([*first, *second])]
    same = {n: first[n] for n in names if first.get(n) == second.get(n)}
    differ = {n: [first[n], second[n]] for n in names if n not in same}
    narrowed = {k: v for k, v in spec.items() if k not in ("pre_tune", "consumers", "cases")}
    narrowed["cases"] = [{"fixed": {**spec["cases"][case]["fixed"], **same}, "tune": differ}]
    # the header's constants name the other benches: the referee generates nothing
    kept = {k: v for k, v in data.items() if k != "header"}
    return {**kept, "spaces": [narrowed]}


def referee(
    space: Path,
    build: Path,
    work: Path,
    key: tuple[str, int],
    pair: tuple[dict[str, Any], ...],
    tag: str = "",
) -> float:
    """The relative gap (positive: the second configuration is worse) between two
    configurations of one case, measured by ``tune --repeats REFEREE_ROUNDS`` over those two
    alone, in rounds of their own: measurements that chose neither (`tag` keeps a second
    referee of the same case apart: its own space, profile and store)."""
    bench, case = key
    ref_space = work / f"referee{tag}-{bench}-{case}.json"
    ref_space.write_text(json.dumps(referee_space(json.loads(space.read_text()), key, pair)))
    out = work / f"referee{tag}-{bench}-{case}-profile.json"
    tune(ref_space, build, out, "--repeats", str(REFEREE_ROUNDS), env={})
    # the referee's rows name only the parameters the two differ in (the rest are fixed)
    rows = [(json.loads(p), m) for (_, _, p), m in medians(out).items()]
    a, b = (next(m for d, m in rows if all(c.get(n) == v for n, v in d.items())) for c in pair)
    return (a / b - 1) if directions(out)[bench] == "max" else (b / a - 1)


def compare_race(
    label: str, space: Path, build: Path, work: Path, env: Mapping[str, str], truth: Any = None
) -> bool:
    """Part 1 on one space: prints per case and the totals; True when it meets the bar."""
    fixed_p, race_p = work / f"{label}-fixed.json", work / f"{label}-race.json"
    n_fixed = tune(space, build, fixed_p, "--repeats", "10", env=env)
    n_race = tune(space, build, race_p, "--repeats", "10", "--race", "--margin", str(MARGIN),
                  env=env)  # fmt: skip
    fixed, raced = winners(fixed_p), winners(race_p)
    table, dirs = medians(fixed_p), directions(fixed_p)
    ok = True
    print(f"\n== {label}: --repeats 10 vs --race --repeats 10 --margin {MARGIN:g}")
    judge = "true means" if truth is not None else f"referee, {REFEREE_ROUNDS} rounds"
    print(f"{'case':<12}{'fixed winner':<28}{'race winner':<28}{'gap % (fixed run)':>18}"
          f"{f'gap % ({judge})':>28}  decided (n)")  # fmt: skip
    for key in sorted(fixed):
        fp, fm, _ = fixed[key]
        rp, _, rd = raced.get(key, ({}, 0.0, {}))
        rm = table.get((key[0], key[1], json.dumps(rp, sort_keys=True)), float("nan"))
        seen = (fm / rm - 1) if dirs[key[0]] == "max" else (rm / fm - 1)
        if rp == fp:
            worse = 0.0
        elif truth is not None:
            worse = truth(key[1], rp) / truth(key[1], fp) - 1
        else:
            worse = referee(space, build, work, key, (fp, rp))
        same = rp == fp or worse * 100 <= MARGIN
        ok &= same
        cells = (f"{seen * 100:+.2f}", f"{worse * 100:+.2f}") if rp != fp else ("same", "same")
        print(f"{key[0] + ' ' + str(key[1]):<12}{_params(fp):<28}{_params(rp):<28}"
              f"{cells[0]:>18}{cells[1]:>28}  "
              f"{rd.get('decided')} ({rd.get('samples')}){_resolves(rd)}")  # fmt: skip
    for name, profile in (("fixed", fixed_p), ("race", race_p)):
        for text in phase_lines(profile):  # the values a pre_tune phase fixed for every case
            print(f"  {name}: {text}")
    if truth is None:
        _fixed_again(label, space, build, work, env, fixed)
    share = n_race / n_fixed
    same_ok = ok
    ok &= share <= 0.40
    counts = {k: sum(1 for v in raced.values() if v[2].get("decided") == k)
              for k in ("separated", "tie", "cap")}  # fmt: skip
    SUMMARY.append((label, n_fixed, n_race, same_ok, counts, _load()))
    print(f"{label}: invocations --repeats 10 {n_fixed}, --race {n_race} ({share:.0%}); "
          f"winners equal or within {MARGIN:g} %: {'yes' if same_ok else 'NO'}")  # fmt: skip
    return ok


def _resolves(decided: Mapping[str, Any]) -> str:
    """What a cap could resolve (harness/sweep/resolution.py), when the profile says."""
    if decided.get("resolves_pct") is None:
        return ""
    needs = decided.get("rounds_for_margin")
    tail = "" if needs is None else f", {MARGIN:g} % needs ~{needs}"
    read = decided.get("read_pct")
    gap = "" if read is None else f" (read {read:.1f} %)"
    return f" resolves {decided['resolves_pct']:.1f} %{gap}{tail}"


def _params(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={json.dumps(v)}" for k, v in params.items())


def _fixed_again(
    label: str,
    space: Path,
    build: Path,
    work: Path,
    env: Mapping[str, str],
    fixed: dict[tuple[str, int], tuple[dict[str, Any], float, dict[str, Any]]],
) -> None:
    """The criterion's own noise, beside it: a second ``--repeats 10`` sweep judged against the
    first the way the race is (a referee where the winners differ). Where two fixed sweeps
    disagree beyond the margin, a near-tie is closer than ten rounds can settle; the line is
    context, not a criterion."""
    again_p = work / f"{label}-fixed-again.json"
    tune(space, build, again_p, "--repeats", "10", env=env)
    again = winners(again_p)
    differ = [(k, fixed[k][0], again[k][0]) for k in sorted(fixed) if again[k][0] != fixed[k][0]]
    beyond = []
    for key, fp, ap in differ:
        worse = referee(space, build, work, key, (fp, ap), tag="-again")
        print(
            f"  second --repeats 10: {key[0]} {key[1]} picked {_params(ap)} where the first "
            f"picked {_params(fp)}: {worse * 100:+.2f} % (referee, {REFEREE_ROUNDS} rounds)"
        )
        if worse * 100 > MARGIN:
            beyond.append(key)
    print(f"{label}: a second --repeats 10 sweep against the first (the criterion's noise, not "
          f"a criterion): winners differ on {len(differ)} of {len(fixed)} cases, beyond "
          f"{MARGIN:g} % on {len(beyond)}")  # fmt: skip


SUMMARY: list[tuple[str, int, int, bool, dict[str, int], str]] = []


def _load() -> str:
    """The machine's load averages (1, 5, 15 min) while the part ran (timing is noisy under
    load: the figures are to be read beside it)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def summary() -> None:
    """The race parts side by side: one row per bench."""
    print(f"\n== --race against --repeats 10, side by side (margin {MARGIN:g} %)")
    print(f"{'bench':<11}{'--repeats 10':>13}{'--race':>8}{'share':>7}  {'winners':<9}"
          f"{'separated/tie/cap':<19}load 1/5/15 min")  # fmt: skip
    for label, n_fixed, n_race, same, counts, load in SUMMARY:
        cells = "/".join(str(counts[k]) for k in ("separated", "tie", "cap"))
        print(f"{label:<11}{n_fixed:>13}{n_race:>8}{n_race / n_fixed:>7.0%}  "
              f"{'same' if same else 'DIFFER':<9}{cells:<19}{load}")  # fmt: skip


def synthetic(
    work: Path, means: dict[str, float], cases: int, configs: int, sd: float
) -> tuple[Path, Path, dict[str, str]]:
    build = work / "synthetic-build"
    exe = build / "benchmarks" / "noisy"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(0o755)
    spec = work / f"spec-{cases}x{configs}.json"
    spec.write_text(json.dumps({"means": means, "sd": sd, "seed": 7}))
    space = work / f"space-{cases}x{configs}.json"
    space.write_text(json.dumps({"spaces": [{
        "bench": "noisy", "exe": "noisy", "metric": "Time (µs) / matrix", "arg_spec": ["c", "k"],
        "cases": [{"fixed": {"c": c}, "tune": {"k": list(range(configs))}} for c in range(cases)],
    }]}))  # fmt: skip
    env = {"FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(work / f"state-{cases}")}
    return space, build, env


def bias_check(work: Path) -> bool:
    """Part 2: 20 near-ties, the best known; selection vs confirmation bias."""
    cases, configs = 8, 20
    means = {f"{c},{k}": 100.0 * (c + 1) * (1 + 0.0005 * k) for c in range(cases)
             for k in range(configs)}  # fmt: skip
    space, build, env = synthetic(work, means, cases, configs, 0.02)
    out = work / "ties.json"
    tune(space, build, out, "--repeats", "3", "--confirm", "3", "--confirm-rounds", "10", env=env)
    data = json.loads(out.read_text())["results"][0]
    sel, conf = [], []
    for b in data["per_case_best"]:
        truth = means[f"{b['case_index']},{b['params']['k']}"]
        conf.append(b["median"] / truth - 1)
    rows = [m for m in data["measurements"] if m.get("selection")]
    for c in range(cases):  # the selection's best of the case, and its true mean
        mine = [m for m in rows if m["case_index"] == c]
        pick = min(mine, key=lambda m: m["selection"]["median"])
        sel.append(pick["selection"]["median"] / means[f"{c},{pick['params']['k']}"] - 1)
    s_bias, c_bias = sum(sel) / len(sel), sum(conf) / len(conf)
    print(f"\n== 20 near-ties (means within 0.95 %, noise 2 %), {cases} cases, --repeats 3 "
          "--confirm 3 --confirm-rounds 10")  # fmt: skip
    print(f"bias of the reported best vs its true mean: selection {s_bias * 100:+.2f} %, "
          f"confirmation {c_bias * 100:+.2f} %")  # fmt: skip
    return bool(abs(c_bias) <= 0.01)


def header_values(header: Path, space: Path) -> dict[str, Any]:
    from benchspace.generators.header_io import read_header
    from benchspace.generators.header_model import incumbents_from_header
    from benchspace.harness.spaces.load import load_space

    parsed = read_header(header)
    assert parsed is not None
    loaded = load_space(space)
    return {f"{c}[{b}]": v for c, bs in incumbents_from_header(loaded, parsed).items()
            for b, v in bs.items()}  # fmt: skip


def retunes(
    build: Path,
    work: Path,
    count: int,
    rounds: int | None = None,
    keep: Path | None = None,
    cap: int | None = None,
) -> bool:
    """Part 3: the demo retuned `count` times with --race --confirm 3 (the confirmation's
    rounds tune's default, the repeats, unless `rounds`; its cap tune's default, 3 x the
    rounds, unless `cap`); with `keep`, the profiles are copied there (``--regenerate`` reads
    them again)."""
    space = ROOT / "spaces" / "demo.json"
    profiles, runs = [], []
    extra = () if rounds is None else ("--confirm-rounds", str(rounds))
    extra += () if cap is None else ("--confirm-cap", str(cap))
    flags = ("--race", "--repeats", "10", "--confirm", "3", *extra)
    for i in range(count):
        out = work / f"retune{i}.json"
        runs.append(tune(space, build, out, *flags, env={}))
        profiles.append(out)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / out.name).write_bytes(out.read_bytes())
    print(f"\n== {count} retunes of the demo with {' '.join(flags)} (invocations {runs})")
    return headers_differ(profiles, work)


def headers_differ(profiles: list[Path], work: Path) -> bool:
    """Generate a header from each profile (the checked-in header's incumbents); print how
    many values differ from the first's in some later retune (and how many of the later
    retunes' values do); True when none does."""
    space = ROOT / "spaces" / "demo.json"
    headers = []
    for i, profile in enumerate(profiles):
        header = work / f"generated{i}.hh"
        cli("generate", "--profile", str(profile), "--space", str(space), "--out", str(header))
        headers.append(header_values(header, space))
    moved = [k for k in headers[0] if any(h.get(k) != headers[0][k] for h in headers[1:])]
    pairs = sum(1 for h in headers[1:] for k in headers[0] if h.get(k) != headers[0][k])
    later = len(headers[0]) * (len(headers) - 1)
    print(f"header values: {len(headers[0])}; differing from the first retune's in some "
          f"retune: {len(moved)} ({pairs} of the later retunes' {later} values) "
          f"(load {_load()})")  # fmt: skip
    for key in headers[0]:
        seen = [h.get(key) for h in headers]
        if len(set(map(repr, seen))) > 1:
            print(f"  {key}: {seen}")
    from cap_resolution import cap_resolutions, line  # benchmarks/cap_resolution.py

    for i, profile in enumerate(profiles):
        print(line(f"  retune {i}", cap_resolutions(profile)))
    for i, profile in enumerate(profiles):  # the header values a pre_tune phase decides
        for text in phase_lines(profile):
            print(f"  retune {i}: {text}")
    return not moved


def phase_lines(profile: Path) -> list[str]:
    """How each pre_tune phase of the profile decided its winner (review's lines)."""
    from benchspace.harness.profiles.decided_format import phase_line
    from benchspace.harness.profiles.read import load_profile

    lines = []
    for result in load_profile(profile).results.values():
        lines += [t for p in result.pre_tune if (t := phase_line(result.bench, p)) is not None]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", type=Path, default=ROOT / "build")
    parser.add_argument("--retunes", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="copy the retunes' profiles into this folder")
    parser.add_argument(
        "--regenerate",
        type=Path,
        metavar="DIR",
        help="only generate headers again from the retune*.json profiles --keep left in DIR",
    )
    parser.add_argument(
        "--confirm-rounds", type=int, help="the retunes' confirmation rounds (default: tune's)"
    )
    parser.add_argument(
        "--confirm-cap", type=int, help="the retunes' confirmation cap (default: tune's)"
    )
    parser.add_argument("--skip-demo", action="store_true", help="synthetic parts only")
    parser.add_argument("--noise", type=float, default=0.01, help="synthetic race bench's noise")
    parser.add_argument("--skip-bias", action="store_true", help="no near-tie confirmation part")
    parser.add_argument(
        "--only-retunes", action="store_true", help="part 3 alone: the --retunes of the demo"
    )
    args = parser.parse_args()
    if args.regenerate is not None:
        kept = sorted(args.regenerate.glob("retune*.json"))
        if not kept:
            raise SystemExit(f"{args.regenerate}: no retune*.json profiles; run --keep first")
        with tempfile.TemporaryDirectory(prefix="race-bench-") as tmp:
            print(f"== headers generated again from {len(kept)} kept retune profiles")
            ok = headers_differ(kept, Path(tmp))
        print("\nall criteria met" if ok else "\nSOME CRITERIA FAILED")
        return 0 if ok else 1
    if args.only_retunes:
        with tempfile.TemporaryDirectory(prefix="race-bench-") as tmp:
            ok = retunes(
                args.build_dir, Path(tmp), args.retunes, args.confirm_rounds, args.keep,
                args.confirm_cap,
            )  # fmt: skip
        print("\nall criteria met" if ok else "\nSOME CRITERIA FAILED")
        return 0 if ok else 1
    ok = True
    with tempfile.TemporaryDirectory(prefix="race-bench-") as tmp:
        work = Path(tmp)
        cases, configs = 4, 10
        means = {}
        # A tuning grid as sweeps see it: per case a best (k = case), one near-tie 0.4 %
        # slower (k = case + 1), the rest 6 % to 60 % slower; noise --noise.
        gaps = [0.0, 0.004, 0.06, 0.12, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6]
        for c in range(cases):
            for k in range(configs):
                means[f"{c},{k}"] = 50.0 * (c + 1) * (1 + gaps[(k - c) % configs])
        space, build, env = synthetic(work, means, cases, configs, args.noise)

        def truth(case: int, params: Mapping[str, Any]) -> float:
            return means[f"{case},{params['k']}"]

        print(f"synthetic race bench: noise {args.noise:.1%}; load {_load()}", flush=True)
        ok &= compare_race("synthetic", space, build, work, env, truth)
        if not args.skip_bias:
            ok &= bias_check(work)
        if not args.skip_demo:
            demo = ROOT / "spaces" / "demo.json"
            ok &= compare_race("demo", demo, args.build_dir, work, {})
        summary()
        if not args.skip_demo and args.retunes > 0:
            ok &= retunes(
                args.build_dir, work, args.retunes, args.confirm_rounds, args.keep,
                args.confirm_cap,
            )  # fmt: skip
    print("\nall criteria met" if ok else "\nSOME CRITERIA FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
