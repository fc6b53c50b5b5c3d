"""How much the header loses against the selector it was derived from.

On a fresh seeded sample of shapes (never the one the tree was grown on) the header's choice
is compared with ``select``'s argmax. The regret is *predicted*: both choices are judged by
the selector's own calibrated scores, ``1 - y(header) / y(select)``, so it measures fidelity to
the selector, not speed. Where a dataset's shapes were measured over every candidate (its
evaluation groups), the *measured* regret of both against the measured best, and of the
header against select's pick, is reported too. Leaves that name ``cublas`` have no predicted
score; their shapes are counted and left out of the predicted regret.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.kernel_header import CUBLAS, GemmDispatch, predicted_log_y
from benchspace.evaluation.deploy.select import candidate_pool, score_matrix
from benchspace.evaluation.deploy.shape_sample import sample_shapes, shape_tuples
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.harness.errors import UsageError


@dataclass(frozen=True, kw_only=True, slots=True)
class RegretStats:
    """Mean, median, p95 and max of a regret sample, and how many values."""

    count: int
    mean: float
    median: float
    p95: float
    max: float

    @staticmethod
    def of(values: np.ndarray) -> RegretStats:
        """Statistics of ``values`` (NaN when empty)."""
        v = np.asarray(values, dtype=np.float64)
        if not len(v):
            nan = float("nan")
            return RegretStats(count=0, mean=nan, median=nan, p95=nan, max=nan)
        return RegretStats(
            count=len(v),
            mean=float(v.mean()),
            median=float(np.median(v)),
            p95=float(np.percentile(v, 95)),
            max=float(v.max()),
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class HeaderCheck:
    """Predicted regret on the fresh sample; measured regrets on exhaustive groups."""

    samples: int
    seed: int
    predicted: RegretStats
    agreement: float
    """Share of sampled shapes where the header runs select's own pick."""
    cublas_shapes: int
    measured_vs_select: RegretStats | None = None
    measured_header: RegretStats | None = None
    measured_select: RegretStats | None = None


def _columns(dispatch: GemmDispatch, pool: pd.DataFrame) -> np.ndarray:
    """Pool column of each dispatch choice (-1 for ``cublas``)."""
    key = {
        (str(kernel), str(raster), int(swizzle)): i
        for i, (kernel, raster, swizzle) in enumerate(
            zip(pool["kernel"], pool["raster"], pool["swizzle"], strict=True)
        )
    }
    out = []
    for c in dispatch.choices:
        if c.kernel == CUBLAS:
            out.append(-1)
        elif (c.kernel, c.raster, c.swizzle) not in key:
            raise UsageError(f"header kernel {c.kernel!r} is not a candidate of this selector")
        else:
            out.append(key[(c.kernel, c.raster, c.swizzle)])
    return np.asarray(out, dtype=np.int64)


def _measured(
    selector: DeployedSelector,
    dispatch: GemmDispatch,
    labels: pd.DataFrame,
    layout: str | None,
) -> tuple[RegretStats, RegretStats, RegretStats]:
    groups = labels.groupby("group", sort=True)
    shapes = groups[["M", "N", "K"]].first()
    pool, scores = score_matrix(selector, shape_tuples(shapes.to_numpy()), layout)
    columns = _columns(dispatch, pool)
    header = columns[dispatch.choose(shapes.to_numpy())]
    select = scores.argmax(axis=1)
    key = (
        pool["kernel"].astype(str) + ":" + pool["raster"].astype(str) + ":"
        + pool["swizzle"].astype(str)
    ).to_numpy()  # fmt: skip
    vs, h_regret, s_regret = [], [], []
    for i, (group, rows) in enumerate(groups):
        t = dict(
            zip(
                rows["kernel"] + ":" + rows["raster"] + ":" + rows["swizzle"].astype(str),
                rows["tflops"],
                strict=True,
            )
        )
        best = float(rows["tflops"].max())
        t_select = t.get(key[select[i]])
        t_header = t.get(key[header[i]]) if header[i] >= 0 else None
        if t_select is not None:
            s_regret.append(1 - t_select / best)
        if t_header is not None:
            h_regret.append(1 - t_header / best)
        if t_select is not None and t_header is not None:
            vs.append(1 - t_header / t_select)
        del group
    return (
        RegretStats.of(np.array(vs)),
        RegretStats.of(np.array(h_regret)),
        RegretStats.of(np.array(s_regret)),
    )


def check_header(
    selector: DeployedSelector,
    dispatch: GemmDispatch,
    samples: int = 2000,
    seed: int = 1,
    layout: str | None = None,
    exhaustive: pd.DataFrame | None = None,
) -> HeaderCheck:
    """Regret of ``dispatch`` against ``selector``; ``exhaustive``: measured candidate rows
    (group, M, N, K, kernel, raster, swizzle, tflops) of groups measured over every kernel."""
    if seed == dispatch.spec.seed:
        raise UsageError(
            f"--check-seed {seed} is the seed the header was grown on; choose another so the "
            "check uses shapes the tree never saw"
        )
    candidate_pool(selector, layout)  # the layout error, before any work
    shapes = sample_shapes(dispatch.spec.domain, samples, seed)
    pool, scores = score_matrix(selector, shape_tuples(shapes), layout)
    logy = predicted_log_y(selector, scores)
    columns = _columns(dispatch, pool)
    chosen = columns[dispatch.choose(shapes)]
    cutlass = chosen >= 0
    rows = np.flatnonzero(cutlass)
    regret = 1.0 - np.exp(logy[rows, chosen[rows]] - logy[rows].max(axis=1))
    agree = float(np.mean(chosen[rows] == scores[rows].argmax(axis=1))) if len(rows) else 0.0
    measured: tuple[RegretStats | None, ...] = (None, None, None)
    if exhaustive is not None and not exhaustive.empty:
        measured = _measured(selector, dispatch, exhaustive, layout)
    return HeaderCheck(
        samples=samples,
        seed=seed,
        predicted=RegretStats.of(regret),
        agreement=agree,
        cublas_shapes=int((~cutlass).sum()),
        measured_vs_select=measured[0],
        measured_header=measured[1],
        measured_select=measured[2],
    )


def render_check(check: HeaderCheck, leaves: int, goal: tuple[float, float] = (0.01, 0.05)) -> str:
    """The lines ``header --check`` prints."""

    def pct(x: float) -> str:
        return "n/a" if not np.isfinite(x) else f"{100 * x:.2f} %"

    p = check.predicted
    lines = [
        f"header vs select on {check.samples} fresh shapes (seed {check.seed}, {leaves} leaves):",
        f"  predicted regret (judged by the selector's own calibrated scores, not measured): "
        f"mean {pct(p.mean)}, median {pct(p.median)}, p95 {pct(p.p95)}, max {pct(p.max)}",
        f"  same kernel as select on {100 * check.agreement:.1f} % of shapes; "
        f"{check.cublas_shapes} shapes dispatched to cublas (not scored)",
        f"  goal mean <= {pct(goal[0])}, max <= {pct(goal[1])}: "
        + ("met" if p.mean <= goal[0] and p.max <= goal[1] else "not met"),
    ]
    for title, stats in (
        ("measured regret of the header vs select's pick", check.measured_vs_select),
        ("measured regret of the header vs the measured best", check.measured_header),
        ("measured regret of select vs the measured best", check.measured_select),
    ):
        if stats is not None and stats.count:
            lines.append(
                f"  {title} ({stats.count} exhaustive shapes): mean {pct(stats.mean)}, "
                f"median {pct(stats.median)}, p95 {pct(stats.p95)}, max {pct(stats.max)}"
            )
    return "\n".join(lines)
