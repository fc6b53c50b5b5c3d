"""The deployment header ``include/benchspace/gemm_kernels.hh``: a dispatch tree over the shape.

The header is derived from the selector on a dense sample, not from a few representative
shapes: ``samples`` shapes drawn log-uniformly over the domain (seeded), each candidate's score
gap turned into a predicted ``T/T*`` by the selector's calibration
(:mod:`benchspace.evaluation.selector.calibration`). Scoring every candidate at every shape is what
costs (8,126 candidates for a v2-trained selector), so the candidates are narrowed first: the
first ``pilot`` shapes are scored over the whole pool, and only the union of their ``narrow``
best candidates each is scored at the rest (a candidate's score does not depend on the
others). Then a decision tree on M, N, K and features of the tile grid
(:mod:`evaluation.deploy.shape_features`) is grown (:mod:`evaluation.deploy.dispatch_tree`:
Gini splits on the shapes' soft preferences, grown past the leaf budget and pruned back by
the leaves' regret against ``select``), each leaf running the candidate with the least log
regret over its shapes plus a penalty on regret beyond ``tail``. Nothing is measured here; the
header says which selector chose it.

``cublas`` is a dispatch choice too: a leaf names it when the selector carries same-round
cuBLAS measurements (dataset v2) for shapes in that leaf and cuBLAS was ahead of the
selector's pick on them (geometric mean of ``T(pick) / T(cuBLAS)`` below one). Without such
measurements no leaf names it; the enumerator exists either way so that calling code can
dispatch on it.

Rendering goes through the generators' strict Jinja environment and identifier checks
(:mod:`generators.render`, :mod:`harness.cxx_types`); the template only loops and substitutes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.driver_csv import RASTERS
from benchspace.evaluation.deploy.dispatch_tree import (
    LEAF,
    DispatchTree,
    LeafCost,
    grow_tree,
    relabel,
)
from benchspace.evaluation.deploy.gemm_dispatch import (
    CUBLAS,
    DEFAULT_LEAVES,
    DEFAULT_PATH,
    ENV_SUFFIX,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
    spec_from_space,
)
from benchspace.evaluation.deploy.select import score_matrix
from benchspace.evaluation.deploy.shape_features import feature_matrix, shape_features
from benchspace.evaluation.deploy.shape_sample import sample_shapes, shape_tuples
from benchspace.evaluation.selector.calibration import Y_FLOOR
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.generators.render import comment_text, environment
from benchspace.harness import __version__
from benchspace.harness.cxx_types import check_env_name, check_identifier, check_namespace
from benchspace.harness.errors import HeaderError

TEMPLATE = "gemm_kernels.hh.j2"
__all__ = [  # the records live in gemm_dispatch; callers may import them from here
    "CUBLAS",
    "DEFAULT_LEAVES",
    "DEFAULT_PATH",
    "ENV_SUFFIX",
    "TEMPLATE",
    "GemmChoice",
    "GemmDispatch",
    "GemmHeaderSpec",
    "choose_dispatch",
    "header_view",
    "narrowed_log_y",
    "predicted_log_y",
    "render_gemm_header",
    "spec_from_space",
]


def predicted_log_y(selector: DeployedSelector, scores: np.ndarray) -> np.ndarray:
    """``log y(s, c)``: each score's gap to its shape's best, through the calibration.

    A selector saved without a calibration is read with ``y = exp(gap)`` (uncalibrated).
    """
    gap = scores - scores.max(axis=1, keepdims=True)
    if selector.calibration is None:
        return np.asarray(np.maximum(gap, np.log(Y_FLOOR)), dtype=np.float64)
    y = selector.calibration.predict(gap) / selector.calibration.predict(np.zeros(1))[0]
    return np.asarray(np.log(np.clip(y, Y_FLOOR, 1.0)), dtype=np.float64)


def narrowed_log_y(
    selector: DeployedSelector,
    shapes: np.ndarray,
    pilot: int,
    narrow: int,
    layout: str | None = None,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The pool, the pool columns kept and ``log y`` of every shape over them.

    The first ``pilot`` shapes are scored over the whole pool; the columns kept are the union
    of their ``narrow`` best each; the other shapes are scored on those columns only. ``log y``
    is relative to the best kept column of each shape.
    """
    tuples = shape_tuples(shapes)
    pool, scores = score_matrix(selector, tuples[:pilot], layout)
    # Rounded so that the last bits of the booster's float arithmetic cannot flip a choice.
    first = np.round(predicted_log_y(selector, scores), 6)
    columns = np.unique(np.argsort(-first, axis=1, kind="stable")[:, :narrow])
    parts = [scores[:, columns]]
    if len(tuples) > pilot:
        parts.append(score_matrix(selector, tuples[pilot:], layout, columns=columns)[1])
    logy = np.round(predicted_log_y(selector, np.vstack(parts)), 6)
    return pool, columns, logy


def _origin(selector: DeployedSelector) -> str:
    trained = selector.trained_on
    where = ", ".join(str(trained[k]) for k in ("gpu", "date") if trained.get(k)) or "?"
    return (
        f"selector {selector.name!r} ({Path(selector.source).name or 'in memory'} "
        f"{selector.sha256[:12] or '-'}), trained on {trained.get('dataset', '?')} ({where})"
    )


def _cublas_leaves(
    tree: DispatchTree, sms: int, width: int, evidence: pd.DataFrame | None, layout: str
) -> dict[int, bool]:
    """Leaves where same-round cuBLAS beat the selector's pick (geometric mean below 1)."""
    if evidence is None or evidence.empty:
        return {}
    rows = evidence[evidence["layout"].astype(str) == layout]
    rows = rows[(rows["cublas_tflops"] > 0) & (rows["pick_tflops"] > 0)]
    if rows.empty:
        return {}
    shapes = rows[["M", "N", "K"]].to_numpy(dtype=np.int64)
    leaf = tree.leaf_of(feature_matrix(shapes, sms)[:, :width])
    ratio = np.log(rows["pick_tflops"].to_numpy(float) / rows["cublas_tflops"].to_numpy(float))
    mean = pd.Series(ratio).groupby(leaf).mean()
    return {int(str(node)): bool(value < 0.0) for node, value in mean.items()}


def choose_dispatch(
    selector: DeployedSelector,
    spec: GemmHeaderSpec | None = None,
    layout: str | None = None,
    runners_up: int = 0,
    cublas_leaves: bool = True,
) -> GemmDispatch:
    """Sample, score, grow the tree, mark cuBLAS leaves; see the module docstring.

    ``cublas_leaves`` False: no leaf names ``cublas`` (for :mod:`evaluation.deploy.
    leaf_policy` to decide the leaves on measured training shapes instead).

    ``runners_up`` more kernels per leaf (the next best by the leaf's geometric mean) join the
    enum, so that an A/B test through the override can name them, without being chosen.
    """
    spec = spec or GemmHeaderSpec()
    if min(spec.max_leaves, spec.samples, spec.pilot, spec.narrow, spec.min_samples) < 1:
        raise HeaderError(
            f"{spec.path}: leaves {spec.max_leaves}, samples {spec.samples}, pilot "
            f"{spec.pilot}, narrow {spec.narrow} and min samples {spec.min_samples} must be "
            "positive"
        )
    shapes = sample_shapes(spec.domain, spec.samples, spec.seed)
    pool, columns, logy = narrowed_log_y(selector, shapes, spec.pilot, spec.narrow, layout)
    sms = selector.hardware.sms
    features = shape_features(spec.domain, sms, spec.edges_per_octave)
    if not spec.quantised:
        features = features[:3]
    edges = [np.asarray(f.edges, dtype=np.int64) for f in features]
    matrix = feature_matrix(shapes, sms)[:, : len(features)]
    tree = grow_tree(
        matrix,
        logy,
        edges,
        spec.max_leaves,
        spec.min_samples,
        temperature=spec.temperature,
        overgrow=spec.overgrow,
        cost=LeafCost(tail=-float(np.log1p(-spec.tail)), weight=spec.tail_weight),
    )
    candidate = [
        GemmChoice(kernel=str(kernel), raster=str(raster), swizzle=int(swizzle))
        for kernel, raster, swizzle in zip(
            pool["kernel"].iloc[columns],
            pool["raster"].iloc[columns],
            pool["swizzle"].iloc[columns],
            strict=True,
        )
    ]
    kernels = {candidate[leaf.choice].kernel for leaf in tree.leaves}
    if runners_up > 0:
        leaf_of = tree.leaf_of(matrix)
        for node in {int(v) for v in leaf_of}:
            total = logy[leaf_of == node].sum(axis=0)
            order = np.argsort(-total, kind="stable")[: 1 + runners_up]
            kernels.update(candidate[int(c)].kernel for c in order)
    chosen_layout = str(pool["layout"].iloc[0])
    evidence = selector.cublas if cublas_leaves else None
    cublas = _cublas_leaves(tree, sms, len(features), evidence, chosen_layout)
    cublas_code = len(candidate)
    tree = relabel(tree, {node: cublas_code for node, wins in cublas.items() if wins})
    choices = (*candidate, GemmChoice(kernel=CUBLAS))
    return GemmDispatch(
        spec=spec,
        tree=tree,
        choices=choices,
        kernels=(*sorted(kernels), CUBLAS),
        origin=_origin(selector),
        features=features,
        sms=sms,
        cublas_leaves=sum(cublas.values()),
    )


def _wrap(text: str) -> list[str]:
    return [f"// {line}" for line in textwrap.wrap(text, width=85, break_long_words=False)]


def _short(kernel: str) -> str:
    """The tile, cluster and schedule part of a procedural name, for comments."""
    marker = "_bf16_bf16_f32_void_bf16_"
    return kernel.split(marker, 1)[1] if marker in kernel else kernel


def _kernel_entries(dispatch: GemmDispatch) -> tuple[list[dict[str, Any]], int]:
    """The enum's entries (name, the text the override matches, code) and kFirstPinned."""
    spec = dispatch.spec
    kernels = list(dispatch.kernels)
    if CUBLAS not in kernels or kernels[-1] != CUBLAS:
        raise HeaderError(f"{spec.path}: the kernel list must end with {CUBLAS!r}")
    if dispatch.pinned and dispatch.cublaslt_version <= 0:
        raise HeaderError(
            f"{spec.path}: {len(dispatch.pinned)} pinned cuBLASLt entries but no cuBLASLt "
            "version they were measured with"
        )
    text = {p.enum_name: p.key for p in dispatch.pinned}
    if len(text) != len(dispatch.pinned):
        raise HeaderError(f"{spec.path}: a pinned cuBLASLt configuration is listed twice")
    first = len(kernels) - 1 - len(dispatch.pinned)
    if kernels[first:-1] != list(text):
        raise HeaderError(
            f"{spec.path}: the pinned entries must sit, in order, between the CUTLASS kernels "
            f"and {CUBLAS!r}"
        )
    entries = [{"name": k, "text": text.get(k, k), "code": i} for i, k in enumerate(kernels)]
    return entries, first


def header_view(dispatch: GemmDispatch) -> dict[str, Any]:
    """The checked values the template substitutes."""
    spec = dispatch.spec
    try:
        namespace = check_namespace(spec.namespace)
        env = check_env_name(spec.env_var)
        guard = check_identifier(spec.guard, "include guard") if spec.guard else None
        for kernel in dispatch.kernels:
            check_identifier(kernel, "kernel name")
        for choice in dispatch.choices:
            if choice.raster not in RASTERS:
                raise ValueError(f"raster {choice.raster!r} is not one of {', '.join(RASTERS)}")
    except ValueError as exc:
        raise HeaderError(f"{spec.path}: cannot generate: {exc}") from None
    entries, first_pinned = _kernel_entries(dispatch)
    code = {k: i for i, k in enumerate(dispatch.kernels)}
    shown = {p.enum_name: p.key for p in dispatch.pinned}
    used = sorted({n.choice for n in dispatch.tree.leaves})
    missing = [dispatch.choices[c].kernel for c in used if dispatch.choices[c].kernel not in code]
    if missing:
        raise HeaderError(f"{spec.path}: leaf kernel {missing[0]!r} is not in the kernel list")
    slot = {c: i for i, c in enumerate(used)}
    nodes = []
    for i, node in enumerate(dispatch.tree.nodes):
        if node.dim == LEAF:
            choice = dispatch.choices[node.choice]
            nodes.append(
                {
                    "index": i,
                    "dim": -1,
                    "edge": 0,
                    "left": slot[node.choice],
                    "right": -1,
                    "comment": f"leaf: {shown.get(choice.kernel) or _short(choice.kernel)} "
                    f"({node.samples} samples)",
                }
            )
        else:
            nodes.append(
                {
                    "index": i,
                    "dim": node.dim,
                    "edge": node.edge,
                    "left": node.left,
                    "right": node.right,
                    "comment": f"{dispatch.features[node.dim].name} <= {node.edge}",
                }
            )
    choices = [
        {
            "kernel": dispatch.choices[c].kernel,
            "raster": dispatch.choices[c].raster,
            "swizzle": dispatch.choices[c].swizzle,
        }
        for c in used
    ]
    banner = _wrap(
        " ".join(
            comment_text(
                f"Generated by benchspace {__version__} from {dispatch.origin}; do not edit by "
                "hand, regenerate with `benchspace cutlass header`.",
                "the header origin",
            )
        )
    )
    d = spec.domain
    overview = (
        "A decision tree on M, N, K, their padding to tile multiples, tile and wave counts and "
        f"output area ({len(dispatch.tree.leaves)} leaves, budget {spec.max_leaves}) grown on "
        f"{spec.samples} shapes drawn log-uniformly in [{d.low}, {d.high}] (multiples of "
        f"{d.align}, seed {spec.seed}), split where the selector's preferred candidates change "
        "and pruned back by the regret against the selector's own choice; each leaf runs the "
        "candidate with the least log regret in the selector's predicted throughput over its "
        f"shapes, regret beyond {100 * spec.tail:g} % weighted {spec.tail_weight:g} times more. "
        "Nothing in this tree was measured at those shapes. `cublas` means: call cuBLAS "
        "instead of a CUTLASS kernel; "
        + (
            dispatch.leaf_rule
            or "a leaf names it only where cuBLAS, timed in the same rounds as the kernels, "
            "beat the selector's pick"
        )
        + f" ({dispatch.cublas_leaves} leaves here). Override: {env}=<kernel name> (or cublas) "
        "selects that entry for every shape; anything else keeps the compiled choice. "
        "`benchspace cutlass header --check` reports the regret against the selector."
    )
    return {
        "guard": guard,
        "banner": banner,
        "overview": _wrap(dispatch.note or overview),
        "namespace": namespace,
        "env": env,
        "kernels": entries,
        "cublaslt_version": int(dispatch.cublaslt_version) if dispatch.pinned else 0,
        "first_pinned": first_pinned,
        "pinned": [{"name": p.key, "attrs": list(p.values())} for p in dispatch.pinned],
        "choices": [{**c, "code": code[str(c["kernel"])]} for c in choices],
        "nodes": nodes,
        "features": [
            {"code": i, "name": f.name, "cxx": f.cxx} for i, f in enumerate(dispatch.features)
        ],
    }


def render_gemm_header(dispatch: GemmDispatch) -> str:
    """The header's text (deterministic for a dispatch)."""
    template = environment().get_template(TEMPLATE)
    try:
        return template.render(**header_view(dispatch))
    except jinja2.UndefinedError as exc:  # a template/view mismatch: a bug, not user input
        raise RuntimeError(f"{TEMPLATE}: {exc}") from exc
