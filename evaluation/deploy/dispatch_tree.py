"""A compact dispatch tree over integer shape features, grown to keep a selector's choices.

Input: sampled shapes as rows of integer features (M, N, K and the quantisation features of
:mod:`evaluation.deploy.shape_features`) and, for each, the log of every candidate's predicted
relative throughput ``log y(s, c)`` (0 at the selector's own argmax when calibrated to it). A leaf
runs one candidate for all of its shapes, the *robust* choice: the one with the best
geometric mean of ``y`` over the leaf's samples, ``argmax_c sum_s log y(s, c)``. The loss of a
leaf is what that costs against choosing per shape::

    L(S) = sum_s max_c log y(s, c) - max_c sum_s log y(s, c)   (>= 0)

Growth is best-first: the leaf whose best split (an edge ``x <= e`` on one feature, from a
fixed set of candidate edges per feature) lowers the loss most is split next, until the leaf
budget is spent, no split helps, or leaves would hold fewer than ``min_samples`` samples. The
tree is a flat node list (root first); a node either tests ``feature[dim] <= edge`` or is a
leaf.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

LEAF = -1


@dataclass(frozen=True, kw_only=True, slots=True)
class TreeNode:
    """A test ``feature[dim] <= edge ? left : right``, or a leaf (``dim == -1``) with a choice."""

    dim: int
    edge: int = 0
    left: int = -1
    right: int = -1
    choice: int = -1
    """Column of the candidate the leaf runs."""
    samples: int = 0
    loss: float = 0.0
    """Leaf: mean per-sample loss ``L(S)/|S|`` (log units)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class DispatchTree:
    """Nodes, root first."""

    nodes: tuple[TreeNode, ...]

    @property
    def leaves(self) -> tuple[TreeNode, ...]:
        """The leaves in node order."""
        return tuple(n for n in self.nodes if n.dim == LEAF)

    def leaf_of(self, features: np.ndarray) -> np.ndarray:
        """The node index of the leaf each row of ``features`` falls in."""
        rows = np.atleast_2d(np.asarray(features, dtype=np.int64))
        out = np.empty(len(rows), dtype=np.int64)
        for i, shape in enumerate(rows):
            at = 0
            while (node := self.nodes[at]).dim != LEAF:
                at = node.left if shape[node.dim] <= node.edge else node.right
            out[i] = at
        return out

    def choose(self, features: np.ndarray) -> np.ndarray:
        """The leaf choice for each row of ``features``."""
        choice = np.array([n.choice for n in self.nodes], dtype=np.int64)
        return np.asarray(choice[self.leaf_of(features)], dtype=np.int64)


@dataclass(frozen=True, kw_only=True, slots=True)
class _Split:
    gain: float
    dim: int
    edge: int


def _leaf(logy: np.ndarray, rows: np.ndarray) -> tuple[int, float]:
    """The robust choice of ``rows`` and the leaf's total loss."""
    total = logy[rows].sum(axis=0)
    choice = int(np.argmax(total))
    return choice, float(logy[rows].max(axis=1).sum() - total[choice])


def _best_split(
    shapes: np.ndarray,
    logy: np.ndarray,
    rows: np.ndarray,
    edges: Sequence[np.ndarray],
    min_samples: int,
) -> _Split | None:
    total = logy[rows].sum(axis=0)
    base = float(total.max())
    best: _Split | None = None
    for dim in range(shapes.shape[1]):
        values = shapes[rows, dim]
        order = np.argsort(values, kind="stable")
        sorted_values = values[order]
        cut = np.searchsorted(sorted_values, edges[dim], side="right")
        ok = (cut >= min_samples) & (len(rows) - cut >= min_samples)
        if not ok.any():
            continue
        cuts, dim_edges = cut[ok], np.asarray(edges[dim])[ok]
        cuts, first = np.unique(cuts, return_index=True)
        dim_edges = dim_edges[first]
        prefix = np.cumsum(logy[rows[order]], axis=0)[cuts - 1]
        gain = prefix.max(axis=1) + (total - prefix).max(axis=1) - base
        at = int(np.argmax(gain))
        if gain[at] > 1e-9 and (best is None or gain[at] > best.gain):
            best = _Split(gain=float(gain[at]), dim=dim, edge=int(dim_edges[at]))
    return best


def grow_tree(
    shapes: np.ndarray,
    logy: np.ndarray,
    edges: Sequence[np.ndarray],
    max_leaves: int,
    min_samples: int = 4,
) -> DispatchTree:
    """Best-first growth; see the module docstring. ``shapes``: one row of integer features
    per sample; ``edges[d]``: the candidate edges of feature ``d``."""
    shapes = np.asarray(shapes, dtype=np.int64)
    logy = np.asarray(logy, dtype=np.float64)
    if shapes.ndim != 2 or len(shapes) != len(logy) or logy.ndim != 2 or not len(logy):
        raise ValueError("need one feature row per row of logy, and at least one")
    if len(edges) != shapes.shape[1]:
        raise ValueError(f"{len(edges)} edge sets for {shapes.shape[1]} features")
    if max_leaves < 1:
        raise ValueError(f"max_leaves {max_leaves} must be at least 1")
    # Node records while growing: rows of samples, or the split that replaced them.
    rows_of: dict[int, np.ndarray] = {0: np.arange(len(shapes))}
    splits: dict[int, tuple[int, int, int, int]] = {}
    heap: list[tuple[float, int, _Split]] = []
    counter = 0

    def consider(node: int) -> None:
        split = _best_split(shapes, logy, rows_of[node], edges, min_samples)
        if split is not None:
            heapq.heappush(heap, (-split.gain, node, split))

    consider(0)
    leaves = 1
    while heap and leaves < max_leaves:
        _, node, split = heapq.heappop(heap)
        rows = rows_of.pop(node)
        go_left = shapes[rows, split.dim] <= split.edge
        left, right = counter + 1, counter + 2
        counter += 2
        rows_of[left], rows_of[right] = rows[go_left], rows[~go_left]
        splits[node] = (split.dim, split.edge, left, right)
        leaves += 1
        consider(left)
        consider(right)
    # Renumber depth-first so that the node list reads top-down.
    order: list[int] = []
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if node in splits:
            stack.extend((splits[node][3], splits[node][2]))
    position = {node: i for i, node in enumerate(order)}
    nodes = []
    for node in order:
        if node in splits:
            dim, edge, left, right = splits[node]
            nodes.append(TreeNode(dim=dim, edge=edge, left=position[left], right=position[right]))
        else:
            rows = rows_of[node]
            choice, loss = _leaf(logy, rows)
            nodes.append(
                TreeNode(dim=LEAF, choice=choice, samples=len(rows), loss=loss / len(rows))
            )
    return DispatchTree(nodes=tuple(nodes))


def relabel(tree: DispatchTree, choices: Mapping[int, int]) -> DispatchTree:
    """The same tree with leaf node ``i`` running ``choices[i]`` (other leaves unchanged)."""
    nodes = [
        TreeNode(dim=LEAF, choice=int(choices[i]), samples=n.samples, loss=n.loss)
        if n.dim == LEAF and i in choices
        else n
        for i, n in enumerate(tree.nodes)
    ]
    return DispatchTree(nodes=tuple(nodes))
