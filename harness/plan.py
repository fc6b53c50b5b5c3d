"""Planning: expand a bench's cases and grids into the configurations a sweep must measure.

Pure: no files, subprocesses, clocks or environment. The semantics follow the space format:

* Per-case grids are searched as a union. A *combo* assigns a value to every key of the
  union; a case runs the combo only when each key the case tunes takes a value from the
  case's own list, and runs its *projection* onto the keys it tunes (so a case never receives
  a value it did not ask for, and two combos with the same projection are measured once).
* Only combos legal for every case can enter the cross-case ``best``/``top``.
* Pre-tune phases run first, over their own cases; parameters a phase does not tune take the
  first value of the case's own grid. Their winners become fixed for every later phase and
  for the main sweep.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from benchspace.harness.spaces.model import Bench, Case, count_invocations
from benchspace.harness.values import ParamValue, exact_key, order_key

# Re-exported: the count is the space's (plans match it), the value type is harness.values'.
__all__ = ["ParamValue", "count_invocations"]

Config = tuple[tuple[str, ParamValue], ...]
"""A configuration: sorted (name, value) pairs of the tuned parameters. Hashable."""


def make_config(values: Mapping[str, ParamValue]) -> Config:
    """Freeze a parameter mapping into a hashable, order-independent configuration."""
    return tuple(sorted(values.items()))


@dataclass(frozen=True, kw_only=True, slots=True)
class Task:
    """One configuration of one case, to be measured ``repeats`` times."""

    bench: str
    case_index: int
    phase: str
    config: Config
    """Tuned parameters (grid, pre-tuned and env parameters)."""

    def params(self) -> dict[str, ParamValue]:
        """The tuned parameters as a dict."""
        return dict(self.config)


def union_grid(cases: Sequence[Case], exclude: Sequence[str] = ()) -> dict[str, list[ParamValue]]:
    """Per tuned key (first-seen order), the sorted union of its values over ``cases``."""
    grid: dict[str, dict[tuple[type, object], ParamValue]] = {}
    for case in cases:
        for key, values in case.tune.items():
            if key in exclude:
                continue
            bucket = grid.setdefault(key, {})
            for value in values:  # keyed by type too: 1, 1.0 and True stay distinct
                bucket.setdefault(exact_key(value), value)
    return {key: sorted(values.values(), key=order_key) for key, values in grid.items()}


def iter_combos(grid: Mapping[str, Sequence[ParamValue]]) -> Iterator[dict[str, ParamValue]]:
    """The Cartesian product of a grid, in a deterministic order."""
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values, strict=True))


def _allowed_sets(case: Case) -> dict[str, set[tuple[type, object]]]:
    """Per tuned key of a case, its values as a set (typed, like ``union_grid``)."""
    return {key: {exact_key(v) for v in values} for key, values in case.tune.items()}


def project(case: Case, combo: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
    """The part of a combo the case actually receives: the keys it tunes."""
    return {key: combo[key] for key in case.tune if key in combo}


@dataclass(frozen=True, kw_only=True)
class PreTunePlan:
    """The tasks of one pre-tune phase, grouped by the phase combo they test."""

    index: int
    combos: tuple[Config, ...]
    cases: tuple[int, ...]
    tasks: tuple[tuple[Config, Task], ...]
    """(phase combo, task) pairs; one task per (combo, case)."""


def plan_pre_tune(bench: Bench, index: int, resolved: Mapping[str, ParamValue]) -> PreTunePlan:
    """Tasks for pre-tune phase ``index`` given the winners of earlier phases."""
    phase = bench.pre_tune[index]
    combos: list[Config] = []
    tasks: list[tuple[Config, Task]] = []
    for combo in iter_combos(phase.params):
        frozen = make_config(combo)
        combos.append(frozen)
        for case_index in phase.cases:
            case = bench.cases[case_index]
            values: dict[str, ParamValue] = {}
            for key, grid in case.tune.items():
                if key not in phase.params and key not in resolved:
                    values[key] = grid[0]
            values.update(resolved)
            values.update(combo)
            task = Task(
                bench=bench.name,
                case_index=case_index,
                phase=f"pre_tune[{index}]",
                config=make_config(values),
            )
            tasks.append((frozen, task))
    return PreTunePlan(index=index, combos=tuple(combos), cases=phase.cases, tasks=tuple(tasks))


@dataclass(frozen=True, kw_only=True)
class MainPlan:
    """The main sweep of one bench: combos of the union grid and the per-case tasks."""

    grid: Mapping[str, tuple[ParamValue, ...]]
    resolved: Mapping[str, ParamValue]
    combos: tuple[Config, ...]
    legal: Mapping[Config, tuple[int, ...]]
    """Combo -> indices of the cases for which it is legal."""
    tasks: tuple[Task, ...]
    """Distinct (case, projected configuration) pairs, in combo order."""

    def covering(self, n_cases: int) -> tuple[Config, ...]:
        """Combos legal for every case."""
        return tuple(c for c in self.combos if len(self.legal[c]) == n_cases)

    def case_config(self, combo: Config, case: Case) -> Config:
        """The configuration a case runs for a combo (its projection plus pre-tuned values)."""
        values = project(case, dict(combo))
        values.update(self.resolved)
        return make_config(values)


def plan_main(bench: Bench, resolved: Mapping[str, ParamValue]) -> MainPlan:
    """Tasks of the main sweep, with pre-tune winners ``resolved`` fixed.

    Linear in the number of (combo, legal case) pairs: per combo, only the cases that allow
    its value of the most selective key are looked at (an inverted index), not every case."""
    grid = union_grid(bench.cases, exclude=tuple(resolved))
    combos: list[Config] = []
    legal: dict[Config, tuple[int, ...]] = {}
    tasks: list[Task] = []
    seen: set[tuple[int, Config]] = set()
    shared: dict[Config, Config] = {}
    candidates = _candidates(bench.cases, grid)
    pivot = max(grid, key=lambda k: len(grid[k])) if grid else None
    checks = [
        (case, [(key, values) for key, values in _allowed_sets(case).items() if key in grid])
        for case in bench.cases
    ]
    resolved_items = tuple(resolved.items())
    for combo in iter_combos(grid):
        frozen = make_config(combo)
        combos.append(frozen)
        ok_cases = []
        pool = range(len(checks)) if pivot is None else candidates[exact_key(combo[pivot])]
        for position in pool:
            case, sets = checks[position]
            if not all(exact_key(combo[key]) in values for key, values in sets):
                continue
            ok_cases.append(case.index)
            values = {key: combo[key] for key in case.tune if key in combo}
            values.update(resolved_items)
            # One tuple per distinct configuration, shared by the cases that run it (a plan of
            # 10^6 tasks holds far fewer configurations).
            config = make_config(values)
            config = shared.setdefault(config, config)
            if (case.index, config) in seen:
                continue
            seen.add((case.index, config))
            tasks.append(Task(bench=bench.name, case_index=case.index, phase="main", config=config))
        legal[frozen] = tuple(ok_cases)
    return MainPlan(
        grid={k: tuple(v) for k, v in grid.items()},
        resolved=dict(resolved),
        combos=tuple(combos),
        legal=legal,
        tasks=tuple(tasks),
    )


def _candidates(
    cases: Sequence[Case], grid: Mapping[str, Sequence[ParamValue]]
) -> dict[tuple[type, object], list[int]]:
    """Per value of the grid's most selective key, the positions (in order) of the cases that
    allow it: those listing it, and those that do not tune the key at all."""
    if not grid:
        return {}
    pivot = max(grid, key=lambda k: len(grid[k]))
    listing: dict[tuple[type, object], list[int]] = {exact_key(v): [] for v in grid[pivot]}
    free: list[int] = []
    for position, case in enumerate(cases):
        if pivot not in case.tune:
            free.append(position)
            continue
        for value in dict.fromkeys(exact_key(v) for v in case.tune[pivot]):
            listing[value].append(position)
    if not free:
        return listing
    return {value: sorted(positions + free) for value, positions in listing.items()}


Sampler = Callable[[Bench, Case], Sequence[ParamValue]]
"""Given a bench with a ``sample`` block and one of its cases, the subset of the sampled
parameter's grid to measure for that case (e.g. a budget of CUTLASS kernels per shape)."""


def apply_sample(bench: Bench, sampler: Sampler) -> Bench:
    """The bench with each case's grid of the sampled parameter cut to the sampler's choice."""
    if bench.sample is None:
        return bench
    param = bench.sample.param
    cases = []
    for case in bench.cases:
        if param not in case.tune:
            cases.append(case)
            continue
        chosen = tuple(sampler(bench, case))
        allowed = set(case.tune[param])
        kept = tuple(v for v in chosen if v in allowed)
        cases.append(replace(case, tune={**case.tune, param: kept or case.tune[param][:1]}))
    return replace(bench, cases=tuple(cases))
