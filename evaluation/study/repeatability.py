"""How well the oracle repeats: the best candidate of one run of a shape, timed again in another.

A shape of dataset v2 can be timed in several runs (the exhaustive pass ``x`` at default knobs,
then the knob sweep ``k`` of its best kernels, which times them again at default knobs). For
each group with two or more runs, take the fastest candidate of the run that timed the most
candidates and look it up in every other run of the group that timed it: its loss there
``1 - T_other(pick) / max T_other`` over that run's candidates is what the measured oracle itself
would lose as a selector if the shape were measured once more (averaged over the other runs of a
group, one value per group). Its mean and p95 are a noise floor
under the held-out regret figures (only a floor: the other run times a shortlist, not every
kernel).

The study pools a shape's runs into one candidate set (a candidate timed in two runs gets the
mean), so a second floor is the largest run's own winner judged against that pooled ``T*``
(:func:`largest_run_winners`): what a selector that knew the exhaustive run's result would score
in the held-out table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

KEY = ["kernel", "raster", "swizzle"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Repeatability:
    """The oracle's loss when re-timed, over the groups timed in two or more runs."""

    groups: int
    mean: float
    median: float
    p95: float
    max: float


def oracle_repeatability(measurements: pd.DataFrame, split: str = "eval") -> Repeatability | None:
    """See the module docstring; None when no group of ``split`` has two runs (or no ``run``)."""
    if "run" not in measurements.columns:
        return None
    ok = measurements[
        (measurements["status"] == "ok")
        & (measurements["split"] == split)
        & np.isfinite(measurements["tflops"])
        & (measurements["tflops"] > 0)
    ]
    losses = []
    for _, frame in ok.groupby("group", sort=True):
        runs = frame.groupby("run")["tflops"].size().sort_values(ascending=False, kind="stable")
        if len(runs) < 2:
            continue
        first = frame[frame["run"] == runs.index[0]]
        pick = tuple(first.loc[first["tflops"].idxmax(), KEY])
        group_losses = []
        for run in runs.index[1:]:
            other = frame[frame["run"] == run]
            again = other[(other[KEY] == pd.Series(pick, index=KEY)).all(axis=1)]
            if not again.empty:
                best = float(other["tflops"].max())
                group_losses.append(1.0 - float(again["tflops"].max()) / best)
        if group_losses:
            losses.append(float(np.mean(group_losses)))
    if not losses:
        return None
    loss = np.asarray(losses)
    return Repeatability(
        groups=len(loss),
        mean=float(loss.mean()),
        median=float(np.median(loss)),
        p95=float(np.percentile(loss, 95)),
        max=float(loss.max()),
    )


def largest_run_winners(measurements: pd.DataFrame, split: str = "eval") -> pd.DataFrame:
    """Per group of ``split`` (with a ``run`` column): the fastest candidate (``KEY``) of the run
    that timed the most candidates; empty without runs."""
    if "run" not in measurements.columns:
        return pd.DataFrame(columns=["group", *KEY])
    ok = measurements[
        (measurements["status"] == "ok")
        & (measurements["split"] == split)
        & np.isfinite(measurements["tflops"])
        & (measurements["tflops"] > 0)
    ]
    sizes = ok.groupby(["group", "run"], sort=True).size().rename("n").reset_index()
    largest = sizes.sort_values(["group", "n"], ascending=[True, False], kind="stable")
    largest = largest.drop_duplicates("group")[["group", "run"]]
    rows = ok.merge(largest, on=["group", "run"])
    winners: pd.DataFrame = rows.loc[rows.groupby("group", sort=True)["tflops"].idxmax()]
    return winners[["group", *KEY]].reset_index(drop=True)


def repeatability_note(r: Repeatability) -> str:
    """The note the held-out table prints under it."""
    return (
        f"noise floor: the oracle's pick of one run, timed again in a second run of its shape "
        f"({r.groups} groups), loses {100 * r.mean:.2f}% mean, {100 * r.median:.2f}% median, "
        f"{100 * r.p95:.2f}% p95, {100 * r.max:.2f}% max against that run's best"
    )
