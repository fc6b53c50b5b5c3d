"""The sweep's budget: how many configurations and invocations a space plans, before any runs.

Pure. ``plan_budget`` expands and counts each selected bench (pre-tune phases and the main
sweep, a sampled parameter at most its budget, repeats included); ``check_budget`` refuses a
sweep over ``--max-invocations`` with the count and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.spaces.model import Bench, Space, bench_invocations

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

    @property
    def invocations(self) -> int:
        """Configurations times repeats."""
        return self.configurations * self.repeats


def bench_repeats(bench: Bench, override: int | None) -> int:
    """The process-level repeats a sweep of ``bench`` runs (``--repeats`` wins)."""
    if override is not None:
        return override
    return bench.repeats if bench.repeats is not None else 1


def plan_budget(
    space: Space, *, benches: Sequence[str] = (), repeats: int | None = None
) -> tuple[BenchBudget, ...]:
    """Per selected bench (every bench when ``benches`` is empty), its planned size."""
    return tuple(
        BenchBudget(
            bench=b.name,
            cases=len(b.cases),
            configurations=bench_invocations(b),
            repeats=bench_repeats(b, repeats),
        )
        for b in space.benches
        if not benches or b.name in benches
    )


def total_invocations(budgets: Sequence[BenchBudget]) -> int:
    """Invocations of the whole sweep."""
    return sum(b.invocations for b in budgets)


def check_budget(path: Path, budgets: Sequence[BenchBudget], limit: int) -> None:
    """Refuse a sweep of more than ``limit`` invocations (``0``: no limit)."""
    total = total_invocations(budgets)
    if limit == 0 or total <= limit:
        return
    largest = sorted(budgets, key=lambda b: -b.invocations)[:3]
    parts = "; ".join(
        f"bench {b.bench}: {b.configurations:,} configurations x {b.repeats} "
        f"repeat{'s' if b.repeats != 1 else ''}"
        for b in largest
    )
    raise BenchspaceError(
        f"{path}: {total:,} invocations planned ({parts}), more than --max-invocations "
        f"{limit}; raise it (0: no limit) or trim the grid (benchspace sensitivity "
        "--write-pruned)"
    )
