"""``tune --validate``: one cheap invocation per bench, in seconds, before a long sweep.

Checks that the executable is there, that it runs, that the row is present and unambiguous,
that the metric is there, and — where the executable reports its argument names (Google
Benchmark's ``ArgNames``) or count (minibench's ``arg0..argN``) — that they match ``arg_spec``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.execute.invoke import RunOptions, build_invocation, resolve_executable
from harness.execute.process import execute
from harness.execute.readers import Row
from harness.plan import ParamValue, Task, make_config
from harness.spaces.model import Bench


@dataclass(frozen=True, kw_only=True)
class ProbeResult:
    """The verdict on one bench."""

    bench: str
    state: str
    """``ok``, ``failed``, ``missing`` or ``skipped``."""
    message: str

    def line(self) -> str:
        """One line for the terminal."""
        return f"{self.state:<8} {self.bench}: {self.message}"


def first_config(bench: Bench) -> dict[str, ParamValue]:
    """The first case's first grid values, plus each pre-tune phase's first candidates."""
    case = bench.cases[0]
    values: dict[str, ParamValue] = {key: grid[0] for key, grid in case.tune.items()}
    for phase in bench.pre_tune:
        values.update({key: grid[0] for key, grid in phase.params.items()})
    return values


def arg_mismatch(bench: Bench, row: Row) -> str | None:
    """Why the executable's reported arguments disagree with ``arg_spec``, or None."""
    if not row.args:
        return None
    expected = [item.text for item in bench.arg_spec if item.is_param]
    if len(expected) != len(bench.arg_spec):
        return None  # templates: the executable cannot name what it receives
    names = [name for name, _ in row.args]
    if all(name is not None for name in names):
        if names != expected:
            return (
                f"the executable reports arguments {names} but arg_spec is {expected}; "
                "fix arg_spec to match the executable"
            )
        return None
    if len(names) != len(expected):
        return (
            f"the executable reports {len(names)} arguments but arg_spec has "
            f"{len(expected)} ({expected}); fix arg_spec to match the executable"
        )
    return None


def probe_bench(bench: Bench, options: RunOptions, *, skip_missing: bool) -> ProbeResult:
    """Run one cheap invocation of a bench and judge it."""
    exe_path = resolve_executable(bench.exe, options.build_dir)
    if exe_path is None:
        where = f"{options.build_dir}/benchmarks/{bench.exe} or {options.build_dir}/{bench.exe}"
        state = "skipped" if skip_missing else "missing"
        return ProbeResult(bench=bench.name, state=state, message=f"no executable at {where}")
    cheap = replace(options, warmup=0, min_time_ms=0.0, min_iters=1, max_iters=1)
    task = Task(
        bench=bench.name, case_index=0, phase="validate", config=make_config(first_config(bench))
    )
    inv = build_invocation(bench, task, exe_path=exe_path, exe_sha256="", options=cheap)
    outcome = execute(inv)
    m = outcome.measurement
    if not m.ok or m.value is None:
        detail = m.error
        if m.stderr_tail.strip():
            detail += f" (stderr: {m.stderr_tail.strip().splitlines()[-1]})"
        return ProbeResult(bench=bench.name, state="failed", message=f"{m.status}: {detail}")
    mismatch = arg_mismatch(bench, outcome.row) if outcome.row is not None else None
    if mismatch is not None:
        return ProbeResult(bench=bench.name, state="failed", message=mismatch)
    return ProbeResult(
        bench=bench.name,
        state="ok",
        message=f"{bench.exe} row {m.row!r} {bench.metric} = {m.value:g} ({m.duration_s:.2f} s)",
    )
