"""The kernel header from measured winners: each tuned shape dispatches to what won there.

Input: a ``benchspace tune`` profile of a ``tune-shapes`` space (one case per user shape,
CUTLASS configurations and cuBLASLt ones timed in the same rounds). Each shape's winner is
its fastest measured configuration, judged on the confirmation rounds where ``tune
--confirm`` re-timed the shape's finalists (rows ``confirmed``: the selection figures are the
ones that chose, and so biased towards luck), else on the selection rounds (the header says
which, per shape). ``cublas:heuristic`` (what a plain cuBLAS call runs) competes as the
``cublas`` pseudo-kernel; a ``cublas:algo<i>`` row competes as a pinned cuBLASLt entry when
the run's store says which configuration it ran (its ``cublas_algo`` attributes; see
:mod:`evaluation.deploy.store_algos`), else it is only reported (the best of them is what a
cuBLASLt autotune gets); a ``cublaslt:id=..;...`` row (a configuration the space itself pinned:
``tune-shapes --cublaslt-space``) competes as that pinned entry.

Every measured shape gets an exact-match leaf (M, N and K each tested for equality) running
its own winner; a shape that was not measured falls through to a decision tree
(:mod:`evaluation.deploy.dispatch_tree`) grown on the measured shapes, with their own M, N
and K among the edges, over the CUTLASS kernels and ``cublas``: it runs the winner of the
measured neighbour it lands with. ``restrict_to_top`` keeps only each shape's top-k
shortlisted candidates (the prefix of a longer shortlist measured in the same rounds), to
read what a smaller K gives.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.driver_csv import parse_config
from benchspace.evaluation.deploy.dispatch_tree import LEAF, DispatchTree, TreeNode, grow_tree
from benchspace.evaluation.deploy.gemm_dispatch import (
    CUBLAS,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
)
from benchspace.evaluation.deploy.pinned import PinnedConfig, is_key, parse_key
from benchspace.evaluation.deploy.shape_features import feature_matrix, shape_features
from benchspace.evaluation.deploy.shape_sample import ShapeDomain
from benchspace.evaluation.deploy.shortlist import CUBLAS_ALGO, CUBLAS_HEURISTIC
from benchspace.evaluation.selector.calibration import Y_FLOOR
from benchspace.harness.errors import UsageError
from benchspace.harness.profiles.model import Profile

Shape = tuple[int, int, int]
COLUMNS = ["M", "N", "K", "config", "kernel", "raster", "swizzle", "tflops", "confirmed", "pinned"]
"""``confirmed``: 1 re-timed by ``tune --confirm``, 0 not re-timed in a confirmed case, -1 no
confirmation; ``pinned``: a ``cublas:*`` row's pinned key ('' when the store is not known)."""
CONFIRMATION, SELECTION = "confirmation", "selection"


def _confirmed(value: bool | None) -> int:
    return -1 if value is None else int(bool(value))


def measured_table(
    profile: Profile,
    bench: str | None = None,
    algos: Mapping[tuple[Shape, str], PinnedConfig] | None = None,
) -> pd.DataFrame:
    """One row per measured (shape, configuration) of ``bench`` (default: the only bench
    whose rows name a ``kernel`` and fixed M, N, K): columns :data:`COLUMNS` (``kernel`` is
    ``cublas`` for every cuBLASLt row; ``tflops`` the median over repeats); ``algos``: the
    configuration each ``cublas:*`` row ran (:func:`evaluation.deploy.store_algos.cublas_algos`)."""
    names = [bench] if bench else list(profile.results)
    if bench and bench not in profile.results:
        raise UsageError(f"{profile.source}: no bench {bench!r}; it has {', '.join(names)}")
    records = []
    for name in names:
        for row in profile.results[name].rows:
            config, fixed = row.param("kernel"), row.fixed
            if not isinstance(config, str) or not {"M", "N", "K"} <= set(fixed):
                continue
            if row.value is None or not np.isfinite(row.value) or row.value <= 0:
                continue
            shape = (int(str(fixed["M"])), int(str(fixed["N"])), int(str(fixed["K"])))
            pinned = ""
            if config.startswith("cublas:"):
                kernel, raster, swizzle = CUBLAS, "H", 1
                known = (algos or {}).get((shape, config))
                pinned = known.key if known is not None else ""
            elif is_key(config):  # a pinned configuration of the space (tune-shapes --cublaslt-*)
                kernel, raster, swizzle = CUBLAS, "H", 1
                pinned = parse_key(config, f"{profile.source}: {name}: kernel").key
            else:
                parsed = parse_config(config)
                if parsed.splits != 1 or parsed.decomposition != "H":
                    continue  # Stream-K splits / decomposition: not a choice the header names
                kernel, raster, swizzle = parsed.name, parsed.raster, parsed.swizzle
            records.append(
                (*shape, config, kernel, raster, swizzle, float(row.value),
                 _confirmed(row.confirmed), pinned)
            )  # fmt: skip
    if not records:
        raise UsageError(
            f"{profile.source}: no measured GEMM configurations (rows with a kernel and fixed "
            "M, N, K); measure a tune-shapes space first"
        )
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def judged_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows that judge: a shape's confirmation rows where ``tune --confirm`` re-timed it,
    else all its rows."""
    shapes = table.groupby(["M", "N", "K"])["confirmed"].transform("max")
    keep = (shapes < 1) | (table["confirmed"] == 1)
    return table[keep.to_numpy()].reset_index(drop=True)


def restrict_to_top(table: pd.DataFrame, short: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows of ``table`` among each shape's top ``k`` of ``short`` (a shortlist with M, N,
    K, rank, config), plus every cuBLASLt row (``cublas:*`` and pinned ``cublaslt:`` ones)."""
    top = short[short["rank"] <= k][["M", "N", "K", "config"]].assign(_keep=True)
    merged = table.merge(top, on=["M", "N", "K", "config"], how="left")
    cublaslt = merged["config"].str.startswith("cublas:") | merged["config"].map(is_key)
    keep = merged["_keep"].fillna(False).astype(bool) | cublaslt
    return table[keep.to_numpy()].reset_index(drop=True)


def drop_listed(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without the pinned ``cublaslt:`` rows of a listed space (what the shortlist and
    cuBLASLt's own top N alone would give, from the same rounds)."""
    return table[~table["config"].map(is_key).to_numpy()].reset_index(drop=True)


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeWinner:
    """One measured shape: its winner among the dispatch choices, CUTLASS and cuBLAS."""

    shape: tuple[int, int, int]
    winner: str
    """The fastest CUTLASS configuration, ``cublas:heuristic`` or a pinned ``cublaslt:`` key."""
    winner_tflops: float
    cutlass: str
    cutlass_tflops: float
    """The best CUTLASS configuration (nan when none ran)."""
    cublas_tflops: float
    """``cublas:heuristic`` (nan when not measured)."""
    cublas_best_tflops: float
    """The best ``cublas:algo<i>`` (nan when not measured)."""
    source: str = SELECTION
    """Whose figures: the ``confirmation`` rounds or the ``selection`` rounds."""


def _best(records: list[dict[str, Any]]) -> tuple[str, float]:
    if not records:
        return "", math.nan
    top = max(records, key=lambda r: float(r["tflops"]))
    return str(top["config"]), float(top["tflops"])


def _pinned_choices(
    rows: list[dict[str, Any]], heuristic: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A shape's ``cublas:algo<i>`` rows with a known configuration and its ``cublaslt:``
    rows, as pinned candidates (``config`` = the key, the best reading of a key that ran under
    both names); one running the heuristic's own configuration is not one."""
    own = {str(r["pinned"]) for r in heuristic if r["pinned"]}
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = str(r["pinned"])
        pinned_row = str(r["config"]).startswith(CUBLAS_ALGO) or is_key(str(r["config"]))
        if not pinned_row or not key or key in own:
            continue
        if key not in out or float(r["tflops"]) > float(out[key]["tflops"]):
            out[key] = {**r, "config": key}
    return list(out.values())


def shape_summary(table: pd.DataFrame) -> list[ShapeWinner]:
    """Per shape (sorted), judged on :func:`judged_rows`: see :class:`ShapeWinner`."""
    by_shape: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for record in judged_rows(table).to_dict("records"):
        shape = (int(record["M"]), int(record["N"]), int(record["K"]))
        by_shape.setdefault(shape, []).append({str(k): v for k, v in record.items()})
    out = []
    for shape in sorted(by_shape):
        rows = by_shape[shape]
        cutlass = [r for r in rows if r["kernel"] != CUBLAS]
        heuristic = [r for r in rows if r["config"] == CUBLAS_HEURISTIC]
        algos = [r for r in rows if str(r["config"]).startswith(CUBLAS_ALGO)]
        listed = [r for r in rows if is_key(str(r["config"]))]
        winner, winner_t = _best(cutlass + heuristic + _pinned_choices(algos + listed, heuristic))
        best_c, best_t = _best(cutlass)
        out.append(
            ShapeWinner(
                shape=shape,
                winner=winner,
                winner_tflops=winner_t,
                cutlass=best_c,
                cutlass_tflops=best_t,
                cublas_tflops=_best(heuristic)[1],
                cublas_best_tflops=_best(algos)[1],
                source=CONFIRMATION if any(r["confirmed"] == 1 for r in rows) else SELECTION,
            )
        )
    return out


def _fallback_tree(
    table: pd.DataFrame, sms: int, spec: GemmHeaderSpec
) -> tuple[DispatchTree, list[tuple[str, str, int]], tuple[Any, ...]]:
    """The tree for shapes that were not measured: CUTLASS kernels and cublas, grown on the
    measured shapes (see the module docstring)."""
    choices_rows = table[(table["kernel"] != CUBLAS) | (table["config"] == CUBLAS_HEURISTIC)]
    if choices_rows.empty:
        raise UsageError("no CUTLASS or cublas:heuristic measurements to choose from")
    keys = ["kernel", "raster", "swizzle"]
    candidates = choices_rows[keys].drop_duplicates().sort_values(keys).reset_index(drop=True)
    keyed = [(str(k), str(r), int(str(s))) for k, r, s in candidates.to_numpy().tolist()]
    column = {key: i for i, key in enumerate(keyed)}
    shapes = choices_rows[["M", "N", "K"]].drop_duplicates().sort_values(["M", "N", "K"])
    shape_at = {tuple(int(v) for v in r): i for i, r in enumerate(shapes.to_numpy())}
    best = np.full((len(shapes), len(candidates)), 0.0)
    rows = choices_rows[["M", "N", "K", "kernel", "raster", "swizzle", "tflops"]].to_numpy()
    for m, n, k, kernel, raster, swizzle, tflops in rows.tolist():
        i = shape_at[(int(m), int(n), int(k))]
        j = column[(str(kernel), str(raster), int(swizzle))]
        best[i, j] = max(best[i, j], float(tflops))
    top = best.max(axis=1, keepdims=True)
    logy = np.where(best > 0, np.log(np.maximum(best, 1e-300) / top), np.log(Y_FLOOR))
    points = shapes.to_numpy(dtype=np.int64)
    features = list(shape_features(ShapeDomain(), sms, spec.edges_per_octave))
    for d in range(3):  # the shapes' own sizes as edges: every distinct shape can be a leaf
        own = {int(v) for v in points[:, d]}
        features[d] = dataclasses.replace(
            features[d], edges=tuple(sorted(set(features[d].edges) | own))
        )
    edges = [np.asarray(f.edges, dtype=np.int64) for f in features]
    tree = grow_tree(feature_matrix(points, sms), logy, edges, max(len(points), 1), min_samples=1)
    return tree, keyed, tuple(features)


def _exact_chain(
    shapes: Sequence[Shape], codes: Sequence[int], fallback: DispatchTree
) -> DispatchTree:
    """Per shape seven nodes (M, N, K each ``> v - 1`` and ``<= v``, then its leaf); a shape
    matching none falls through to ``fallback`` (its node indices shifted behind them)."""
    width = 7
    offset = width * len(shapes)
    nodes: list[TreeNode] = []
    for i, (shape, code) in enumerate(zip(shapes, codes, strict=True)):
        start, out = width * i, width * (i + 1)
        for d, v in enumerate(shape):
            at = start + 2 * d
            nodes.append(TreeNode(dim=d, edge=v - 1, left=out, right=at + 1))
            nodes.append(TreeNode(dim=d, edge=v, left=at + 2, right=out))
        nodes.append(TreeNode(dim=LEAF, choice=code, samples=1))
    for n in fallback.nodes:
        shifted = (
            n
            if n.dim == LEAF
            else dataclasses.replace(n, left=n.left + offset, right=n.right + offset)
        )
        nodes.append(shifted)
    return DispatchTree(nodes=tuple(nodes))


def measured_dispatch(
    table: pd.DataFrame,
    sms: int,
    spec: GemmHeaderSpec | None = None,
    origin: str = "measured winners",
    cublaslt_version: int = 0,
    judged_note: str | None = None,
) -> GemmDispatch:
    """One exact-match leaf per measured shape running its winner, then the tree for the
    rest (see the module docstring); ``cublaslt_version``: what the run's cuBLASLt reported
    (needed when a pinned configuration wins somewhere); ``judged_note``: where the winners were
    judged, said in the header's note (default: the profile's selection or confirmation
    rounds, as :func:`shape_summary` read them)."""
    spec = spec or GemmHeaderSpec()
    judged = judged_rows(table)
    fallback, keyed, features = _fallback_tree(judged, sms, spec)
    summary = shape_summary(table)
    keys = sorted({w.winner for w in summary if is_key(w.winner)})
    if keys and cublaslt_version <= 0:
        raise UsageError(
            f"{len(keys)} pinned cuBLASLt configurations won, but the cuBLASLt version they "
            "ran with is not known; pass --cublaslt-version (the run's cublas.json 'version')"
        )
    pinned = tuple(parse_key(k) for k in keys)
    if (CUBLAS, "H", 1) not in keyed:
        keyed.append((CUBLAS, "H", 1))
    code = {f"{k}:{r}:{s}": i for i, (k, r, s) in enumerate(keyed)}
    code[CUBLAS_HEURISTIC] = code[f"{CUBLAS}:H:1"]
    choices = [GemmChoice(kernel=k, raster=r, swizzle=s) for k, r, s in keyed]
    for p in pinned:
        code[p.key] = len(choices)
        choices.append(GemmChoice(kernel=p.enum_name))
    winners = []
    for w in summary:
        if w.winner == CUBLAS_HEURISTIC or is_key(w.winner):
            winners.append(code[w.winner])
        else:
            parsed = parse_config(w.winner)
            winners.append(code[f"{parsed.name}:{parsed.raster}:{parsed.swizzle}"])
    tree = _exact_chain([w.shape for w in summary], winners, fallback)
    used = {choices[leaf.choice].kernel for leaf in tree.leaves}
    cublas_leaves = sum(choices[leaf.choice].kernel == CUBLAS for leaf in tree.leaves)
    confirmed = sum(w.source == CONFIRMATION for w in summary)
    figures = (
        f"judged on the confirmation rounds of `tune --confirm` for {confirmed} of "
        f"{len(summary)} shapes"
        + (
            ", on the selection rounds (no confirmation run) for the rest"
            if confirmed < len(summary)
            else ""
        )
        if confirmed
        else "judged on the selection rounds (the profile has no confirmation run: "
        "`benchspace tune --confirm` re-times the finalists)"
    )
    figures = judged_note or figures
    note = (
        f"One exact-match leaf per measured shape ({len(summary)}; M, N and K tested for "
        "equality) running the fastest configuration measured at that shape, CUTLASS kernels, "
        "cuBLAS (cublas:heuristic, what a plain cuBLAS call runs) and cuBLASLt's own "
        f"configurations ({len(pinned)} pinned entries) timed in the same rounds, {figures}. "
        f"Any other shape falls through to a decision tree ({len(fallback.leaves)} leaves) on "
        "M, N, K and their padding and tile counts per wave, grown on the measured shapes, "
        "over the CUTLASS kernels and cublas: it runs the winner of the measured neighbour "
        f"it lands with ({cublas_leaves} leaves cublas in all). `cublas` means: call cuBLAS "
        f"instead of a CUTLASS kernel. Override: {spec.env_var}=<kernel name> (or cublas, or "
        "a pinned entry's key) selects that entry for every shape; anything else keeps the "
        "compiled choice."
    )
    names = {p.enum_name for p in pinned}
    return GemmDispatch(
        spec=spec,
        tree=tree,
        choices=tuple(choices),
        kernels=(*sorted(used - {CUBLAS} - names), *(p.enum_name for p in pinned), CUBLAS),
        origin=origin,
        features=features,
        sms=sms,
        cublas_leaves=cublas_leaves,
        note=note,
        pinned=pinned,
        cublaslt_version=cublaslt_version if pinned else 0,
    )


def dispatch_hits(dispatch: GemmDispatch, summary: Sequence[ShapeWinner]) -> list[bool]:
    """Per entry of :func:`shape_summary`: does the header run the shape's winner there?"""
    chosen = dispatch.choose(np.array([w.shape for w in summary], dtype=np.int64))
    keys = {p.enum_name: p.key for p in dispatch.pinned}
    out = []
    for c, winner in zip(chosen, (w.winner for w in summary), strict=True):
        choice = dispatch.choices[int(c)]
        if choice.kernel == CUBLAS:
            text = CUBLAS_HEURISTIC
        elif choice.kernel in keys:
            text = keys[choice.kernel]
        else:
            text = parse_config(f"{choice.kernel}:{choice.raster}:{choice.swizzle}").text
        out.append(text == winner)
    return out
