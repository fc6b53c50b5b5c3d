"""Header vs select on the held-out shapes: the study's deployable selector, both ways.

The deployed model kind (``xgboost rank:pairwise``, as shipped) is trained on the training
groups only, a dispatch tree is grown from it as ``benchspace cutlass header`` does, and each
held-out group is judged twice: ``select`` (the model's argmax over the group's candidates)
and the header (the tree's leaf choice). Both regrets are measured (the evaluation groups
hold every compiled kernel); a group where the header's choice was not measured, or is
``cublas``, is left out of the header's row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import Dataset
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.deploy.kernel_header import GemmHeaderSpec, choose_dispatch
from benchspace.evaluation.deploy.select import train_selector
from benchspace.evaluation.selector.metrics import RegretSummary, picks, summarise
from benchspace.evaluation.study.run import prepare

DEPLOYED = "xgboost rank:pairwise"


def header_rows(
    dataset: Dataset,
    hw: Hardware,
    spec: GemmHeaderSpec | None = None,
    seed: int = 0,
) -> list[RegretSummary]:
    """``select (...)`` and ``header (...)`` rows on the evaluation groups (see above)."""
    spec = spec or GemmHeaderSpec()
    prepared = prepare(dataset, hw)
    ev = (prepared.labels["split"] == "eval").to_numpy()
    y_ev = prepared.labels[ev]
    if y_ev.empty:
        return []
    selector = train_selector(dataset, hw, DEPLOYED, ("train",), seed)
    select = picks(y_ev, selector.model.score(prepared.features[ev]))
    dispatch = choose_dispatch(selector, spec)
    groups = y_ev.groupby("group", sort=False)[["M", "N", "K"]].transform("first")
    chosen = [dispatch.choices[c] for c in dispatch.choose(groups.to_numpy())]
    wanted = pd.DataFrame(
        [(c.kernel, c.raster, c.swizzle) for c in chosen],
        columns=["_k", "_r", "_s"],
        index=y_ev.index,
    )
    match = (
        (y_ev["kernel"] == wanted["_k"])
        & (y_ev["raster"] == wanted["_r"])
        & (y_ev["swizzle"] == wanted["_s"])
    )
    measured = match.groupby(y_ev["group"]).any()
    keep = y_ev["group"].map(measured).to_numpy()
    header = picks(y_ev[keep], match[keep].to_numpy(dtype=np.float64))
    cublas = prepared.cublas
    leaves = len(dispatch.tree.leaves)
    return [
        summarise(f"select ({DEPLOYED}, train only)", select, cublas),
        summarise(f"header ({leaves}-leaf tree of that select)", header, cublas),
    ]
