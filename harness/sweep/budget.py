"""The sweep's budget: how many configurations and invocations a space plans, before any runs.

Pure. ``plan_budget`` expands and counts each selected bench (pre-tune phases and the main
sweep, a sampled parameter at most its budget, repeats included; with ``--race`` or ``--stop``
the least and the most a configuration takes, with ``--confirm`` the most its confirmation
rounds can add); ``check_budget`` refuses a sweep whose most is over ``--max-invocations``,
with the count and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.measurement import Value
from benchspace.harness.spaces.model import (
    Bench,
    Space,
    bench_invocations,
    case_combos,
    phase_combos,
)

DEFAULT_MAX_INVOCATIONS = 100_000
"""``--max-invocations`` unless told: a sweep beyond it is a grid to trim, not to start."""


@dataclass(frozen=True, kw_only=True)
class BenchBudget:
    """What one bench's sweep will run."""

    bench: str
    cases: int
    configurations: int
    """Configurations one repeat measures (pre-tune phases and the main sweep)."""
    repeats: int
    """Repeats per configuration (with a race: the cap)."""
    least_repeats: int | None = None
    """With ``--race`` / ``--stop``: the repeats every configuration takes before any stops."""
    confirm_most: int = 0
    """With ``--confirm``: the most invocations its rounds can add (every pick, to the cap)."""

    @property
    def invocations(self) -> int:
        """Configurations times repeats (with a race: the most it can take)."""
        return self.configurations * self.repeats

    @property
    def least_per_configuration(self) -> int:
        """The repeats every configuration takes (a race: min-repeats, at most the cap)."""
        return min(self.least_repeats or self.repeats, self.repeats)

    @property
    def least_invocations(self) -> int:
        """The least the sweep can take (a race: every configuration at min-repeats)."""
        return self.configurations * self.least_per_configuration


@dataclass(frozen=True, kw_only=True)
class Confirming:
    """``--confirm K``: the top K per case (and the incumbent and the default), each to
    ``most_rounds`` (the confirmation's rounds, or its cap when raced)."""

    k: int
    most_rounds: int
    incumbents: Mapping[str, Mapping[int, Mapping[str, Value]]] = field(default_factory=dict)
    """Per bench, per case: the header's values (a pre_tune phase confirms every combination
    that holds them)."""

    def most(self, bench: Bench) -> int:
        """The most invocations the confirmation of `bench` can take: per case the top K by
        the case's figures, the cross-case top K's configurations, the incumbent and the
        default; per pre_tune phase its top K and the combinations holding the incumbent's
        values, over the phase's cases."""
        per_case = sum(min(case_combos(bench, c), 2 * self.k + 2) for c in bench.cases)
        phases = 0
        for phase in bench.pre_tune:
            mine = self.incumbents.get(bench.name, {})
            held = {n for c in phase.cases for n in mine.get(c, {}) if n in phase.params}
            holding = math.prod(len(g) for n, g in phase.params.items() if n not in held)
            picks = min(phase_combos(phase), self.k + (holding if held else 0))
            phases += picks * len(phase.cases)
        return (per_case + phases) * self.most_rounds


def bench_repeats(bench: Bench, override: int | None) -> int:
    """The process-level repeats a sweep of ``bench`` runs (``--repeats`` wins)."""
    if override is not None:
        return override
    return bench.repeats if bench.repeats is not None else 1


def plan_budget(
    space: Space,
    *,
    benches: Sequence[str] = (),
    repeats: int | None = None,
    least_repeats: int | None = None,
    confirming: Confirming | None = None,
) -> tuple[BenchBudget, ...]:
    """Per selected bench (every bench when ``benches`` is empty), its planned size;
    `least_repeats` with a race or ``--stop``, `confirming` with ``--confirm``."""
    return tuple(
        BenchBudget(
            bench=b.name,
            cases=len(b.cases),
            configurations=bench_invocations(b),
            repeats=bench_repeats(b, repeats),
            least_repeats=least_repeats,
            confirm_most=confirming.most(b) if confirming is not None else 0,
        )
        for b in space.benches
        if not benches or b.name in benches
    )


def total_invocations(budgets: Sequence[BenchBudget]) -> int:
    """Invocations of the whole sweep (the most, with a race; the confirmation apart)."""
    return sum(b.invocations for b in budgets)


def total_least(budgets: Sequence[BenchBudget]) -> int:
    """The least the whole sweep can take."""
    return sum(b.least_invocations for b in budgets)


def total_confirm(budgets: Sequence[BenchBudget]) -> int:
    """The most the confirmation can add."""
    return sum(b.confirm_most for b in budgets)


def check_budget(path: Path, budgets: Sequence[BenchBudget], limit: int) -> None:
    """Refuse a sweep of more than ``limit`` invocations (``0``: no limit)."""
    total = total_invocations(budgets) + total_confirm(budgets)
    if limit == 0 or total <= limit:
        return
    largest = sorted(budgets, key=lambda b: -b.invocations)[:3]
    parts = "; ".join(
        f"bench {b.bench}: {b.configurations:,} configurations x {b.repeats} "
        f"repeat{'s' if b.repeats != 1 else ''}"
        for b in largest
    )
    bounded = bool(confirm := total_confirm(budgets)) or total_least(budgets) < total
    if confirm:
        parts += f"; the confirmation at most {confirm:,}"
    raise BenchspaceError(
        f"{path}: {'up to ' if bounded else ''}{total:,} invocations planned ({parts}), "
        f"more than --max-invocations "
        f"{limit}; raise it (0: no limit) or trim the grid (benchspace sensitivity "
        "--write-pruned)"
    )
