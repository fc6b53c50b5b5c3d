"""Batched invocation: one process measures many configurations, one output row each.

Configurations of one case that differ only in the batched parameter (e.g. a kernel name)
share a process: the bare ``arg_spec`` item naming that parameter expands into one argument
per configuration, and the reader's rows are matched to configurations by exact name. Each
configuration keeps its own cache key (as if it ran alone), so the composition of a batch
never changes what is cached. If the process dies, the failure is attributed to the first
configuration without a row and the rest continue in a new process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.execute.invoke import Invocation, resolve_values
from benchspace.harness.execute.metric_check import check_value
from benchspace.harness.execute.process import run_process
from benchspace.harness.execute.readers import Row, metric_of, read_output
from benchspace.harness.measurement import Measurement, Status
from benchspace.harness.plan import Task
from benchspace.harness.spaces.model import Bench
from benchspace.harness.values import render_value

#: A row field that, when present and not ``ok``, makes the configuration a failure.
ROW_STATUS_FIELD = "status"
#: A line by which an executable says which configuration it is about to run (the last one
#: named before a death is the one that died); e.g. ``cutlass_bench: running <config>``.
RUNNING_MARKER = re.compile(r"\brunning (\S+)\s*$", re.MULTILINE)
#: Row statuses by which an executable names the configuration that killed it.
FATAL_ROW_STATUSES: dict[str, Status] = {"crashed": "crashed", "timeout": "timeout"}


@dataclass(frozen=True, kw_only=True)
class Batch:
    """Configurations to measure in one process; they differ only in ``param``."""

    param: str
    members: tuple[Invocation, ...]
    position: int
    """Index of the batched parameter's word in the argv (counted from the end: negative)."""

    def argv(self, members: Sequence[Invocation]) -> tuple[str, ...]:
        """The argv of one process measuring ``members``."""
        words = [self.name_of(m) for m in members]
        first = list(members[0].argv)
        at = len(first) + self.position
        return (*first[:at], *words, *first[at + 1 :])

    def name_of(self, member: Invocation) -> str:
        """The row name (and argv word) of a member."""
        value = member.params.get(self.param)
        return "" if value is None else render_value(value)


def _member(
    done: Measurement, member: Invocation, size: int, *, tails: bool = True, **changes: Any
) -> Measurement:
    """The process's Measurement ``done`` as one member's (its configuration and cache key),
    with ``changes``; built directly (``dataclasses.replace`` is several times slower, and a
    sweep of 10^6 configurations builds one per configuration)."""
    fields: dict[str, Any] = {
        "bench": done.bench,
        "case_index": done.case_index,
        "phase": done.phase,
        "params": member.params,
        "argv": member.argv,
        "env": member.env,
        "exe_sha256": done.exe_sha256,
        "status": done.status,
        "value": done.value,
        "spread": done.spread,
        "row": done.row,
        "repeat": member.repeat,
        "returncode": done.returncode,
        "stdout_tail": done.stdout_tail if tails else "",
        "stderr_tail": done.stderr_tail if tails else "",
        "error": done.error,
        "duration_s": done.duration_s,
        "started_at": done.started_at,
        "host": done.host,
        "device": done.device,
        "cache_key": member.cache_key,
        "extra": {"batch_size": float(size)},
    }
    fields.update(changes)
    return Measurement(**fields)


def _row_measurement(
    member: Invocation, done: Measurement, size: int, *, tails: bool, row: Row
) -> Measurement:
    status = row.fields.get(ROW_STATUS_FIELD)
    if isinstance(status, str) and status not in ("ok", ""):
        kind: Status = FATAL_ROW_STATUSES.get(status, "failed")
        return _member(
            done, member, size, tails=tails, status=kind, row=row.name, error=f"row status {status}"
        )
    try:
        source = f"{member.exe} (bench {member.bench}, case {member.case_index})"
        value, spread = metric_of(row, member.metric, source=source)
        check_value(value, metric=member.metric, row=row.name, source=source)
    except BenchspaceError as exc:
        return _member(
            done, member, size, tails=tails, status="parse_error", row=row.name, error=str(exc)
        )
    extra: dict[str, float | str] = {k: v for k, v in row.fields.items() if k != member.metric}
    return _member(
        done,
        member,
        size,
        tails=tails,
        status="ok",
        error="",
        value=value,
        spread=spread,
        row=row.name,
        extra=extra,
    )


def execute_batch(batch: Batch) -> list[Measurement]:
    """Measure every member, re-running the rest in a new process after a death."""
    remaining = list(batch.members)
    out: list[Measurement] = []
    while remaining:
        lead = replace(
            remaining[0],
            argv=batch.argv(remaining),
            timeout_s=remaining[0].timeout_s * len(remaining),
        )
        result = run_process(lead)
        done = result.measurement
        if done.exe_sha256 != lead.exe_sha256:  # rebuilt: every member ran the new binary
            remaining = [replace(m, exe_sha256=done.exe_sha256) for m in remaining]
        rows: dict[str, Row] = {}
        if result.text.strip() or result.stderr.strip():
            try:
                parsed = read_output(
                    lead.reader,
                    result.text,
                    pattern=lead.pattern,
                    stream=lead.stream,
                    stderr=result.stderr,
                )
            except BenchspaceError:
                parsed = []
            rows = {r.name: r for r in parsed}
        still: list[Invocation] = []
        # An executable that names its killer in a row (status crashed/timeout) needs no
        # guess; else the configuration it last said it was running is blamed; else the
        # first configuration without a row.
        blamed = any(r.fields.get(ROW_STATUS_FIELD) in FATAL_ROW_STATUSES for r in rows.values())
        culprit = _last_running(done.stderr_tail, remaining, rows, batch)
        if culprit is not None and done.status != "ok" and not blamed:
            blamed = True
            out.append(
                _member(done, culprit, len(remaining), error=f"{done.error} (while running it)")
            )
            remaining = [m for m in remaining if m is not culprit]
        size = len(remaining)
        for index, member in enumerate(remaining):
            # The process's output tails are kept once per process, not per configuration.
            tails = not (index and done.status == "ok")
            row = rows.get(batch.name_of(member))
            if row is not None:
                out.append(_row_measurement(member, done, size, tails=tails, row=row))
            elif done.status != "ok" and not blamed:
                blamed = True  # the process died while this configuration had no row yet
                error = f"{done.error} (first configuration without a row)"
                out.append(_member(done, member, size, tails=tails, error=error))
            elif done.status != "ok":
                still.append(member)
            else:
                name = batch.name_of(member)
                error = f"no output row {name!r}"
                out.append(
                    _member(done, member, size, tails=tails, status="parse_error", error=error)
                )
        remaining = still
    return out


def _last_running(
    stderr: str, members: Sequence[Invocation], rows: dict[str, Row], batch: Batch
) -> Invocation | None:
    """The member the executable last said it was running, if it has no row yet."""
    names = RUNNING_MARKER.findall(stderr)
    if not names:
        return None
    by_name = {batch.name_of(m): m for m in members if batch.name_of(m) not in rows}
    return by_name.get(names[-1])


def _key(
    bench: str,
    case_index: int,
    repeat: int,
    params: Mapping[str, object],
    env: Mapping[str, str | None],
    param: str,
) -> tuple[object, ...]:
    """What the members of a batch share: everything but the batched parameter."""
    others = tuple(sorted((k, repr(v)) for k, v in params.items() if k != param))
    return (bench, case_index, repeat, others, tuple(sorted(env.items())))


def make_batches(
    invocations: Sequence[Invocation], *, param: str, size: int, position: int
) -> list[Batch]:
    """Group invocations that differ only in ``param`` into batches of at most ``size``."""
    groups: dict[tuple[object, ...], list[Invocation]] = {}
    for inv in invocations:
        key = _key(inv.bench, inv.case_index, inv.repeat, inv.params, inv.env, param)
        groups.setdefault(key, []).append(inv)
    batches = []
    for members in groups.values():
        for start in range(0, len(members), size):
            chunk = tuple(members[start : start + size])
            batches.append(Batch(param=param, members=chunk, position=position))
    return batches


def batch_order(bench: Bench, tasks: Sequence[Task], param: str) -> list[int]:
    """The tasks' positions in the order `make_batches` runs their invocations (of one
    repeat): grouped as batches group them, groups in order of first appearance. A plan lists
    its tasks combo by combo, so one case's configurations lie far apart; in this order each
    batch's members are consecutive."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, task in enumerate(tasks):
        params = task.params()
        env = bench.render_env(resolve_values(bench.cases[task.case_index], params))
        groups.setdefault(_key(bench.name, task.case_index, 0, params, env, param), []).append(i)
    return [i for members in groups.values() for i in members]


def stream_batches(
    invocations: Iterable[Invocation], *, param: str, size: int, position: int
) -> Iterator[Batch]:
    """`make_batches` of invocations whose batches' members come consecutively (tasks in
    `batch_order`, repeat after repeat), each batch made as it is asked for: a sweep holds
    one batch of invocations, not the whole plan."""
    run: list[Invocation] = []
    current: tuple[object, ...] | None = None
    for inv in invocations:
        key = _key(inv.bench, inv.case_index, inv.repeat, inv.params, inv.env, param)
        if run and (key != current or len(run) >= size):
            yield Batch(param=param, members=tuple(run), position=position)
            run = []
        current = key
        run.append(inv)
    if run:
        yield Batch(param=param, members=tuple(run), position=position)
