"""The sweep's plan as text (``benchspace tune --plan``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchspace.harness.sweep.budget import (
    BenchBudget,
    total_confirm,
    total_invocations,
    total_least,
)


def _span(least: int, most: int) -> str:
    return f"{most:,}" if least == most else f"{least:,} to {most:,}"


def render_budget(path: Path, budgets: Sequence[BenchBudget]) -> str:
    """The plan as text: one line per bench and the total (with a race, the least and the
    most it can take; with a confirmation, the most its rounds can add)."""
    lines = [f"plan of {path}:"]
    width = max((len(b.bench) for b in budgets), default=5)
    for b in budgets:
        repeats = _span(b.least_per_configuration, b.repeats)
        line = (
            f"  {b.bench:<{width}}  {b.cases:>7,} cases  {b.configurations:>11,} configurations"
            f"  x {repeats} = {_span(b.least_invocations, b.invocations):>11}"
            " invocations"
        )
        if b.confirm_most:
            line += f", confirmation at most {b.confirm_most:,}"
        lines.append(line)
    total = f"  total: {_span(total_least(budgets), total_invocations(budgets))} invocations"
    if any(b.least_repeats is not None for b in budgets):
        total += " (each configuration from --min-repeats to the cap)"
    if confirm := total_confirm(budgets):
        total += f"; the confirmation at most {confirm:,} more"
    lines.append(total)
    return "\n".join(lines)
