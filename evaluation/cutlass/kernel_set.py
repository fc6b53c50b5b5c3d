"""The kernels compiled for measurement: default-level kernels plus a stratified ``max`` sample."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import load_catalogue
from benchspace.evaluation.cutlass.spill import static_spill
from benchspace.harness.errors import UsageError

CENTRAL_CLUSTERS: frozenset[tuple[int, int]] = frozenset({(1, 1), (1, 2), (2, 1)})
"""Clusters that won or came close on the H200 probe's shapes; larger ones never did."""

CENTRAL_WEIGHT = 2.0
"""Sampling weight of a central-cluster kernel relative to any other."""

COVERED_FIELDS: tuple[str, ...] = (
    "tile",
    "cluster",
    "kernel_schedule",
    "epilogue_schedule",
    "tile_scheduler",
)
"""Every value of each of these appears at least once in the set."""

LIST_FORMAT = "# format: benchspace-kernel-list 1"

DEFAULT_SIZE = 760
"""About 600 should remain once the compiled kernels that ptxas says spill are dropped."""


def _keys(catalogue: pd.DataFrame) -> pd.DataFrame:
    tile = (
        catalogue["tm"].astype(str)
        + "x"
        + catalogue["tn"].astype(str)
        + "x"
        + catalogue["tk"].astype(str)
    )
    cluster = catalogue["cm"].astype(str) + "x" + catalogue["cn"].astype(str)
    central = [
        (int(m), int(n)) in CENTRAL_CLUSTERS
        for m, n in zip(catalogue["cm"], catalogue["cn"], strict=True)
    ]
    return catalogue.assign(tile=tile, cluster=cluster, central=central)


def _apportion(weights: pd.Series, caps: pd.Series, total: int) -> dict[str, int]:
    """Split ``total`` over strata in proportion to ``weights``, no stratum above its cap."""
    alloc = pd.Series(0, index=weights.index, dtype=np.int64)
    total = min(total, int(caps.sum()))
    while (left := total - int(alloc.sum())) > 0:
        open_ = alloc < caps
        quota = weights[open_] / weights[open_].sum() * left
        add = np.minimum(np.floor(quota), (caps - alloc)[open_]).astype(np.int64)
        if int(add.sum()) == 0:
            # Fewer items than strata: one each to the largest quotas.
            add = pd.Series(0, index=quota.index, dtype=np.int64)
            add[quota.sort_values(ascending=False, kind="stable").index[:left]] = 1
        alloc[add.index] += add
    return {str(k): int(v) for k, v in alloc.items()}


def choose_kernel_set(
    catalogue: pd.DataFrame, default_names: Collection[str], size: int, seed: int = 0
) -> list[str]:
    """Kernel names, most central first: the default level, then a tile-stratified sample.

    ``catalogue`` is the pool (a catalogue frame); kernels the static spill rule marks are
    dropped first. The sample covers every tile, cluster, kernel/epilogue schedule and tile
    scheduler, weights central clusters by :data:`CENTRAL_WEIGHT`, and is drawn with ``seed``.
    Order: default-level kernels, then sampled central-cluster kernels, then the rest; within
    each group the tiles take turns, so any prefix of the list is itself spread out.
    """
    pool = _keys(catalogue[~static_spill(catalogue)].sort_values("name", kind="stable"))
    pool = pool.reset_index(drop=True)
    if size < 1:
        raise UsageError(f"--size {size} is not valid; use a positive count such as 760")
    rng = np.random.default_rng(seed)
    weight = np.where(pool["central"], CENTRAL_WEIGHT, 1.0)
    chosen = {str(n) for n in pool["name"] if n in default_names}
    if len(chosen) > size:
        raise UsageError(
            f"--size {size} is smaller than the {len(chosen)} default-level kernels; "
            f"use at least {len(chosen)}"
        )
    # Coverage first, so that no value of a stratifying field is missing.
    for field in COVERED_FIELDS:
        for value in sorted(set(pool[field])):
            if pool.loc[pool["name"].isin(chosen), field].eq(value).any():
                continue
            rows = np.flatnonzero((pool[field] == value).to_numpy())
            p = weight[rows] / weight[rows].sum()
            chosen.add(str(pool["name"].iloc[int(rng.choice(rows, p=p))]))
    # Then fill per tile in proportion to each tile's (weighted) share of the pool.
    rest = pool[~pool["name"].isin(chosen)]
    rest_weight = pd.Series(weight[rest.index], index=rest.index)
    quota = _apportion(
        rest_weight.groupby(rest["tile"]).sum(), rest.groupby("tile").size(), size - len(chosen)
    )
    rank: dict[str, int] = {}
    for tile, count in quota.items():
        rows = rest.index[rest["tile"] == tile].to_numpy()
        if count <= 0:
            continue
        p = rest_weight[rows].to_numpy() / rest_weight[rows].sum()
        picked = rng.choice(rows, size=min(count, len(rows)), replace=False, p=p)
        for order, row in enumerate(picked):
            rank[str(pool["name"].iloc[int(row)])] = order
            chosen.add(str(pool["name"].iloc[int(row)]))
    return _order(pool[pool["name"].isin(chosen)], default_names, rank)


SMALL_TILE_M = 64
"""The small/skinny tiles the default level lacks (TM 64 with TN 16...256, TK 64...256)."""


def widen_kernel_set(
    catalogue: pd.DataFrame,
    default_names: Collection[str],
    previous: Sequence[str],
    size: int,
    seed: int = 0,
) -> list[str]:
    """A wider set that keeps ``previous`` and adds every non-spilling small-tile kernel.

    Order (so that any compiled prefix is spread out): the default-level kernels; then the
    small-tile kernels (``tm`` = :data:`SMALL_TILE_M`, central clusters first, the tiles taking
    turns) alternating one for one with the rest of ``previous`` (in its order); then a
    tile-stratified sample of what is left (:func:`choose_kernel_set`) up to ``size``.
    """
    pool = _keys(catalogue[~static_spill(catalogue)].sort_values("name", kind="stable"))
    in_pool = set(pool["name"])
    kept = [n for n in dict.fromkeys(previous) if n in in_pool]
    defaults = [n for n in kept if n in default_names]
    defaults += sorted(n for n in in_pool if n in default_names and n not in set(defaults))
    small = pool[(pool["tm"] == SMALL_TILE_M) & ~pool["name"].isin(kept + defaults)]
    small = small.assign(
        turn=small.groupby(["central", "tile"]).cumcount(), group=np.where(small["central"], 0, 1)
    ).sort_values(["group", "turn", "tile", "name"], kind="stable")
    rest_previous = [n for n in kept if n not in set(defaults)]
    mixed: list[str] = []
    small_names = [str(n) for n in small["name"]]
    for i in range(max(len(small_names), len(rest_previous))):
        mixed += small_names[i : i + 1] + rest_previous[i : i + 1]
    chosen = list(dict.fromkeys(defaults + mixed))
    if len(chosen) >= size:
        return chosen[:size]
    left = pool[~pool["name"].isin(chosen)]
    fill = choose_kernel_set(left, set(), size - len(chosen), seed) if len(left) else []
    return chosen + fill


def _order(chosen: pd.DataFrame, default_names: Collection[str], rank: dict[str, int]) -> list[str]:
    group = np.where(chosen["name"].isin(list(default_names)), 0, np.where(chosen["central"], 1, 2))
    keyed = chosen.assign(
        group=group,
        rank=[rank.get(str(n), -1) for n in chosen["name"]],
    )
    # Within a group, rank 0 of every tile, then rank 1 of every tile, ...
    keyed = keyed.sort_values(["group", "rank", "tile", "name"], kind="stable")
    return [str(n) for n in keyed["name"]]


def render_kernel_list(names: Sequence[str], comment: Sequence[str]) -> str:
    """The list file: a format line, ``#`` comments, then one kernel name a line."""
    lines = [LIST_FORMAT, *(f"# {c}" for c in comment), *names]
    return "\n".join(lines) + "\n"


def layout_kernel_set(layout: str, size: int = DEFAULT_SIZE, seed: int = 0) -> list[str]:
    """The kernel set of one layout with C = void: the ``max`` catalogue as the pool, the
    ``default`` level's kernels first (enumerates the catalogue twice, a few seconds)."""
    full = load_catalogue("max", [layout])
    pool = full[full["c_type"] == "void"]
    default = load_catalogue("default", [layout])
    default_names = set(default.loc[default["c_type"] == "void", "name"])
    return choose_kernel_set(pool, default_names, size, seed)


def widened_layout_kernel_set(
    layout: str, previous: Sequence[str], size: int, seed: int = 0
) -> list[str]:
    """:func:`widen_kernel_set` over one layout's ``max`` catalogue (C = void)."""
    full = load_catalogue("max", [layout])
    pool = full[full["c_type"] == "void"]
    default = load_catalogue("default", [layout])
    default_names = set(default.loc[default["c_type"] == "void", "name"])
    return widen_kernel_set(pool, default_names, previous, size, seed)
