"""``tune --validate``: one cheap invocation per bench, in seconds, before a long sweep.

Checks that the executable is there, that it runs, that the row is present and unambiguous and
that the metric is there; then, per bench, what it could and could not check of the arguments
and rows (harness/execute/describe.py): the executable's ``--describe`` answer where it has
one, else what its output tells (Google Benchmark names its arguments; minibench cannot tell).
A check that cannot be made is reported as "not checked", never as passed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from benchspace.harness.execute.describe import (
    DESCRIBE_FLAG,
    Check,
    Description,
    args_check,
    parse_description,
    rows_check,
)
from benchspace.harness.execute.invoke import RunOptions, build_invocation, resolve_executable
from benchspace.harness.execute.process import execute
from benchspace.harness.plan import ParamValue, Task, make_config
from benchspace.harness.spaces.model import Bench


@dataclass(frozen=True, kw_only=True)
class ProbeResult:
    """The verdict on one bench."""

    bench: str
    state: str
    """``ok``, ``failed``, ``missing`` or ``skipped``."""
    message: str
    checks: tuple[Check, ...] = ()
    """What it checked of the arguments and rows, and what it could not."""

    def line(self) -> str:
        """One line for the terminal: the verdict, then every check's state."""
        rest = "".join(f"; {c.text()}" for c in self.checks)
        return f"{self.state:<8} {self.bench}: {self.message}{rest}"


DESCRIBE_TIMEOUT_S = 5.0


def describe(exe: Path, *, timeout_s: float = DESCRIBE_TIMEOUT_S) -> Description | str:
    """Ask an executable ``--describe``; the description, or why there is none."""
    with tempfile.TemporaryDirectory(prefix="benchspace-describe-") as cwd:
        try:
            done = subprocess.run(
                [str(exe), DESCRIBE_FLAG],
                cwd=cwd,
                env=dict(os.environ),
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"{DESCRIBE_FLAG} did not answer within {timeout_s:g} s"
        except OSError as exc:
            return f"{DESCRIBE_FLAG} could not run ({exc.strerror})"
    if done.returncode != 0:
        return f"the executable does not answer {DESCRIBE_FLAG} (exit {done.returncode})"
    return parse_description(done.stdout)


def first_config(bench: Bench) -> dict[str, ParamValue]:
    """The first case's first grid values, plus each pre-tune phase's first candidates."""
    case = bench.cases[0]
    values: dict[str, ParamValue] = {key: grid[0] for key, grid in case.tune.items()}
    for phase in bench.pre_tune:
        values.update({key: grid[0] for key, grid in phase.params.items()})
    return values


def probe_bench(bench: Bench, options: RunOptions, *, skip_missing: bool) -> ProbeResult:
    """Run one cheap invocation of a bench and judge it."""
    exe_path = resolve_executable(bench.exe, options.build_dir)
    if exe_path is None:
        where = f"{options.build_dir}/benchmarks/{bench.exe} or {options.build_dir}/{bench.exe}"
        state = "skipped" if skip_missing else "missing"
        return ProbeResult(bench=bench.name, state=state, message=f"no executable at {where}")
    description = describe(exe_path)
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
    checks = (args_check(bench, description, outcome.row), rows_check(bench, description))
    failed = [c for c in checks if c.state == "failed"]
    if failed:
        others = tuple(c for c in checks if c is not failed[0])
        return ProbeResult(
            bench=bench.name, state="failed", message=failed[0].detail, checks=others
        )
    return ProbeResult(
        bench=bench.name,
        state="ok",
        message=f"{bench.exe} row {m.row!r} {bench.metric} = {m.value:g} ({m.duration_s:.2f} s)",
        checks=checks,
    )
