"""Which selector and header to ship: judged on held-out measured shapes (recorded data).

Per selector (trained without the judged shapes): ``select``'s pick at each evaluation shape,
its regret against the shape's measured CUTLASS best and its ratio to the cuBLASLt heuristic
timed in the same runs; then the selector's header three ways (:mod:`evaluation.deploy.
leaf_policy`, leaves decided on the training shapes only): CUTLASS-only, CUTLASS-or-heuristic
(``cublas`` leaves), CUTLASS-or-pinned-cuBLASLt. A choice never timed at a shape (a kernel the
shape's runs left out, a pinned key cuBLASLt did not list there) has no figure: it is counted
as not measured, never guessed. ``cublas`` is the heuristic itself (ratio 1).

Pure: tables in, records out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.cublas_evidence import SHAPE, CublasEvidence
from benchspace.evaluation.deploy.gemm_dispatch import CUBLAS, GemmDispatch

SHAPE_FLOOR = 0.95
"""The per-shape goal: no evaluation shape below this ratio to the heuristic."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ShippedRow:
    """One way of choosing, judged on the evaluation shapes."""

    name: str
    shapes: int
    measured: int
    geomean: float
    """Ratio to the heuristic, geometric mean over the measured shapes."""
    worst: float
    below_floor: int
    ahead: int
    regret_mean: float
    """Regret against the shape's measured CUTLASS best (CUTLASS choices only; nan if none)."""
    cublas_shapes: int = 0
    pinned_shapes: int = 0


def per_shape(choices: Sequence[str], evidence: CublasEvidence) -> pd.DataFrame:
    """Per evaluation shape (``evidence.shapes`` order): what ran, its ratio to the heuristic
    (nan: not measured) and, for a CUTLASS choice, its regret against the CUTLASS best.

    ``choices``: per shape a CUTLASS ``kernel:raster:swizzle`` key, ``cublas`` or a pinned key.
    """
    shapes = evidence.shapes.reset_index(drop=True)
    c = evidence.cutlass
    keyed = c.assign(
        choice=c["kernel"] + ":" + c["raster"].astype(str) + ":" + c["swizzle"].astype(str)
    )
    t = {(int(m), int(n), int(k), str(ch)): float(v) for m, n, k, ch, v in
         keyed[[*SHAPE, "choice", "tflops"]].itertuples(index=False)}  # fmt: skip
    best = keyed.groupby(SHAPE)["tflops"].max()
    ratio_of = {(int(m), int(n), int(k), str(key)): float(r) for m, n, k, key, r in
                evidence.configs[[*SHAPE, "key", "ratio"]].itertuples(index=False)}  # fmt: skip
    records = []
    for (m, n, k, heur), choice in zip(
        shapes[[*SHAPE, "heuristic_tflops"]].itertuples(index=False), choices, strict=True
    ):
        shape = (int(m), int(n), int(k))
        regret = np.nan
        if choice == CUBLAS:
            ratio = 1.0
        elif choice.startswith("cublaslt:"):
            ratio = ratio_of.get((*shape, choice), np.nan)
        else:
            tflops = t.get((*shape, choice), np.nan)
            ratio = tflops / float(heur)
            if shape in best.index:
                regret = 1.0 - tflops / float(best.loc[shape])
        records.append((*shape, choice, ratio, regret))
    return pd.DataFrame.from_records(records, columns=[*SHAPE, "choice", "ratio", "regret"])


def summarise(name: str, table: pd.DataFrame) -> ShippedRow:
    """The row of one way of choosing."""
    measured = table[np.isfinite(table["ratio"])]
    ratios = measured["ratio"].to_numpy(dtype=np.float64)
    regret = table["regret"].to_numpy(dtype=np.float64)
    regret = regret[np.isfinite(regret)]
    return ShippedRow(
        name=name,
        shapes=len(table),
        measured=len(measured),
        geomean=float(np.exp(np.mean(np.log(ratios)))) if len(ratios) else np.nan,
        worst=float(ratios.min()) if len(ratios) else np.nan,
        below_floor=int((ratios < SHAPE_FLOOR).sum()),
        ahead=int((ratios > 1.0).sum()),
        regret_mean=float(regret.mean()) if len(regret) else np.nan,
        cublas_shapes=int((table["choice"] == CUBLAS).sum()),
        pinned_shapes=int(table["choice"].str.startswith("cublaslt:").sum()),
    )


def header_choices(dispatch: GemmDispatch, evidence: CublasEvidence) -> list[str]:
    """The header's choice at each evaluation shape, as :func:`per_shape` keys."""
    points = evidence.shapes[SHAPE].to_numpy(dtype=np.int64)
    keys = {p.enum_name: p.key for p in dispatch.pinned}
    out = []
    for code in dispatch.choose(points):
        c = dispatch.choices[int(code)]
        if c.kernel == CUBLAS or c.kernel in keys:
            out.append(keys.get(c.kernel, CUBLAS))
        else:
            out.append(f"{c.kernel}:{c.raster}:{c.swizzle}")
    return out


def render_rows(rows: Sequence[ShippedRow], title: str) -> list[str]:
    """A markdown table of the rows."""
    lines = [
        title,
        "",
        "| choosing | measured | vs heuristic (geomean) | worst | below 0.95 | ahead | "
        "CUTLASS regret (mean) | cublas | pinned |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        regret = "n/a" if not np.isfinite(r.regret_mean) else f"{100 * r.regret_mean:.2f} %"
        lines.append(
            f"| {r.name} | {r.measured} of {r.shapes} | {r.geomean:.3f}x | {r.worst:.3f}x | "
            f"{r.below_floor} | {r.ahead} | {regret} | {r.cublas_shapes} | {r.pinned_shapes} |"
        )
    missing = [r for r in rows if r.measured < r.shapes]
    if missing:
        lines.append("")
        lines.append(
            "not measured: a choice the recorded runs never timed at a shape (no figure; "
            "`scripts/device/shipped_header_configs.py` lists what to time)"
        )
    return lines
