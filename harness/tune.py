"""tune: sweep a space's benchmark executables into a profile, every attempt kept in a store.

Also runs as a script: ``python harness/tune.py --space F ...`` (BatchLAS's usage).
"""

from __future__ import annotations

import platform
import sys

if __name__ == "__main__" and not __package__:
    # Run as a script: import the package from the repository, not harness/ itself, so that
    # modules here never shadow the standard library's.
    from pathlib import Path as _Path

    sys.path[0] = str(_Path(__file__).resolve().parent.parent)
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import provenance
from harness.batch import make_batches
from harness.errors import BenchspaceError
from harness.exe_identity import take_changes
from harness.executor import Executor, Job
from harness.invoke import (
    Invocation,
    RunOptions,
    build_invocation,
    resolve_executable,
    sha256_file,
)
from harness.measurement import Measurement, Summary
from harness.plan import (
    Config,
    MainPlan,
    ParamValue,
    PreTunePlan,
    Sampler,
    Task,
    apply_sample,
    plan_main,
    plan_pre_tune,
)
from harness.process import current_binary
from harness.profile import (
    aggregate,
    bench_result,
    build_profile,
    geomean,
    ratio,
    write_profile,
)
from harness.progress import Progress
from harness.space import Bench, Space, bench_invocations
from harness.store import Store


@dataclass(frozen=True, kw_only=True)
class TuneOptions:
    """Everything ``tune`` takes besides the space."""

    out: Path
    store: Path
    run: RunOptions
    topk: int = 10
    repeats: int | None = None
    timeout_s: float | None = None
    skip_missing: bool = False
    allow_failures: bool = False
    rerun: bool = False
    benches: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    extra_meta: Mapping[str, Any] = field(default_factory=dict)
    sampler: Sampler | None = None
    """Chooses the measured subset of a bench's ``sample`` parameter, per case."""


@dataclass(frozen=True, kw_only=True)
class Batching:
    """How a bench's configurations share processes (see harness/batch.py)."""

    param: str
    size: int
    position: int


def batching_of(bench: Bench) -> Batching | None:
    """The bench's batching, if its space asks for it."""
    spec = bench.batch
    if spec is None:
        return None
    items = list(bench.arg_spec)
    index = next(i for i, item in enumerate(items) if item.is_param and item.text == spec.param)
    return Batching(param=spec.param, size=spec.size, position=index - len(items))


@dataclass(frozen=True, kw_only=True)
class TuneOutcome:
    """What a sweep did."""

    profile: dict[str, Any]
    executed: int
    cached: int
    failures: int
    skipped: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        """0 when clean, 1 when failures or missing executables were not allowed."""
        return 1 if self.failures or self.missing else 0


class Sweep:
    """Runs tasks through the store's cache and an executor, reporting progress."""

    def __init__(
        self, store: Store, executor: Executor, progress: Progress, *, rerun: bool
    ) -> None:
        self.store = store
        self.executor = executor
        self.progress = progress
        self.rerun = rerun
        self.executed = 0
        self.cached = 0
        self.exe_changes: list[dict[str, str]] = []

    def measure(
        self, invocations: Iterable[Invocation], batching: Batching | None = None
    ) -> list[Measurement]:
        """Measure invocations, reusing finished attempts unless ``rerun``; all are stored.

        Unbatched invocations are built, looked up in the store and handed to the executor
        one at a time, as it asks for them: in a serial sweep that work happens while the
        previous benchmark runs."""
        seen: list[Invocation] = []
        results: dict[str, Measurement] = {}
        queued: set[str] = set()

        asked: dict[tuple[object, ...], str] = {}  # a rebuilt binary runs under a new key

        def todo() -> Iterator[Invocation]:
            for planned in invocations:
                inv = current_binary(planned)
                seen.append(inv)
                key = inv.cache_key
                if key in results or key in queued:
                    continue
                hit = None if self.rerun else self.store.find(key)
                if hit is not None:
                    results[key] = hit
                    self.cached += 1
                    self.progress.advance(hit, cached=True)
                else:
                    queued.add(key)
                    asked[_config_of(inv)] = key
                    yield inv

        jobs: Iterable[Job] = todo()
        if batching is not None:
            jobs = make_batches(
                list(todo()), param=batching.param, size=batching.size, position=batching.position
            )
        for ms in self.executor.run(jobs):
            for m in ms:
                self.store.add(m)
                results[asked.get(_config_of(m), m.cache_key)] = m
                for change in take_changes():
                    self.progress.note(change.line())
                    self.exe_changes.append(change.as_dict())
                self.executed += 1
                self.progress.set_label(f"{m.bench} case {m.case_index}")
                if not m.ok:
                    self.progress.note(
                        f"{m.status}: {m.bench} case {m.case_index} {dict(m.params)}: {m.error}"
                    )
                self.progress.advance(m)
        # A stored attempt can serve another phase (a pre-tune run is also a main-sweep
        # configuration): it is reported under the phase that asked for it now.
        return [
            _as_phase(results[inv.cache_key], inv.phase) for inv in seen if inv.cache_key in results
        ]


def _config_of(x: Invocation | Measurement) -> tuple[object, ...]:
    return (x.bench, tuple(x.argv), tuple(sorted(x.env.items(), key=str)), x.repeat)


def _as_phase(m: Measurement, phase: str) -> Measurement:
    return m if m.phase == phase else replace(m, phase=phase)


def _repeats(bench: Bench, options: TuneOptions) -> int:
    if options.repeats is not None:
        return options.repeats
    return bench.repeats if bench.repeats is not None else 1


def _invocations(
    bench: Bench,
    tasks: Sequence[Task],
    *,
    exe_path: Path | None,
    exe_sha: str,
    options: TuneOptions,
) -> Iterator[Invocation]:
    # Repeats are interleaved across configurations, never back to back.
    for repeat in range(_repeats(bench, options)):
        for task in tasks:
            yield build_invocation(
                bench,
                task,
                exe_path=exe_path,
                exe_sha256=exe_sha,
                options=options.run,
                repeat=repeat,
                timeout_s=options.timeout_s,
            )


def _pre_tune(
    bench: Bench,
    sweep: Sweep,
    *,
    exe_path: Path | None,
    exe_sha: str,
    options: TuneOptions,
) -> tuple[dict[str, ParamValue], list[dict[str, Any]], list[Measurement]]:
    resolved: dict[str, ParamValue] = {}
    summaries: list[dict[str, Any]] = []
    measured: list[Measurement] = []
    for index, phase in enumerate(bench.pre_tune):
        plan = plan_pre_tune(bench, index, resolved)
        sweep.progress.set_label(f"{bench.name} pre_tune[{index}]")
        tasks = [task for _, task in plan.tasks]
        ms = sweep.measure(
            _invocations(bench, tasks, exe_path=exe_path, exe_sha=exe_sha, options=options),
            batching_of(bench),
        )
        measured.extend(ms)
        aggs = aggregate(ms)
        per_case: dict[int, dict[Config, float]] = {c: {} for c in plan.cases}
        stats: dict[tuple[int, Config], Summary] = {}
        for combo, task in plan.tasks:
            agg = aggs.get((task.case_index, task.config))
            if agg is not None and agg.summary is not None:
                per_case[task.case_index][combo] = agg.summary.median
                stats[task.case_index, combo] = agg.summary
        scores: dict[Config, float] = {}
        for combo in plan.combos:
            if all(combo in per_case[c] for c in plan.cases):
                bests = {
                    c: (max if bench.direction == "max" else min)(per_case[c].values())
                    for c in plan.cases
                }
                scores[combo] = geomean(
                    [ratio(per_case[c][combo], bests[c], bench.direction) for c in plan.cases]
                )
        if not scores:
            summaries.append(
                {
                    "phase_index": index,
                    "params": {k: list(v) for k, v in phase.params.items()},
                    "cases": list(plan.cases),
                    "resolved_params": None,
                    "values": [],
                    "score": None,
                    "note": "no combination succeeded in every phase case",
                    "table": _phase_table(plan, stats, scores),
                }
            )
            return resolved, summaries, measured
        winner = min(scores, key=lambda c: (scores[c], repr(c)))
        resolved.update(dict(winner))
        summaries.append(
            {
                "phase_index": index,
                "params": {k: list(v) for k, v in phase.params.items()},
                "cases": list(plan.cases),
                "resolved_params": dict(winner),
                "values": [per_case[c][winner] for c in plan.cases],
                "score": scores[winner],
                "table": _phase_table(plan, stats, scores),
            }
        )
    return resolved, summaries, measured


def _phase_table(
    plan: PreTunePlan, stats: Mapping[tuple[int, Config], Summary], scores: Mapping[Config, float]
) -> list[dict[str, Any]]:
    """Every combo a pre-tune phase measured: per phase case its median, stdev and number of
    repeats (None where it failed), and its score (None unless it succeeded in every phase
    case), so that ``sensitivity`` and ``review`` can judge the phase like a main sweep."""
    table = []
    for combo in plan.combos:
        cells = [stats.get((c, combo)) for c in plan.cases]
        table.append(
            {
                "params": dict(combo),
                "values": [None if s is None else s.median for s in cells],
                "stdevs": [None if s is None else s.stdev for s in cells],
                "n": [None if s is None else s.n for s in cells],
                "score": scores.get(combo),
            }
        )
    return table


def tune_bench(
    bench: Bench, sweep: Sweep, options: TuneOptions
) -> tuple[dict[str, Any] | None, str]:
    """Sweep one bench. Returns (profile entry or None when skipped, executable state)."""
    exe_path = resolve_executable(bench.exe, options.run.build_dir)
    if exe_path is None:
        where = f"{options.run.build_dir}/benchmarks or {options.run.build_dir}"
        if options.skip_missing:
            sweep.progress.note(
                f"skipped {bench.name}: executable {bench.exe} not found under {where}"
            )
            return None, "skipped"
        m = Measurement(
            bench=bench.name,
            case_index=0,
            phase="main",
            params={},
            argv=(bench.exe,),
            env={},
            exe_sha256="",
            status="missing",
            error=f"executable {bench.exe} not found under {where}",
        )
        sweep.progress.note(f"missing: {bench.name}: {m.error}")
        result = bench_result(bench, plan=None, measurements=[m], pre_tune=[], topk=options.topk)
        return result, "missing"
    exe_sha = sha256_file(exe_path)
    if bench.sample is not None:
        if options.sampler is None:
            raise BenchspaceError(
                f"bench {bench.name}: has a sample block but no sampler is available for it"
            )
        bench = apply_sample(bench, options.sampler)
    resolved, summaries, pre_ms = _pre_tune(
        bench, sweep, exe_path=exe_path, exe_sha=exe_sha, options=options
    )
    plan: MainPlan | None = None
    main_ms: list[Measurement] = []
    if len(summaries) == len(bench.pre_tune) and all(
        s["resolved_params"] is not None for s in summaries
    ):
        plan = plan_main(bench, resolved)
        sweep.progress.set_label(bench.name)
        main_ms = sweep.measure(
            _invocations(bench, plan.tasks, exe_path=exe_path, exe_sha=exe_sha, options=options),
            batching_of(bench),
        )
    result = bench_result(
        bench,
        plan=plan,
        measurements=pre_ms + main_ms,
        pre_tune=summaries,
        topk=options.topk,
        exe_sha256=exe_sha,
    )
    return result, "ok"


def base_meta(space: Space, options: TuneOptions) -> dict[str, Any]:
    """The profile's meta block (BatchLAS keys plus provenance)."""
    prov = provenance.collect(space.path, list(options.command))
    prov.update(
        space_path=str(space.path),
        space_sha256=space.sha256,
        executables={},
        options={
            "backend": options.run.backend,
            "dtype": options.run.dtype,
            "repeats": options.repeats,
            "timeout_s": options.timeout_s,
            "topk": options.topk,
            "warmup": options.run.warmup,
            "min_time_ms": options.run.min_time_ms,
            "min_iters": options.run.min_iters,
            "max_iters": options.run.max_iters,
            "benches": list(options.benches),
        },
        **options.extra_meta,
    )
    return {
        "backend": options.run.backend,
        "dtype": options.run.dtype,
        "build_dir": str(options.run.build_dir),
        "hostname": platform.node(),
        "platform": platform.platform(),
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "provenance": prov,
    }


def tune(
    space: Space,
    options: TuneOptions,
    *,
    executor: Executor,
    progress: Progress,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> TuneOutcome:
    """Sweep every (selected) bench; the profile is rewritten after each bench."""
    meta = base_meta(space, options)
    results: list[dict[str, Any]] = []
    skipped: list[str] = []
    missing: list[str] = []
    benches = [b for b in space.benches if not options.benches or b.name in options.benches]
    # The whole sweep's size is known before it starts (pre-tune winners change which
    # configurations run, not how many), so the ETA covers every bench from the first line.
    progress.add_total(sum(bench_invocations(b) * _repeats(b, options) for b in benches))
    take_changes()  # only changes seen during this sweep are reported
    with Store(options.store, lock=True, on_wait=progress.note) as store:
        sweep = Sweep(store, executor, progress, rerun=options.rerun)
        for bench in benches:
            result, state = tune_bench(bench, sweep, options)
            if state == "skipped":
                skipped.append(bench.name)
                continue
            if state == "missing":
                missing.append(bench.name)
            assert result is not None
            if result.get("exe_sha256"):
                meta["provenance"]["executables"][bench.exe] = result["exe_sha256"]
            if sweep.exe_changes:
                meta["provenance"]["executable_changes"] = sweep.exe_changes
            results.append(result)
            if on_result is not None:
                on_result(result)
            write_profile(options.out, build_profile(meta, results))
        profile = build_profile(meta, results)
        if not results:  # nothing was swept: still write the (empty) profile
            write_profile(options.out, profile)
        executed, cached = sweep.executed, sweep.cached
    failures = sum(len(r["failures"]) for r in results if r["bench"] not in missing)
    return TuneOutcome(
        profile=profile,
        executed=executed,
        cached=cached,
        failures=failures,
        skipped=tuple(skipped),
        missing=tuple(missing),
    )


if __name__ == "__main__":
    from harness.cli import main

    sys.exit(main(["tune", *sys.argv[1:]]))
