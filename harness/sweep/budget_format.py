"""The sweep's plan as text (``benchspace tune --plan``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchspace.harness.sweep.budget import BenchBudget, total_invocations


def render_budget(path: Path, budgets: Sequence[BenchBudget]) -> str:
    """The plan as text: one line per bench and the total."""
    lines = [f"plan of {path}:"]
    width = max((len(b.bench) for b in budgets), default=5)
    for b in budgets:
        lines.append(
            f"  {b.bench:<{width}}  {b.cases:>7,} cases  {b.configurations:>11,} configurations"
            f"  x {b.repeats} = {b.invocations:>11,} invocations"
        )
    lines.append(f"  total: {total_invocations(budgets):,} invocations")
    return "\n".join(lines)
