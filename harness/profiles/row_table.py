"""A bench's main-sweep rows folded as its attempts arrive, held compactly, each row made when
read (pure).

A sweep of 10^6 configurations cannot hold every attempt, its aggregate and its profile row
at once: `RowCollector` keeps per planned task only what the row needs (the first repeat's
argv and env, each repeat's value and spread), and `RowTable` is the rows in the profile's
order, a `MeasurementRow` made each time one is read (``write_profile`` reads them one at a
time). The rows are those `bench_result` makes from the same attempts.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, overload

from benchspace.harness.measurement import Measurement, RepeatSummary
from benchspace.harness.plan import Config, MainPlan, Task
from benchspace.harness.profiles.model import BenchResult, LazyRows, MeasurementRow
from benchspace.harness.profiles.results import assemble, failure_of, measurement_row
from benchspace.harness.profiles.scoring import Aggregate, better
from benchspace.harness.spaces.model import Bench

_NO_ENV: Mapping[str, str | None] = MappingProxyType({})

Part = tuple[int, float | None, float | None, tuple[str, ...], Mapping[str, str | None]]
"""One repeat: (repeat, value or None when it failed, spread, argv, env)."""

Cell = tuple[Any, ...]
"""One row: (task, argv, env, spread, *samples)."""


def _cell(task: Task, parts: Sequence[Part]) -> Cell:
    """What `aggregate` makes of a task's attempts: values and spreads in repeat order, the
    first repeat's argv and env."""
    ordered = sorted(parts, key=lambda p: p[0]) if len(parts) > 1 else parts
    samples = [p[1] for p in ordered if p[1] is not None]
    spreads = [p[2] for p in ordered if p[1] is not None and p[2] is not None]
    spread = (sum(spreads) / len(spreads)) if spreads else None
    _, _, _, argv, env = ordered[0]
    return (task, argv, env, spread, *samples)


def _aggregate(cell: Cell) -> Aggregate:
    task, argv, env, spread, *samples = cell
    return Aggregate(
        case_index=task.case_index,
        config=task.config,
        summary=RepeatSummary.of(samples) if samples else None,
        samples=tuple(samples),
        spread=spread,
        argv=argv,
        env=env,
        failures=(),
    )


class RowCollector:
    """Folds a main sweep's attempts, told as (position among the invocations, attempt): the
    invocations are every task of ``tasks`` per repeat, repeat after repeat."""

    def __init__(self, tasks: Sequence[Task], order: Sequence[int] | None = None) -> None:
        self.tasks: Sequence[Task] = tasks if order is None else [tasks[i] for i in order]
        """The tasks in the order they are measured: ``order`` (positions in ``tasks``), or
        as given."""
        self._order = None if order is None else array("q", order)
        self._parts: list[Part | list[Part] | None] = [None] * len(tasks)
        self.failures: list[tuple[int, Measurement]] = []
        """The failed attempts with their positions (the profile lists them in plan order)."""

    def plan_position(self, position: int) -> int:
        """Where an invocation measured at ``position`` stands in the plan's own order."""
        if self._order is None:
            return position
        n = len(self.tasks)
        return position // n * n + self._order[position % n]

    def add(self, position: int, m: Measurement) -> None:
        """Fold one attempt (already filed under its task's case and parameters)."""
        if not m.ok:
            self.failures.append((position, m))
        value = m.value if m.ok else None
        argv = tuple(map(sys.intern, m.argv))
        part: Part = (m.repeat, value, m.spread, argv, m.env or _NO_ENV)
        index = position % len(self.tasks)
        held = self._parts[index]
        if held is None:
            self._parts[index] = part
        elif isinstance(held, list):
            held.append(part)
        else:
            self._parts[index] = [held, part]

    def table(self, bench: Bench) -> RowTable:
        """The rows, by case then configuration (its text), as `in_order` sorts aggregates;
        the collector is emptied."""
        by_case: dict[int, list[int]] = {}
        for index, task in enumerate(self.tasks):
            if self._parts[index] is not None:
                by_case.setdefault(task.case_index, []).append(index)
        cells: list[Cell] = []
        for case in sorted(by_case):
            indices = by_case.pop(case)
            indices.sort(key=lambda i: repr(self.tasks[i].config))
            for i in indices:
                held = self._parts[i]
                assert held is not None
                cells.append(_cell(self.tasks[i], held if isinstance(held, list) else [held]))
                self._parts[i] = None
        return RowTable(bench, cells)


class RowTable(LazyRows):
    """Rows held as cells; a `MeasurementRow` is made each time one is read."""

    __slots__ = ("_bench", "_cells")

    def __init__(self, bench: Bench, cells: Sequence[Cell]) -> None:
        self._bench = bench
        self._cells = cells

    def __len__(self) -> int:
        return len(self._cells)

    @overload
    def __getitem__(self, index: int) -> MeasurementRow: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[MeasurementRow]: ...
    def __getitem__(self, index: int | slice) -> MeasurementRow | Sequence[MeasurementRow]:
        if isinstance(index, slice):
            return RowTable(self._bench, self._cells[index])
        return measurement_row(self._bench, _aggregate(self._cells[index]))

    def __iter__(self) -> Iterator[MeasurementRow]:
        bench = self._bench
        return (measurement_row(bench, _aggregate(cell)) for cell in self._cells)

    def valued(self) -> RowTable:
        """The rows with a value (at least one successful repeat)."""
        return RowTable(self._bench, [c for c in self._cells if len(c) > 4])

    def aggregates(self) -> Iterator[Aggregate]:
        """Each row's aggregate, in order."""
        return (_aggregate(cell) for cell in self._cells)

    def case_samples(self) -> Iterator[tuple[int, list[tuple[Config, list[float]]]]]:
        """Case by case, each row's configuration and samples (rows with a value only)."""
        group: list[tuple[Config, list[float]]] = []
        case: int | None = None
        for task, _, _, _, *samples in self._cells:
            if not samples:
                continue
            if task.case_index != case and group:
                assert case is not None
                yield case, group
                group = []
            case = task.case_index
            group.append((task.config, samples))
        if group:
            assert case is not None
            yield case, group

    def samples_of(self, params: Mapping[str, object]) -> int:
        """How many samples the rows whose parameters all lie in ``params`` hold."""
        return sum(
            len(c) - 4 for c in self._cells if all(params.get(k) == v for k, v in c[0].config)
        )


def table_result(
    bench: Bench,
    *,
    plan: MainPlan,
    collector: RowCollector,
    pre_measurements: Sequence[Measurement],
    pre_tune: Sequence[Any],
    topk: int,
    exe_sha256: str = "",
) -> BenchResult:
    """`bench_result` of the pre-tune attempts and the collector's main sweep."""
    table = collector.table(bench)
    bests: dict[int, Aggregate] = {}
    covering = plan.covering(len(bench.cases))
    wanted = {(c.index, plan.case_config(combo, c)) for combo in covering for c in bench.cases}
    found: dict[tuple[int, Config], Aggregate] = {}
    for agg in table.aggregates():
        if agg.summary is not None:
            current = bests.get(agg.case_index)
            if current is None or (
                current.summary is not None
                and better(agg.summary.median, current.summary.median, bench.direction)
            ):
                bests[agg.case_index] = agg
        if (agg.case_index, agg.config) in wanted:
            found[agg.case_index, agg.config] = agg
    ordered = sorted(collector.failures, key=lambda pm: collector.plan_position(pm[0]))
    main_failures = [m for _, m in ordered]
    failures = [failure_of(m) for m in pre_measurements if not m.ok]
    failures += [failure_of(m) for m in main_failures]
    return assemble(
        bench,
        plan=plan,
        rows=table,
        bests=bests,
        lookup=found,
        failures=failures,
        pre_tune=pre_tune,
        topk=topk,
        exe_sha256=exe_sha256,
    )
