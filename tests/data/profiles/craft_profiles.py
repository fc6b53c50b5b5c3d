"""Write the crafted profiles the header tests read (run from the repository root).

    python tests/data/profiles/craft_profiles.py

Each profile is what a sweep of the matching space in tests/generators/spaces/ would record if
the benchmarks behaved like the small models below: every configuration of every case is
"measured" through harness.plan (pre_tune first, then the main sweep) and the entries are built
by harness/profiles/, so the files have exactly the shape ``benchspace tune`` writes. Samples get
deterministic noise from a hash of the configuration. BatchLAS's own layout is not crafted here:
tests/data/batchlas_real/ holds profiles BatchLAS's tune.py wrote.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchspace.harness.jsonio import write_json_atomic
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import ParamValue, plan_main, plan_pre_tune
from benchspace.harness.profiles.model import (
    BenchResult,
    PreTunePhaseResult,
    ProfileMeta,
    ProfileProvenance,
)
from benchspace.harness.profiles.results import bench_result, build_profile
from benchspace.harness.profiles.scoring import better
from benchspace.harness.profiles.write import profile_data
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Bench, Case, Space

ROOT = Path(__file__).resolve().parents[3]
SPACES = ROOT / "tests" / "generators" / "spaces"
OUT = ROOT / "tests" / "data" / "profiles"
Model = Callable[[str, Case, Mapping[str, ParamValue]], float]


def _unit(*parts: object) -> float:
    """A deterministic number in [-1, 1) from its arguments."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**63 - 1.0


def _away(value: ParamValue, best: float, slope: float) -> float:
    """1 at `best`, growing by `slope` per doubling away from it."""
    assert isinstance(value, int | float)
    return 1.0 + slope * abs(math.log2(max(float(value), 0.5) / best))


def demo_model(bench: str, case: Case, p: Mapping[str, ParamValue]) -> float:
    """The bundled demo: matmul GFLOP/s (max) and times in microseconds (min)."""
    n = int(case.fixed["n"])  # type: ignore[arg-type]
    if bench == "matmul":
        best = {64: 32, 128: 64, 256: 64, 512: 128}[n]
        return 9.0 / _away(p["block"], best, 0.12)
    if bench == "lu":
        return n**3 / 900.0 * _away(p["block"], 32, 0.10)
    if bench == "matvec":
        best = {64: 4, 128: 4, 256: 8, 512: 8, 1024: 8}[n]
        return n * n / 500.0 * _away(p["lanes"], best, 0.08)
    if bench == "sort":
        branchless = {64: 0.998, 128: 0.95, 256: 0.97, 512: 1.02}[n]
        return 650.0 * _away(p["cutoff"], 16, 0.05) * (branchless if p["branchless"] else 1.0)
    raise KeyError(bench)


def kinds_model(bench: str, case: Case, p: Mapping[str, ParamValue]) -> float:
    """The every-kind space: enum, unsigned, bool, size_t, double, int8 and uint64 knobs."""
    m = int(case.fixed["m"])  # type: ignore[arg-type]
    if bench == "kern":
        variant = {
            100: {"Scalar": 1.2, "Vector": 1.0, "Tiled": 1.1},
            800: {"Scalar": 1.3, "Vector": 1.05, "Tiled": 1.0},
            5000: {"Vector": 1.1, "Tiled": 1.0},
        }[m][str(p["variant"])]
        unroll = _away(p["unroll"], 4 if m < 1000 else 8, 0.06)
        prefetch = 0.97 if p["prefetch"] == (m >= 1000) else 1.0
        return m / 10.0 * variant * unroll * prefetch
    if bench == "kern_small":
        return 10.0 * _away(p["unroll"], 1, 0.2)
    if bench == "pack":
        big = 1.0 if p["big"] == 1 else 1.0005  # the knob that moves nothing
        scale = 1.0 if p["scale"] == 1.0 else 1.04
        return 50.0 * _away(p["chunk"], 4096, 0.1) * scale * (0.9 if p["offset"] == -4 else 1) * big
    if bench == "probe":
        return 1.0
    raise KeyError(bench)


def _measure(
    bench: Bench,
    model: Model,
    case: Case,
    config: Mapping[str, ParamValue],
    phase: str,
    repeats: int,
    noise: float,
) -> list[Measurement]:
    values = {**case.fixed, **{k: v for k, v in config.items() if v is not None}}
    true = model(bench.name, case, values)
    out = []
    for r in range(repeats):
        sample = true * (1.0 + noise * _unit(bench.name, case.index, sorted(config.items()), r))
        out.append(
            Measurement(
                bench=bench.name,
                case_index=case.index,
                phase=phase,
                params=dict(config),
                argv=(bench.exe, *bench.render_args(values)),
                env=bench.render_env(dict(config)),
                exe_sha256="0" * 64,
                status="ok",
                value=round(sample, 6),
                repeat=r,
            )
        )
    return out


def sweep(space: Space, model: Model, *, repeats: int, noise: float) -> list[BenchResult]:
    """Profile entries of every bench, measured through `model`."""
    results = []
    for bench in space.benches:
        resolved: dict[str, ParamValue] = {}
        measurements: list[Measurement] = []
        pre_tune = []
        for index, phase in enumerate(bench.pre_tune):
            plan = plan_pre_tune(bench, index, resolved)
            scores: dict[Any, list[float]] = {}
            for combo, task in plan.tasks:
                taken = _measure(
                    bench,
                    model,
                    bench.cases[task.case_index],
                    task.params(),
                    task.phase,
                    repeats,
                    noise,
                )
                measurements += taken
                scores.setdefault(combo, []).append(
                    sorted(m.value or 0.0 for m in taken)[repeats // 2]
                )
            winner = None
            for combo, values in scores.items():
                mean = sum(values) / len(values)
                if winner is None or better(mean, winner[1], bench.direction):
                    winner = (combo, mean)
            assert winner is not None
            resolved.update(dict(winner[0]))
            pre_tune.append(
                PreTunePhaseResult(
                    phase_index=index,
                    params={k: tuple(v) for k, v in phase.params.items()},
                    cases=tuple(phase.cases),
                    resolved_params=dict(winner[0]),
                    values=tuple(scores[winner[0]]),
                    score=winner[1],
                )
            )
        main = plan_main(bench, resolved)
        for task in main.tasks:
            measurements += _measure(
                bench, model, bench.cases[task.case_index], task.params(), "main", repeats, noise
            )
        results.append(
            bench_result(
                bench,
                plan=main,
                measurements=measurements,
                pre_tune=pre_tune,
                topk=5,
                exe_sha256="0" * 64,
            )
        )
    return results


def meta(space: Space) -> ProfileMeta:
    """A fixed meta block (no clock, no host), so the profile bytes are reproducible."""
    return ProfileMeta(
        backend="CPU",
        dtype="float",
        build_dir="build",
        hostname="crafted",
        platform="crafted",
        generated_at="2026-01-01T00:00:00Z",
        provenance=ProfileProvenance(
            space_path=space.path.relative_to(ROOT).as_posix(),
            space_sha256=space.sha256,
            other={
                "benchspace_version": "0.1.0",
                "command": ["tests/data/profiles/craft_profiles.py"],
            },
        ),
    )


def main() -> None:
    """Write every crafted profile."""
    demo = load_space(SPACES / "demo_like.json")
    write_json_atomic(
        OUT / "demo_like.json",
        profile_data(build_profile(meta(demo), sweep(demo, demo_model, repeats=3, noise=0.01))),
    )
    kinds = load_space(SPACES / "kinds.json")
    write_json_atomic(
        OUT / "kinds.json",
        profile_data(build_profile(meta(kinds), sweep(kinds, kinds_model, repeats=3, noise=0.002))),
    )


if __name__ == "__main__":
    main()
