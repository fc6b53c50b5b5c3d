"""How well a leaf rule (:mod:`evaluation.deploy.leaf_policy`) carries to shapes it did not
see, judged on the training shapes alone: each shape is left out in turn, its leaf decided on
the leaf's other training shapes, and the option so chosen is read at the shape left out
(``cublas`` 1 by definition; a kernel or a pinned key never timed there: not measured).

Nothing here looks at the evaluation shapes, so a rule can be chosen by these figures and then
judged on them. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.deploy.cublas_evidence import SHAPE, CublasEvidence
from benchspace.evaluation.deploy.dispatch_tree import LEAF
from benchspace.evaluation.deploy.gemm_dispatch import CUBLAS, GemmChoice, GemmDispatch
from benchspace.evaluation.deploy.leaf_policy import LeafRule, decide_leaf, tag_leaves

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
    c, s = evidence.cutlass, evidence.shapes
    hit = c[
        (c["M"] == m)
        & (c["N"] == n)
        & (c["K"] == k)
        & (c["kernel"] == choice.kernel)
        & (c["raster"] == choice.raster)
        & (c["swizzle"].astype(int) == choice.swizzle)
    ]
    heur = s[(s["M"] == m) & (s["N"] == n) & (s["K"] == k)]["heuristic_tflops"]
    if not len(hit) or not len(heur):
        return np.nan
    return float(hit["tflops"].iloc[0]) / float(heur.iloc[0])


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
