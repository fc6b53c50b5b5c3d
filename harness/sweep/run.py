"""The sweep: every selected bench of a space measured through the store into a profile.

Pre-tune phases run first (each phase's winner is fixed for the next and the main sweep), then
the main sweep; every attempt is stored as it finishes, so an interrupted sweep resumes, and
the profile is rewritten after each bench.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchspace.harness.errors import BenchspaceError, ProfileError
from benchspace.harness.execute.batch import batch_order
from benchspace.harness.execute.exe_identity import take_changes
from benchspace.harness.execute.executor import Executor
from benchspace.harness.execute.invoke import (
    Invocation,
    RunOptions,
    build_invocation,
    resolve_executable,
    sha256_file,
)
from benchspace.harness.execute.progress import Progress
from benchspace.harness.measurement import Measurement
from benchspace.harness.plan import (
    MainPlan,
    ParamValue,
    Sampler,
    Task,
    apply_sample,
    plan_main,
)
from benchspace.harness.profiles.model import (
    BenchResult,
    PreTunePhaseResult,
    Profile,
)
from benchspace.harness.profiles.results import bench_result, build_profile
from benchspace.harness.profiles.row_table import RowCollector, table_result
from benchspace.harness.profiles.write import write_profile
from benchspace.harness.spaces.model import Bench, Space, bench_invocations
from benchspace.harness.store import Store
from benchspace.harness.sweep.budget import bench_repeats
from benchspace.harness.sweep.cache import Sweep, batching_of
from benchspace.harness.sweep.confirm import ConfirmOptions, confirm_bench
from benchspace.harness.sweep.confirm_phase import phase_confirm
from benchspace.harness.sweep.from_store import stored_executable
from benchspace.harness.sweep.incumbents import incumbent_task
from benchspace.harness.sweep.meta import base_meta, with_executables
from benchspace.harness.sweep.pre_tune import pre_tune_phases
from benchspace.harness.sweep.race import (
    CaseDecision,
    Racing,
    decide_rows,
    race_tasks,
    with_decisions,
)
from benchspace.harness.sweep.rounds import round_measurer, rule_for
from benchspace.harness.variants.pipeline import BuildSettings
from benchspace.harness.variants.sweep import tune_variant_bench


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
    allow_other_host: bool = False
    """Reuse stored attempts made on another host (by default they are measured again)."""
    benches: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    extra_meta: Mapping[str, Any] = field(default_factory=dict)
    sampler: Sampler | None = None
    """Chooses the measured subset of a bench's ``sample`` parameter, per case."""
    # --- racing and confirmation (harness/sweep/race.py, harness/sweep/confirm.py) ---
    racing: Racing | None = None
    confirm: ConfirmOptions | None = None
    builds: BuildSettings = field(default_factory=BuildSettings)
    """How benches with compile-time parameters build their variants."""
    source_dir: Path = Path(".")
    """``{source_dir}`` of build commands: the space's project root."""
    from_store: bool = False
    """Answer every attempt from the store and run nothing (harness/sweep/from_store.py)."""
    exe_sha: str | None = None
    """With `from_store`: which build's attempts (a sha256 prefix), when the store holds
    several."""


@dataclass(frozen=True, kw_only=True)
class TuneOutcome:
    """What a sweep did."""

    profile: Profile
    executed: int
    cached: int
    """Invocations answered by the store's attempts from before this sweep."""
    failures: int
    skipped: tuple[str, ...]
    missing: tuple[str, ...]
    built: int = 0
    """Variants built by this sweep (compile-time parameters)."""
    reused: int = 0
    """Variants found in the store."""
    notes: tuple[str, ...] = ()
    """Lines for the user (stored attempts of another host measured again)."""
    duplicates: int = 0
    """Invocations answered by an attempt of this same sweep (asked twice)."""


def _repeats(bench: Bench, options: TuneOptions) -> int:
    return bench_repeats(bench, options.repeats)


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


def _measure(
    bench: Bench,
    tasks: Sequence[Task],
    sweep: Sweep,
    *,
    exe_path: Path | None,
    exe_sha: str,
    options: TuneOptions,
    names: Sequence[str] | None = None,
) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
    """Measure a plan's tasks: every repeat, or raced (``--race`` / ``--stop``); `names`: a
    pre_tune phase's parameters (its incumbent is the header's values of those)."""
    if options.racing is None:
        invs = _invocations(bench, tasks, exe_path=exe_path, exe_sha=exe_sha, options=options)
        return sweep.measure(invs, batching_of(bench)), None
    measure_round = round_measurer(bench, sweep, exe_path, exe_sha, options.run, options.timeout_s)
    rule = rule_for(options.racing, _repeats(bench, options))
    mine = incumbent_task(options.racing.incumbents.get(bench.name, {}), names)
    return race_tasks(
        tasks, measure_round, bench.direction, rule, drop=options.racing.drop, incumbent=mine
    )


def _pre_tune(
    bench: Bench,
    sweep: Sweep,
    *,
    exe_path: Path | None,
    exe_sha: str,
    options: TuneOptions,
) -> tuple[dict[str, ParamValue], list[PreTunePhaseResult], list[Measurement]]:
    def measure(
        tasks: Sequence[Task], names: Sequence[str]
    ) -> tuple[list[Measurement], dict[int, CaseDecision] | None]:
        return _measure(
            bench, tasks, sweep, exe_path=exe_path, exe_sha=exe_sha, options=options, names=names
        )

    measure_round = round_measurer(bench, sweep, exe_path, exe_sha, options.run, options.timeout_s)
    race = None if options.racing is None else options.racing.rule
    confirm = phase_confirm(bench, options.confirm, race, measure_round, sweep.progress.add_total)
    rule = rule_for(options.racing, _repeats(bench, options))
    return pre_tune_phases(bench, measure, options.racing, sweep.progress.set_label, confirm, rule)


def tune_bench(bench: Bench, sweep: Sweep, options: TuneOptions) -> tuple[BenchResult | None, str]:
    """Sweep one bench. Returns (profile entry or None when skipped, executable state)."""
    if bench.build is not None:
        result, variants = tune_variant_bench(
            bench,
            sweep,
            settings=options.builds,
            source_dir=options.source_dir,
            run_options=options.run,
            repeats=options.repeats,
            timeout_s=options.timeout_s,
            topk=options.topk,
            confirm=options.confirm,
        )
        sweep.progress.note(
            f"{bench.name}: {variants.built} variants built, {variants.reused} reused"
        )
        sweep.builds_done += variants.built
        sweep.builds_reused += variants.reused
        return result, "ok"
    exe_path: Path | None
    if options.from_store:
        exe_path, exe_sha = stored_executable(sweep.store, bench, options.exe_sha)
    elif (exe_path := resolve_executable(bench.exe, options.run.build_dir)) is None:
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
    else:
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
    decisions: dict[int, CaseDecision] | None = None
    if len(summaries) == len(bench.pre_tune) and all(
        s.resolved_params is not None for s in summaries
    ):
        plan = plan_main(bench, resolved)
        sweep.progress.set_label(bench.name)
        if options.racing is None and options.confirm is None:
            # Folded as it is measured: nothing holds every attempt (10^6 configurations).
            batching = batching_of(bench)  # a batch's members measured one after another
            order = None if batching is None else batch_order(bench, plan.tasks, batching.param)
            collector = RowCollector(plan.tasks, order)
            invs = _invocations(
                bench, collector.tasks, exe_path=exe_path, exe_sha=exe_sha, options=options
            )
            sweep.measure_into(invs, collector.add, batching)
            result = table_result(
                bench,
                plan=plan,
                collector=collector,
                pre_measurements=pre_ms,
                pre_tune=summaries,
                topk=options.topk,
                exe_sha256=exe_sha,
            )
            rule = rule_for(None, _repeats(bench, options))
            return with_decisions(result, decide_rows(result.rows, bench.direction, rule)), "ok"
        main_ms, decisions = _measure(
            bench, plan.tasks, sweep, exe_path=exe_path, exe_sha=exe_sha, options=options
        )

    def rebuild(ms: list[Measurement]) -> BenchResult:
        return bench_result(
            bench,
            plan=plan,
            measurements=pre_ms + ms,
            pre_tune=summaries,
            topk=options.topk,
            exe_sha256=exe_sha,
        )

    result = rebuild(main_ms)
    rule = rule_for(options.racing, _repeats(bench, options))
    if plan is not None and options.confirm is not None:
        measure_round = round_measurer(
            bench, sweep, exe_path, exe_sha, options.run, options.timeout_s
        )
        sweep.progress.set_label(f"{bench.name} confirm")
        race = options.racing.rule if options.racing is not None else None
        result, _, decisions = confirm_bench(  # its race decides, or one look at its rounds
            result, plan, options.confirm, measure_round, rebuild, sweep.progress.add_total, race
        )
    if decisions is None:
        decisions = decide_rows(result.rows, bench.direction, rule)
    return with_decisions(result, decisions), "ok"


def tune(
    space: Space,
    options: TuneOptions,
    *,
    executor: Executor,
    progress: Progress,
) -> TuneOutcome:
    """Sweep every (selected) bench; the profile is rewritten after each bench (a --rerun
    over an existing profile writes it once, at the end)."""
    meta = base_meta(space, options)
    results: list[BenchResult] = []
    executables: dict[str, str] = {}
    skipped: list[str] = []
    missing: list[str] = []
    benches = [b for b in space.benches if not options.benches or b.name in options.benches]
    # The whole sweep's size is known before it starts (pre-tune winners change which
    # configurations run, not how many), so the ETA covers every bench from the first line.
    progress.add_total(sum(bench_invocations(b) * _repeats(b, options) for b in benches))
    take_changes()  # only changes seen during this sweep are reported
    if options.from_store and not options.store.is_file():
        what = "is a directory, not a store" if options.store.is_dir() else "no such store"
        raise ProfileError(
            f"{options.store}: {what}; --from-store assembles a profile from a store "
            "measured before (--store names its file)"
        )
    with Store(options.store, lock=True, on_wait=progress.note) as store:
        sweep = Sweep(
            store,
            executor,
            progress,
            rerun=options.rerun,
            host=options.run.host or None,
            allow_other_host=options.allow_other_host or options.from_store,
            offline=options.from_store,
        )
        stored, first, last = (0, "", "") if options.rerun else store.span()
        if stored:
            progress.note(f"continuing the campaign in {options.store}: {stored} attempts "
                          f"stored, the first at {first}, the last at {last} (--rerun starts "
                          "anew)")  # fmt: skip
        # A --rerun writes its profile once complete: stopped half-way, the previous stays.
        # From the store, nothing is written unless every bench's attempts are there.
        keep = (options.rerun and options.out.exists()) or options.from_store
        for bench in benches:
            result, state = tune_bench(bench, sweep, options)
            if state == "skipped":
                skipped.append(bench.name)
                continue
            if state == "missing":
                missing.append(bench.name)
            assert result is not None
            if result.exe_sha256:
                executables[bench.exe] = result.exe_sha256
            results.append(result)
            if not keep:
                meta_now = with_executables(meta, executables, sweep.exe_changes)
                write_profile(options.out, build_profile(meta_now, results))
        profile = build_profile(with_executables(meta, executables, sweep.exe_changes), results)
        if keep or not results:  # nothing was swept: still write the (empty) profile
            write_profile(options.out, profile)
        executed, cached, duplicates = sweep.executed, sweep.cached, sweep.duplicates
        builds = (sweep.builds_done, sweep.builds_reused)
        notes = tuple(sweep.host_notes())
    failures = sum(len(r.failures) for r in results if r.bench not in missing)
    return TuneOutcome(
        profile=profile,
        executed=executed,
        cached=cached,
        duplicates=duplicates,
        failures=failures,
        skipped=tuple(skipped),
        missing=tuple(missing),
        built=builds[0],
        reused=builds[1],
        notes=notes,
    )
