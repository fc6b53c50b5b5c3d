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
    model="h200_selector_v2_train.json",
    figure=(
        "the v2 selector trained on dataset v2's 240 training shapes; on its 64 held-out "
        "evaluation shapes select's mean regret is the lower of v1 and v2 (evaluation/README.md, "
        "the shipped-decision block)"
    ),
    command=(
        "benchspace cutlass evaluate evaluation/data/h200/v2 --shipped "
        "evaluation/data/models/h200_selector.json "
        "evaluation/data/models/h200_selector_v2_train.json"
    ),
)

SHIPPED_PATH = DATA_DIR / "models" / DECISION.model


def shipped_line(path: str | Path) -> str | None:
    """The line naming the default selector and the figure that decided it; None for another."""
    if Path(path).resolve() != SHIPPED_PATH.resolve():
        return None
    return f"selector: {SHIPPED_PATH.name} (the default: {DECISION.figure}; `{DECISION.command}`)"
