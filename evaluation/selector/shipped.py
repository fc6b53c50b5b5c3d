"""Which saved selector ``select``, ``header`` and ``tune-shapes`` use by default, and the
held-out figure that decided it (``benchspace cutlass evaluate DATASET --shipped A B``
prints it; rerun it when a selector is retrained). Pure."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchspace.evaluation import DATA_DIR


@dataclass(frozen=True, kw_only=True, slots=True)
class ShippedDecision:
    """The default selector and why."""

    model: str
    """File name under ``evaluation/data/models``."""
    figure: str
    """The held-out figure that decided it."""
    command: str
    """The command that prints the figure."""


DECISION = ShippedDecision(
    model="h200_selector.json",
    figure=(
        "v1 until this held-out comparison has been run to the end; it names the better "
        "of v1 and v2 by the mean regret of select on dataset v2's 64 evaluation shapes"
    ),
    command=(
        "benchspace cutlass evaluate evaluation/data/h200/v2 --shipped "
        "evaluation/data/models/h200_selector.json v2_train.json (v2_train.json: benchspace "
        "cutlass train evaluation/data/h200/v2 --split train --out v2_train.json)"
    ),
)

SHIPPED_PATH = DATA_DIR / "models" / DECISION.model


def shipped_line(path: str | Path) -> str | None:
    """The line naming the default selector and the figure that decided it; None for another."""
    if Path(path).resolve() != SHIPPED_PATH.resolve():
        return None
    return f"selector: {SHIPPED_PATH.name} (the default: {DECISION.figure}; `{DECISION.command}`)"
