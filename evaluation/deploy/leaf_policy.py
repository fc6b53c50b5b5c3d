"""Which leaves of a dispatch tree keep their CUTLASS kernel, call cuBLAS, or run a pinned
cuBLASLt configuration, decided on measured training shapes (never on the shapes judged).

Per leaf, its training shapes (those of :class:`evaluation.deploy.cublas_evidence.
CublasEvidence` that fall in it) give each option a same-round ratio to the cuBLASLt
heuristic: the leaf's CUTLASS choice ``T(choice) / T(heuristic)``, a pinned key its measured
ratio, ``cublas`` 1 by definition. An option is *reliable* on a leaf when the leaf holds at
least ``min_shapes`` training shapes, the option was measured at every one of them, its
geometric mean is at least ``1 + margin`` and its worst shape at least ``floor``. One shape is
not evidence: left out in turn (:func:`leave_one_out`), decisions taken on a single
training shape lose at the shape left out. Policies:

* ``cutlass``: every leaf keeps its kernel (the CUTLASS-only header);
* ``heuristic``: a leaf keeps its kernel only where the kernel is reliable, else ``cublas`` —
  a leaf without training shapes included, for there CUTLASS is not known to be ahead;
* ``pinned``: as ``heuristic``, and then the reliable option with the best geometric mean
  among the kernel and the keys measured at all the leaf's shapes wins (``cublas`` when none).

Judging a rule on the training shapes alone (:func:`leave_one_out`): each shape is left out
in turn, its leaf decided on the leaf's other training shapes, and the option so chosen is
read at the shape left out (``cublas`` 1; a kernel or a pinned key never timed there: not
measured). Nothing there looks at the evaluation shapes, so a rule can be chosen by those
figures and then judged on them.

Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.cublas_evidence import SHAPE, CublasEvidence
from benchspace.evaluation.deploy.dispatch_tree import LEAF, relabel
from benchspace.evaluation.deploy.gemm_dispatch import CUBLAS, GemmChoice, GemmDispatch
from benchspace.evaluation.deploy.pinned import PinnedConfig, parse_key

POLICIES = ("cutlass", "heuristic", "pinned")


@dataclass(frozen=True, kw_only=True, slots=True)
class LeafRule:
    """When an option is reliable on a leaf (see the module docstring)."""

    policy: str = "pinned"
    margin: float = 0.02
    floor: float = 0.97
    pinned_margin: float = 0.01
    pinned_floor: float = 0.99
    min_shapes: int = 2
    """Training shapes a leaf needs before anything but ``cublas`` can be reliable there."""


@dataclass(frozen=True, kw_only=True, slots=True)
class LeafDecision:
    """What one leaf runs and the training figures that decided it."""

    node: int
    shapes: int
    runs: str
    """A CUTLASS kernel name, ``cublas`` or a pinned key."""
    geomean: float
    """The chosen option's training geometric mean vs the heuristic (1 for cublas)."""


def _reliable(ratios: np.ndarray, n: int, margin: float, floor: float) -> float | None:
    """The geometric mean when measured at all ``n`` shapes and reliable, else None."""
    if n == 0 or len(ratios) < n or not np.all(ratios > 0):
        return None
    g = float(np.exp(np.mean(np.log(ratios))))
    return g if g >= 1.0 + margin and float(ratios.min()) >= floor else None


def _cutlass_ratio(
    evidence: CublasEvidence, choice: GemmChoice, shapes: pd.DataFrame
) -> np.ndarray:
    c = evidence.cutlass
    rows = c[
        (c["kernel"] == choice.kernel)
        & (c["raster"] == choice.raster)
        & (c["swizzle"].astype(int) == choice.swizzle)
    ]
    joined = shapes.merge(rows, on=SHAPE, how="inner")
    return np.asarray(joined["tflops"] / joined["heuristic_tflops"], dtype=np.float64)


def decide_leaf(
    choice: GemmChoice, mine: pd.DataFrame, evidence: CublasEvidence, rule: LeafRule
) -> tuple[str, float]:
    """What a leaf whose tree choice is ``choice`` runs, decided on its training shapes
    ``mine`` (M, N, K, heuristic_tflops), and that option's training geometric mean."""
    count = len(mine)
    if rule.policy == "cutlass":
        return choice.kernel, np.nan
    options: dict[str, float] = {}
    if count >= max(rule.min_shapes, 1):
        if choice.kernel != CUBLAS:
            g = _reliable(_cutlass_ratio(evidence, choice, mine), count, rule.margin, rule.floor)
            if g is not None:
                options[choice.kernel] = g
        if rule.policy == "pinned":
            here = evidence.configs.merge(mine[SHAPE], on=SHAPE, how="inner")
            for key, rows in here.groupby("key", sort=True):
                ratios = rows["ratio"].to_numpy(dtype=np.float64)
                g = _reliable(ratios, count, rule.pinned_margin, rule.pinned_floor)
                if g is not None:
                    options[str(key)] = g
    if not options:
        return CUBLAS, 1.0
    best = max(sorted(options), key=lambda k: options[k])
    return best, options[best]


def tag_leaves(dispatch: GemmDispatch, shapes: pd.DataFrame) -> pd.DataFrame:
    """``shapes`` with the column ``leaf``: the tree node each shape falls in."""
    points = shapes[SHAPE].to_numpy(dtype=np.int64)
    leaf = dispatch.leaf_of(points) if len(points) else np.zeros(0, dtype=np.int64)
    return shapes.assign(leaf=leaf)


def decide_leaves(
    dispatch: GemmDispatch, evidence: CublasEvidence, rule: LeafRule
) -> list[LeafDecision]:
    """One decision per leaf of ``dispatch`` (whose leaves name CUTLASS kernels)."""
    if rule.policy not in POLICIES:
        raise ValueError(f"policy {rule.policy!r} is not one of {', '.join(POLICIES)}")
    tagged = tag_leaves(dispatch, evidence.shapes)
    out = []
    for node, n in enumerate(dispatch.tree.nodes):
        if n.dim != LEAF:
            continue
        mine = tagged[tagged["leaf"] == node][[*SHAPE, "heuristic_tflops"]]
        runs, g = decide_leaf(dispatch.choices[n.choice], mine, evidence, rule)
        out.append(LeafDecision(node=node, shapes=len(mine), runs=runs, geomean=g))
    return out


def apply_decisions(
    dispatch: GemmDispatch, decisions: list[LeafDecision], cublaslt_version: int
) -> GemmDispatch:
    """``dispatch`` with its leaves relabelled; pinned keys become pinned entries."""
    keys = sorted({d.runs for d in decisions if d.runs.startswith("cublaslt:")})
    pinned: tuple[PinnedConfig, ...] = tuple(parse_key(k) for k in keys)
    choices = list(dispatch.choices)
    if not any(c.kernel == CUBLAS for c in choices):
        choices.append(GemmChoice(kernel=CUBLAS))
    code: dict[str, int] = {}
    for i, c in enumerate(choices):
        code.setdefault(c.kernel, i)
    for p in pinned:
        code[p.key] = len(choices)
        choices.append(GemmChoice(kernel=p.enum_name))
    mapping: Mapping[int, int] = {
        d.node: code[d.runs]
        for d in decisions
        if d.runs == CUBLAS or d.runs.startswith("cublaslt:")
    }
    tree = relabel(dispatch.tree, mapping)
    used = {choices[leaf.choice].kernel for leaf in tree.leaves}
    before = {dispatch.choices[leaf.choice].kernel for leaf in dispatch.tree.leaves}
    runners_up = set(dispatch.kernels) - before  # listed for the override, never chosen
    cutlass = [k for k in dispatch.kernels if k != CUBLAS and (k in used or k in runners_up)]
    return dataclasses.replace(
        dispatch,
        tree=tree,
        choices=tuple(choices),
        kernels=(*cutlass, *(p.enum_name for p in pinned), CUBLAS),
        pinned=pinned,
        cublaslt_version=cublaslt_version if pinned else 0,
        cublas_leaves=sum(choices[leaf.choice].kernel == CUBLAS for leaf in tree.leaves),
    )


def rule_text(rule: LeafRule, evidence: CublasEvidence, pinned: int) -> str:
    """The overview's sentence on how the leaves were decided."""
    kept = (
        f"a leaf keeps its CUTLASS kernel only where at least {rule.min_shapes} of the "
        f"{len(evidence.shapes)} {evidence.split} shapes of the measured data fall in it and, "
        "at every one of them, the kernel was timed "
        "in the same runs as the cuBLASLt heuristic and was ahead of it by "
        f"{100 * rule.margin:g} % in geometric mean and never below {rule.floor:g}x; every "
        "other leaf (one without such shapes too) names cublas"
    )
    if rule.policy == "cutlass":
        return "no leaf names it"
    if rule.policy == "heuristic":
        return kept
    return (
        f"{kept}, unless one of cuBLASLt's own configurations listed there (a pinned entry, "
        f"{pinned} in this header) was timed at all of them and ahead of the heuristic by "
        f"{100 * rule.pinned_margin:g} % in geometric mean, never below {rule.pinned_floor:g}x, "
        "and better than the kernel"
    )


def policy_dispatch(
    base: GemmDispatch, evidence: CublasEvidence, policy: str, rule: LeafRule | None = None
) -> GemmDispatch:
    """``base`` (CUTLASS leaves) with its leaves decided by ``policy`` on ``evidence``."""
    rule = dataclasses.replace(rule or LeafRule(), policy=policy)
    out = apply_decisions(base, decide_leaves(base, evidence, rule), evidence.cublaslt_version)
    return dataclasses.replace(out, leaf_rule=rule_text(rule, evidence, len(out.pinned)))


FLOOR = 0.95
"""A shape below this ratio to the heuristic counts as a loss (the shipped header's goal)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class LeafCv:
    """A leaf rule's leave-one-shape-out figures on the training shapes."""

    shapes: int
    measured: int
    geomean: float
    """Ratio to the heuristic at the shapes left out, geometric mean over the measured ones."""
    worst: float
    below_floor: int
    not_cublas: int
    """Shapes left out whose leaf, decided without them, runs something other than cublas."""

    def line(self, rule: LeafRule) -> str:
        """One line of the figures, naming the rule."""
        return (
            f"leaf rule ({rule.policy}, at least {rule.min_shapes} training shapes per leaf) "
            f"left one out at a time on the {self.shapes} training shapes: ratio to the "
            f"heuristic at the shape left out {self.geomean:.4f} geomean (worst {self.worst:.4f}; "
            f"{self.below_floor} below {FLOOR:g}x; measured {self.measured} of {self.shapes}; "
            f"{self.not_cublas} not sent to cublas)"
        )


def _ratio_at(
    evidence: CublasEvidence, choice: GemmChoice, runs: str, shape: tuple[int, int, int]
) -> float:
    m, n, k = shape
    if runs == CUBLAS:
        return 1.0
    if runs.startswith("cublaslt:"):
        c = evidence.configs
        hit = c[(c["M"] == m) & (c["N"] == n) & (c["K"] == k) & (c["key"] == runs)]
        return float(hit["ratio"].iloc[0]) if len(hit) else np.nan
    s = evidence.shapes
    ratio = _cutlass_ratio(evidence, choice, s[(s["M"] == m) & (s["N"] == n) & (s["K"] == k)])
    return float(ratio[0]) if len(ratio) else np.nan


def leave_one_out(dispatch: GemmDispatch, evidence: CublasEvidence, rule: LeafRule) -> LeafCv:
    """``rule``'s figures on ``dispatch`` (CUTLASS leaves), each training shape left out."""
    tagged = tag_leaves(dispatch, evidence.shapes)
    ratios, moved = [], 0
    columns = tagged[[*SHAPE, "leaf"]].to_numpy(dtype=np.int64)
    for m, n, k, node in (tuple(int(v) for v in r) for r in columns):
        assert dispatch.tree.nodes[node].dim == LEAF
        choice = dispatch.choices[dispatch.tree.nodes[node].choice]
        same = (tagged["M"] == m) & (tagged["N"] == n) & (tagged["K"] == k)
        others = tagged[(tagged["leaf"] == node) & ~same][[*SHAPE, "heuristic_tflops"]]
        runs, _ = decide_leaf(choice, others, evidence, rule)
        moved += runs != CUBLAS
        ratios.append(_ratio_at(evidence, choice, runs, (m, n, k)))
    values = pd.Series(ratios, dtype=np.float64).dropna().to_numpy()
    return LeafCv(
        shapes=len(ratios),
        measured=len(values),
        geomean=float(np.exp(np.mean(np.log(values)))) if len(values) else np.nan,
        worst=float(values.min()) if len(values) else np.nan,
        below_floor=int((values < FLOOR).sum()),
        not_cublas=moved,
    )
