"""A compact dispatch decision tree over (M, N, K), grown to keep a selector's choices.

Input: sampled shapes and, for each, the log of every candidate's predicted relative
throughput ``log y(s, c)`` (0 at the selector's own argmax when calibrated to it). A leaf
runs one candidate for all of its shapes, the *robust* choice: the one with the best
geometric mean of ``y`` over the leaf's samples, ``argmax_c sum_s log y(s, c)``. The loss of a
leaf is what that costs against choosing per shape::

    L(S) = sum_s max_c log y(s, c) - max_c sum_s log y(s, c)   (>= 0)

Growth is best-first: the leaf whose best split (an axis-aligned edge ``x <= e`` on M, N or K
from a fixed set of candidate edges) lowers the loss most is split next, until the leaf budget
is spent, no split helps, or leaves would hold fewer than ``min_samples`` samples. The
tree is a flat node list (root first); a node either tests ``shape[dim] <= edge`` or is a leaf.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

LEAF = -1
DIMS = ("M", "N", "K")


@dataclass(frozen=True, kw_only=True, slots=True)
class TreeNode:
    """A test ``shape[dim] <= edge ? left : right``, or a leaf (``dim == -1``) with a choice."""

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

    def leaf_of(self, shapes: np.ndarray) -> np.ndarray:
        """The node index of the leaf each row (M, N, K) of ``shapes`` falls in."""
        shapes = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
        out = np.empty(len(shapes), dtype=np.int64)
        for i, shape in enumerate(shapes):
            at = 0
            while (node := self.nodes[at]).dim != LEAF:
                at = node.left if shape[node.dim] <= node.edge else node.right
            out[i] = at
        return out

    def choose(self, shapes: np.ndarray) -> np.ndarray:
        """The leaf choice for each row (M, N, K) of ``shapes``."""
        choice = np.array([n.choice for n in self.nodes], dtype=np.int64)
        return np.asarray(choice[self.leaf_of(shapes)], dtype=np.int64)


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
    for dim in range(3):
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
    """Best-first growth; see the module docstring. ``edges[d]``: candidate edges of dim d."""
    shapes = np.asarray(shapes, dtype=np.int64)
    logy = np.asarray(logy, dtype=np.float64)
    if shapes.shape != (len(logy), 3) or logy.ndim != 2 or not len(logy):
        raise ValueError("need one (M, N, K) row per row of logy, and at least one")
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
