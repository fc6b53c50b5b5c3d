"""A measured header's speed, told by rounds that did not pick its winners.

``tune --confirm`` re-times the finalists, and ``cutlass header --from-profile`` judges each
shape's winner on those confirmation rounds. With every configuration confirmed, the
confirmation both picks and reports, so its figure carries the winner's curse again. This
module picks each shape's winner on the *selection* rounds alone (the same choice set: CUTLASS,
``cublas:heuristic``, pinned cuBLASLt configurations) and reports that pick's speed over
``cublas:heuristic`` as the *confirmation* rounds timed both: figures from runs that did not
choose. The selection rounds' own figure and the confirmation's self-judged figure are printed
beside it, so the bias each carries can be read off.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.measured_header import shape_summary
from benchspace.evaluation.deploy.shortlist import CUBLAS_HEURISTIC
from benchspace.harness.profiles.model import Profile

Shape = tuple[int, int, int]


@dataclass(frozen=True, kw_only=True, slots=True)
class PickFigures:
    """Geometric means of the header's pick over ``cublas:heuristic`` across ``shapes``."""

    shapes: int
    held_out: float
    """Picked on the selection rounds, both timed in the confirmation rounds."""
    held_out_ahead: int
    """Shapes where that pick beat the heuristic in the confirmation rounds."""
    selection: float
    """Picked and timed on the selection rounds (the figure the selection would print)."""
    self_judged: float
    """Picked and timed on the confirmation rounds (what the header's report is judged on)."""
    autotune: float = math.nan
    """cuBLASLt's own autotune (the best of ``cublas:heuristic`` and ``cublas:algo<i>``, what
    TunableOp does) picked on the selection rounds, timed in the confirmation rounds."""
    over_autotune: float = math.nan
    """The header's pick over that autotune's, both timed in the confirmation rounds."""
    autotune_shapes: int = 0


def selection_medians(profile: Profile) -> dict[tuple[Shape, str], float]:
    """Per (shape, ``kernel`` value): the selection rounds' median of each confirmed row."""
    out: dict[tuple[Shape, str], float] = {}
    for result in profile.results.values():
        for row in result.rows:
            config, fixed = row.param("kernel"), row.fixed
            if row.selection is None or not isinstance(config, str):
                continue
            if not {"M", "N", "K"} <= set(fixed):
                continue
            shape = (int(str(fixed["M"])), int(str(fixed["N"])), int(str(fixed["K"])))
            out[shape, config] = float(row.selection.median)
    return out


def selection_table(
    table: pd.DataFrame, selection: Mapping[tuple[Shape, str], float]
) -> pd.DataFrame:
    """``table`` (measured_header's columns) with each row's figure from the selection rounds
    (``selection``: per (shape, config) the selection median; rows without one keep theirs)
    and no row marked confirmed, so every row judges."""
    out = table.copy()
    keys = zip(out["M"], out["N"], out["K"], out["config"], strict=True)
    out["tflops"] = [
        selection.get(((int(m), int(n), int(k)), str(c)), float(t))
        for (m, n, k, c), t in zip(keys, out["tflops"], strict=True)
    ]
    out["confirmed"] = -1
    return out


def _timed(table: pd.DataFrame, shape: Shape, choice: str) -> float:
    """A choice's figure in ``table``: its row, or for a pinned key the best row running it."""
    here = table[(table["M"] == shape[0]) & (table["N"] == shape[1]) & (table["K"] == shape[2])]
    rows = here[(here["config"] == choice) | (here["pinned"] == choice)]
    return float(rows["tflops"].max()) if len(rows) else math.nan


def _geomean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v) and v > 0]
    return float(np.exp(np.mean(np.log(finite)))) if finite else math.nan


def pick_figures(confirmation: pd.DataFrame, selection: pd.DataFrame) -> PickFigures | None:
    """The header's pick judged three ways (see :class:`PickFigures`); None when the table
    has no confirmation rows (nothing did not choose)."""
    confirmed = confirmation[confirmation["confirmed"] == 1]
    if confirmed.empty:
        return None
    picked = {w.shape: w for w in shape_summary(selection)}
    judged = {w.shape: w for w in shape_summary(confirmed)}
    held, sel, own, auto, over = [], [], [], [], []
    for shape, pick in picked.items():
        base = _timed(confirmed, shape, CUBLAS_HEURISTIC)
        mine = _timed(confirmed, shape, pick.winner)
        if not (math.isfinite(base) and math.isfinite(mine)) or shape not in judged:
            continue
        held.append(mine / base)
        sel.append(pick.winner_tflops / pick.cublas_tflops)
        own.append(judged[shape].winner_tflops / judged[shape].cublas_tflops)
        tuned = _timed(confirmed, shape, _autotune_pick(selection, shape))
        if math.isfinite(tuned):
            auto.append(tuned / base)
            over.append(mine / tuned)
    return PickFigures(
        shapes=len(held),
        held_out=_geomean(held),
        held_out_ahead=sum(r > 1.0 for r in held),
        selection=_geomean(sel),
        self_judged=_geomean(own),
        autotune=_geomean(auto),
        over_autotune=_geomean(over),
        autotune_shapes=len(auto),
    )


def _autotune_pick(selection: pd.DataFrame, shape: Shape) -> str:
    """The shape's fastest ``cublas:*`` row of the selection rounds ('' when none)."""
    here = selection[
        (selection["M"] == shape[0]) & (selection["N"] == shape[1]) & (selection["K"] == shape[2])
    ]
    cublas = here[here["config"].astype(str).str.startswith("cublas:")]
    if cublas.empty:
        return ""
    return str(cublas["config"].to_numpy()[int(np.argmax(cublas["tflops"].to_numpy()))])


def render_pick_figures(figures: PickFigures | None, k: int | None) -> str:
    """One line for the header's report."""
    if figures is None:
        return (
            "header / cuBLAS heuristic: no confirmation rounds, so no figure from rounds that "
            "did not pick (`benchspace tune --confirm` re-times the finalists)"
        )
    top = f"top {k}" if k else "the shortlist"
    return (
        f"header ({top}) / cuBLAS heuristic, geometric mean over {figures.shapes} shapes: "
        f"{figures.held_out:.3f} picked on the selection rounds and timed in the confirmation "
        f"rounds (ahead on {figures.held_out_ahead}); the selection rounds alone "
        f"{figures.selection:.3f}; picked and timed on the confirmation rounds "
        f"{figures.self_judged:.3f}"
        + (
            f"; cuBLASLt's autotune (best of cublas:heuristic and cublas:algo<i>, picked and "
            f"timed the same way) {figures.autotune:.3f}, the header over it "
            f"{figures.over_autotune:.4f} ({figures.autotune_shapes} shapes)"
            if figures.autotune_shapes
            else ""
        )
    )
