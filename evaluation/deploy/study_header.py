"""The tune-my-shapes header of a cuBLASLt study (``scripts/device/cublaslt_wide.sh``): each
measured shape dispatches what won its selection run, and the header's figure is read in the
confirmation run, which did not choose it.

Input: a study folder's rows (driver v4 CSV, runs ``a`` = selection and ``d`` = confirmation)
and its selection finalists. The selection's candidates of a shape are its CUTLASS shortlist,
``cublas:heuristic`` and its pinned cuBLASLt configurations (``cublaslt:...``; the driver's
``cublas:algo<i>`` ranks are left out, their pinned twins stand for them); the winner is the
fastest of them in run ``a`` (:func:`evaluation.deploy.measured_header.shape_summary`), the
header is :func:`evaluation.deploy.measured_header.measured_dispatch`'s. Pure: frames in,
records out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.driver_csv import parse_config
from benchspace.evaluation.deploy.gemm_dispatch import CUBLAS, GemmDispatch
from benchspace.evaluation.deploy.measured_header import COLUMNS
from benchspace.evaluation.deploy.pinned import is_key
from benchspace.evaluation.deploy.shortlist import CUBLAS_ALGO, CUBLAS_HEURISTIC

SELECT, CONFIRM = "a", "d"


def _ok(rows: pd.DataFrame, run: str) -> pd.DataFrame:
    ok = rows[(rows["run"] == run) & (rows["status"] == "ok")]
    return ok[~ok["config"].astype(str).str.endswith("@last")]


def study_table(
    rows: pd.DataFrame, finalists: Mapping[str, Mapping[str, Sequence[str]]]
) -> pd.DataFrame:
    """Run ``a``'s candidates of every finalist shape in :data:`COLUMNS` (TFLOP/s from the
    median; a pinned key as a ``cublas:algo`` row whose ``pinned`` is the key, which is how
    the measured header takes pinned candidates)."""
    records = []
    for r in _ok(rows, SELECT).to_dict("records"):
        shape, config = f"{r['M']}x{r['N']}x{r['K']}", str(r["config"])
        entry = finalists.get(shape)
        if entry is None or config.startswith(CUBLAS_ALGO):
            continue
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        tflops = 2.0 * m * n * k / (float(r["ms_median"]) * 1e-3) / 1e12
        if config == CUBLAS_HEURISTIC:
            records.append((m, n, k, config, CUBLAS, "H", 1, tflops, -1, ""))
        elif is_key(config):
            records.append((m, n, k, f"{CUBLAS_ALGO}:{config}", CUBLAS, "H", 1, tflops, -1, config))
        elif config in entry.get("shortlist", ()):
            parsed = parse_config(config)
            records.append(
                (m, n, k, config, parsed.name, parsed.raster, parsed.swizzle, tflops, -1, "")
            )
    return pd.DataFrame.from_records(records, columns=COLUMNS)


@dataclass(frozen=True, kw_only=True)
class HeaderFigure:
    """The header's choices at the measured shapes, timed in the confirmation run beside the
    heuristic."""

    shapes: int
    timed: int
    """Shapes whose choice the confirmation run timed (the rest have no figure)."""
    geomean: float
    minimum: float
    ahead: int
    cutlass: int
    pinned: int
    cublas: int


def header_figure(dispatch: GemmDispatch, rows: pd.DataFrame) -> HeaderFigure:
    """Per measured shape the dispatch's choice, its time in run ``d`` against
    ``cublas:heuristic``'s there (a ``cublas`` choice is the heuristic itself: 1)."""
    d = _ok(rows, CONFIRM)
    times = {
        (int(m), int(n), int(k), str(c)): float(t)
        for m, n, k, c, t in d[["M", "N", "K", "config", "ms_median"]].to_numpy().tolist()
    }
    shapes = sorted({(m, n, k) for m, n, k, _ in times})
    chosen = dispatch.choose(np.array(shapes, dtype=np.int64)) if shapes else np.array([])
    keys = {p.enum_name: p.key for p in dispatch.pinned}
    ratios, kinds = [], {"cutlass": 0, "pinned": 0, "cublas": 0}
    for shape, c in zip(shapes, chosen, strict=True):
        choice = dispatch.choices[int(c)]
        heuristic = times.get((*shape, CUBLAS_HEURISTIC))
        if choice.kernel == CUBLAS:
            kinds["cublas"] += 1
            config = CUBLAS_HEURISTIC
        elif choice.kernel in keys:
            kinds["pinned"] += 1
            config = keys[choice.kernel]
        else:
            kinds["cutlass"] += 1
            config = choice.kernel
        mine = times.get((*shape, config))
        if heuristic is not None and mine is not None:
            ratios.append(heuristic / mine)
    v = np.array(ratios, dtype=float)
    return HeaderFigure(
        shapes=len(shapes),
        timed=len(ratios),
        geomean=float(np.exp(np.log(v).mean())) if v.size else float("nan"),
        minimum=float(v.min()) if v.size else float("nan"),
        ahead=int((v > 1).sum()),
        **kinds,
    )


def render_header_figure(figure: HeaderFigure) -> str:
    return (
        f"header at the {figure.shapes} measured shapes: {figure.cutlass} CUTLASS, "
        f"{figure.pinned} pinned cuBLASLt, {figure.cublas} cublas; chosen in run a, timed in "
        f"run d beside cublas:heuristic: geomean {figure.geomean:.4f} (min {figure.minimum:.3f}; "
        f"ahead on {figure.ahead} of {figure.timed})"
    )
