"""Profile: the per-bench results of a sweep, computed from its measurements (pure), and IO.

Cross-case scores are normalised per case: a configuration's score is the geometric mean over
cases of its value's ratio to that case's best (lower is better whatever the direction), so a
large size cannot drown a small one, and only combos measured in every case are compared.
"""

from __future__ import annotations

import heapq
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ProfileError
from harness.jsonio import write_json_atomic
from harness.measurement import Measurement, Summary
from harness.plan import Config, MainPlan, ParamValue, make_config
from harness.space import Bench

PROFILE_FORMAT = "benchspace-profile"
PROFILE_VERSION = 1


@dataclass(frozen=True, kw_only=True)
class Aggregate:
    """The repeats of one (case, configuration)."""

    case_index: int
    config: Config
    summary: Summary | None
    samples: tuple[float, ...]
    spread: float | None
    argv: tuple[str, ...]
    env: Mapping[str, str | None]
    failures: tuple[Measurement, ...]

    @property
    def ok(self) -> bool:
        """Whether at least one repeat produced a value."""
        return self.summary is not None


def aggregate(measurements: Sequence[Measurement]) -> dict[tuple[int, Config], Aggregate]:
    """Group attempts by (case, configuration) and summarise their samples."""
    groups: dict[tuple[int, Config], list[Measurement]] = defaultdict(list)
    for m in measurements:
        groups[(m.case_index, make_config(m.params))].append(m)
    out: dict[tuple[int, Config], Aggregate] = {}
    for key, items in groups.items():
        if len(items) > 1:
            items.sort(key=lambda m: m.repeat)
        samples = [m.value for m in items if m.ok and m.value is not None]
        spreads = [m.spread for m in items if m.ok and m.spread is not None]
        first = items[0]
        out[key] = Aggregate(
            case_index=key[0],
            config=key[1],
            summary=Summary.of(samples) if samples else None,
            samples=tuple(samples),
            spread=(sum(spreads) / len(spreads)) if spreads else None,
            argv=first.argv,
            env=dict(first.env),
            failures=tuple(m for m in items if not m.ok),
        )
    return out


def ratio(value: float, best: float, direction: str) -> float:
    """How many times worse than the best a value is (1.0 = best), whatever the direction."""
    if direction == "max":
        return best / value if value > 0 else math.inf
    return value / best if best > 0 else (1.0 if value == best else math.inf)


def geomean(values: Sequence[float]) -> float:
    """Geometric mean of positive values (inf if any is inf)."""
    if any(math.isinf(v) for v in values):
        return math.inf
    return math.exp(sum(math.log(v) for v in values) / len(values))


def better(a: float, b: float, direction: str) -> bool:
    """Whether metric value ``a`` beats ``b``."""
    return a > b if direction == "max" else a < b


def in_order(aggs: Mapping[tuple[int, Config], Aggregate]) -> list[Aggregate]:
    """Aggregates by case, then configuration (its text: values of mixed types compare)."""
    keyed = [((agg.case_index, repr(agg.config)), agg) for agg in aggs.values()]
    keyed.sort(key=lambda pair: pair[0])
    return [agg for _, agg in keyed]


def case_bests(ordered: Sequence[Aggregate], direction: str) -> dict[int, Aggregate]:
    """Per case, the configuration with the best median (the first in ``ordered`` on ties)."""
    best: dict[int, Aggregate] = {}
    for agg in ordered:
        if agg.summary is None:
            continue
        current = best.get(agg.case_index)
        if current is None or (
            current.summary is not None
            and better(agg.summary.median, current.summary.median, direction)
        ):
            best[agg.case_index] = agg
    return best


def score_configs(
    per_case: Mapping[int, Mapping[Config, float]],
    cases: Sequence[int],
    direction: str,
) -> dict[Config, float]:
    """Geomean ratio-to-case-best for combos measured (ok) in every case, keyed by combo.

    ``per_case[case][combo]`` is the combo's median value in that case.
    """
    best = {
        c: (max if direction == "max" else min)(per_case[c].values())
        for c in cases
        if per_case.get(c)
    }
    if len(best) < len(cases):
        return {}
    combos = set.intersection(*(set(per_case[c]) for c in cases)) if cases else set()
    return {
        combo: geomean([ratio(per_case[c][combo], best[c], direction) for c in cases])
        for combo in combos
    }


def _jsonable(config: Config) -> dict[str, ParamValue]:
    return dict(config)


def _agg_entry(bench: Bench, agg: Aggregate) -> dict[str, Any]:
    summary = agg.summary
    entry: dict[str, Any] = {
        "case_index": agg.case_index,
        "fixed": dict(bench.cases[agg.case_index].fixed),
        "params": _jsonable(agg.config),
        "args": list(agg.argv[1:]),
        "env": dict(agg.env),
        "samples": list(agg.samples),
        "spread": agg.spread,
    }
    if summary is not None:
        entry["value"] = entry["median"] = summary.median
        entry["mean"] = summary.mean
        entry["stdev"] = summary.stdev
        entry["n"] = summary.n
    return entry


def _failure_entry(m: Measurement) -> dict[str, Any]:
    return {
        "case_index": m.case_index,
        "phase": m.phase,
        "params": dict(m.params),
        "status": m.status,
        "argv": list(m.argv),
        "env": dict(m.env),
        "error": m.error,
        "stderr_tail": m.stderr_tail[-500:],
        "repeat": m.repeat,
    }


def bench_result(
    bench: Bench,
    *,
    plan: MainPlan | None,
    measurements: Sequence[Measurement],
    pre_tune: Sequence[Mapping[str, Any]],
    topk: int,
    exe_sha256: str = "",
) -> dict[str, Any]:
    """The profile entry of one bench (BatchLAS's keys plus spread, coverage and failures)."""
    main = [m for m in measurements if m.phase == "main"]
    aggs = aggregate(main)
    ordered = in_order(aggs)
    failures = [_failure_entry(m) for m in measurements if not m.ok]
    result: dict[str, Any] = {
        "bench": bench.name,
        "exe": bench.exe,
        "exe_sha256": exe_sha256,
        "metric": bench.metric,
        "direction": bench.direction,
        "arg_spec": [item.text for item in bench.arg_spec],
        "env_spec": dict(bench.env),
        "report_only": bench.report_only,
        "pre_tune": list(pre_tune),
        "failures": failures,
        "best": None,
        "top": [],
        "per_case_best": [],
        "measurements": [_agg_entry(bench, a) for a in ordered],
        "coverage": {"complete": False, "combos": 0, "combos_covering_all_cases": 0, "note": ""},
    }
    bests = case_bests(ordered, bench.direction)
    result["per_case_best"] = [_agg_entry(bench, bests[c]) for c in sorted(bests)]
    if plan is None:
        result["coverage"]["note"] = "not swept"
        return result
    cases = [case.index for case in bench.cases]
    covering = plan.covering(len(cases))
    per_case: dict[int, dict[Config, float]] = defaultdict(dict)
    for combo in covering:
        for case in bench.cases:
            agg = aggs.get((case.index, plan.case_config(combo, case)))
            if agg is not None and agg.summary is not None:
                per_case[case.index][combo] = agg.summary.median
    scores = score_configs(per_case, cases, bench.direction)
    ranked = _top(scores, topk)
    top = []
    for combo, score in ranked[:topk]:
        top.append(
            {
                "params": {**_jsonable(combo), **dict(plan.resolved)},
                "score": score,
                "cases": [
                    {
                        k: v
                        for k, v in _agg_entry(
                            bench, aggs[(c.index, plan.case_config(combo, c))]
                        ).items()
                        if k in ("case_index", "fixed", "args", "env", "value")
                    }
                    for c in bench.cases
                ],
            }
        )
    result["top"] = top
    result["best"] = top[0] if top else None
    note = ""
    if not covering:
        note = (
            "no combination of the union grid is legal for every case; cross-case best is "
            "undefined, read per_case_best"
        )
    elif not scores:
        note = "no combination legal for every case was measured successfully in every case"
    result["coverage"] = {
        "complete": bool(scores),
        "combos": len(plan.combos),
        "combos_covering_all_cases": len(covering),
        "combos_scored": len(scores),
        "note": note,
    }
    return result


def _top(scores: Mapping[Config, float], k: int) -> list[tuple[Config, float]]:
    """The ``k`` best-scored combos, ties broken by their text (deterministic)."""
    candidates = list(scores.items())
    if len(candidates) > k > 0:
        cutoff = heapq.nsmallest(k, scores.values())[-1]
        candidates = [kv for kv in candidates if kv[1] <= cutoff]
    return sorted(candidates, key=lambda kv: (kv[1], repr(kv[0])))[:k]


def build_profile(meta: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The whole profile document."""
    by_status: dict[str, int] = defaultdict(int)
    for result in results:
        for failure in result["failures"]:
            by_status[failure["status"]] += 1
    return {
        "format": PROFILE_FORMAT,
        "version": PROFILE_VERSION,
        "meta": dict(meta),
        "results": list(results),
        "failures": {"count": sum(by_status.values()), "by_status": dict(by_status)},
    }


def write_profile(path: str | Path, profile: Mapping[str, Any]) -> None:
    """Write a profile deterministically and atomically."""
    write_json_atomic(path, profile)


def upgrade_profile(data: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    """Bring a profile to the current version; BatchLAS profiles (no ``format``) are version 0."""
    doc = dict(data)
    if "format" not in doc:
        if not isinstance(doc.get("results"), list):
            raise ProfileError(f"{source}: $.results: missing; this is not a profile")
        doc = _upgrade_0_to_1(doc)
    if doc.get("format") != PROFILE_FORMAT:
        raise ProfileError(f"{source}: $.format: {doc.get('format')!r} is not a profile")
    version = doc.get("version")
    if not isinstance(version, int) or version > PROFILE_VERSION:
        raise ProfileError(
            f"{source}: $.version: {version!r} is newer than this benchspace reads "
            f"({PROFILE_VERSION}); upgrade benchspace"
        )
    return doc


def _upgrade_0_to_1(doc: dict[str, Any]) -> dict[str, Any]:
    results = []
    for result in doc["results"]:
        r = dict(result)
        r.setdefault("failures", [])
        r.setdefault("report_only", False)
        r.setdefault("coverage", {"complete": r.get("top") not in (None, []), "note": ""})
        r["measurements"] = [
            {**m, "median": m.get("value"), "n": 1, "stdev": 0.0, "samples": [m.get("value")]}
            for m in r.get("measurements", [])
        ]
        results.append(r)
    return {**doc, "format": PROFILE_FORMAT, "version": PROFILE_VERSION, "results": results}


def load_profile(path: str | Path) -> dict[str, Any]:
    """Read a profile file (any known version) and upgrade it."""
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{p}: no such profile; run `benchspace tune` first") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{p}: invalid JSON at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{p}: $: a profile is a JSON object")
    return upgrade_profile(data, source=str(p))
