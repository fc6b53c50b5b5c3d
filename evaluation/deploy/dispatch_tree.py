"""A compact dispatch tree over integer shape features, grown to keep a selector's choices.

Input: sampled shapes as rows of integer features (M, N, K and the quantisation features of
:mod:`evaluation.deploy.shape_features`) and, for each, the log of every candidate's predicted
relative throughput ``log y(s, c)`` (0 at the selector's own argmax). A leaf runs one candidate
for all of its shapes. Its cost for candidate ``c`` is the log regret against choosing per shape
plus a penalty on the tail, the regret beyond ``tail`` (log units)::

    cost(S, c) = sum_s r(s, c) + tail_weight * sum_s max(0, r(s, c) - tail),
    r(s, c) = max_c' log y(s, c') - log y(s, c)   (>= 0)

and it runs ``argmin_c cost(S, c)``: with ``tail_weight = 0`` the candidate with the best
geometric mean of ``y`` (the robust choice), with a weight one that keeps every shape near its
best where it can, at a small cost in the mean.

Growth is best-first over edges ``x <= e`` on one feature (a fixed set of candidate edges per
feature). The exact criterion (``temperature=None``) splits the leaf whose best split lowers
the cost most; it stalls where no single edge changes a leaf's choice although two would.
The surrogate (``temperature`` set) splits by the drop in Gini impurity of each shape's soft
preference ``softmax(log y(s, .) / temperature)`` -- strictly concave, so it keeps separating
shapes that prefer different candidates -- grows ``overgrow`` times the budget, then prunes
back by the real cost: the pair of sibling leaves whose merge costs least is merged first, and
merges that cost nothing (both halves would run the same candidate) are always made. Leaves
hold at least ``min_samples`` samples. The tree is a flat node list (root first); a node either
tests ``feature[dim] <= edge`` or is a leaf.
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
    """Leaf: mean per-sample log regret of its choice (log units, no tail penalty)."""


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
        at = np.zeros(len(rows), dtype=np.int64)
        dim = np.array([n.dim for n in self.nodes], dtype=np.int64)
        edge = np.array([n.edge for n in self.nodes], dtype=np.int64)
        left = np.array([n.left for n in self.nodes], dtype=np.int64)
        right = np.array([n.right for n in self.nodes], dtype=np.int64)
        inner = dim[at] != LEAF
        while inner.any():
            i = np.flatnonzero(inner)
            node = at[i]
            go_left = rows[i, dim[node]] <= edge[node]
            at[i] = np.where(go_left, left[node], right[node])
            inner[i] = dim[at[i]] != LEAF
        return at

    def choose(self, features: np.ndarray) -> np.ndarray:
        """The leaf choice for each row of ``features``."""
        choice = np.array([n.choice for n in self.nodes], dtype=np.int64)
        return np.asarray(choice[self.leaf_of(features)], dtype=np.int64)


@dataclass(frozen=True, kw_only=True, slots=True)
class LeafCost:
    """How a leaf's candidate is judged: log regret plus ``weight`` times the regret past
    ``tail`` (log units)."""

    tail: float = 0.0
    weight: float = 0.0

    def costs(self, regret: np.ndarray) -> np.ndarray:
        """Cost of each column of a (samples x candidates) log-regret block."""
        total = regret.sum(axis=0)
        if self.weight > 0:
            total = total + self.weight * np.maximum(regret - self.tail, 0.0).sum(axis=0)
        return np.asarray(total, dtype=np.float64)


@dataclass(frozen=True, kw_only=True, slots=True)
class _Split:
    gain: float
    dim: int
    edge: int


def _segments(
    values: np.ndarray, edges: np.ndarray, min_samples: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Order of ``values``, the left-child sizes of the admissible distinct cuts and their
    edges; None when no cut leaves ``min_samples`` on both sides."""
    order = np.argsort(values, kind="stable")
    cut = np.searchsorted(values[order], edges, side="right")
    ok = (cut >= min_samples) & (len(values) - cut >= min_samples)
    if not ok.any():
        return None
    cuts, first = np.unique(cut[ok], return_index=True)
    return order, cuts, edges[ok][first]


def _prefix(block: np.ndarray, order: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Column sums of ``block[order][:cut]`` for each cut (ascending, inside ``(0, len)``)."""
    parts = np.add.reduceat(block[order], np.concatenate(([0], cuts)), axis=0)
    return np.cumsum(parts[:-1], axis=0)


def _best_split(
    shapes: np.ndarray,
    block: np.ndarray,
    edges: Sequence[np.ndarray],
    min_samples: int,
    gini: bool,
) -> _Split | None:
    """The best split of a node whose samples have features ``shapes`` and per-sample rows
    ``block`` (log y for the exact criterion, soft preferences for Gini)."""
    total = block.sum(axis=0)
    count = len(block)
    base = count - float(total @ total) / count if gini else float(total.max())
    best: _Split | None = None
    for dim in range(shapes.shape[1]):
        found = _segments(shapes[:, dim], edges[dim], min_samples)
        if found is None:
            continue
        order, cuts, dim_edges = found
        prefix = _prefix(block, order, cuts)
        rest = total - prefix
        if gini:
            n_left = cuts.astype(np.float64)
            impurity = count - (prefix * prefix).sum(axis=1) / n_left
            impurity -= (rest * rest).sum(axis=1) / (count - n_left)
            gain = base - impurity
        else:
            gain = prefix.max(axis=1) + rest.max(axis=1) - base
        at = int(np.argmax(gain))
        if gain[at] > 1e-9 and (best is None or gain[at] > best.gain):
            best = _Split(gain=float(gain[at]), dim=dim, edge=int(dim_edges[at]))
    return best


def _check(shapes: np.ndarray, logy: np.ndarray, edges: Sequence[np.ndarray], leaves: int) -> None:
    if shapes.ndim != 2 or len(shapes) != len(logy) or logy.ndim != 2 or not len(logy):
        raise ValueError("need one feature row per row of logy, and at least one")
    if len(edges) != shapes.shape[1]:
        raise ValueError(f"{len(edges)} edge sets for {shapes.shape[1]} features")
    if leaves < 1:
        raise ValueError(f"max_leaves {leaves} must be at least 1")


def grow_tree(
    shapes: np.ndarray,
    logy: np.ndarray,
    edges: Sequence[np.ndarray],
    max_leaves: int,
    min_samples: int = 4,
    *,
    temperature: float | None = None,
    overgrow: int = 1,
    cost: LeafCost | None = None,
) -> DispatchTree:
    """Grow and prune; see the module docstring. ``shapes``: one row of integer features per
    sample; ``edges[d]``: the candidate edges of feature ``d``."""
    shapes = np.asarray(shapes, dtype=np.int64)
    logy = np.asarray(logy, dtype=np.float64)
    _check(shapes, logy, edges, max_leaves)
    cost = cost or LeafCost()
    edge_sets = [np.asarray(e, dtype=np.int64) for e in edges]
    regret = logy.max(axis=1, keepdims=True) - logy
    gini = temperature is not None
    if temperature is not None:
        soft = np.exp(-regret / temperature)
        block = soft / soft.sum(axis=1, keepdims=True)
    else:
        block = logy
    rows_of: dict[int, np.ndarray] = {0: np.arange(len(shapes))}
    splits: dict[int, tuple[int, int, int, int]] = {}
    heap: list[tuple[float, int, _Split]] = []

    def consider(node: int) -> None:
        rows = rows_of[node]
        split = _best_split(shapes[rows], block[rows], edge_sets, min_samples, gini)
        if split is not None:
            heapq.heappush(heap, (-split.gain, node, split))

    consider(0)
    leaves = 1
    target = max_leaves * max(overgrow, 1) if gini else max_leaves
    while heap and leaves < target:
        _, node, split = heapq.heappop(heap)
        rows = rows_of[node]
        go_left = shapes[rows, split.dim] <= split.edge
        left, right = 2 * len(splits) + 1, 2 * len(splits) + 2
        rows_of[left], rows_of[right] = rows[go_left], rows[~go_left]
        splits[node] = (split.dim, split.edge, left, right)
        leaves += 1
        consider(left)
        consider(right)
    choice, score = {}, {}
    for node, rows in rows_of.items():
        costs = cost.costs(regret[rows])
        choice[node] = int(np.argmin(costs))
        score[node] = float(costs[choice[node]])
    _prune(splits, score, max_leaves)
    return _flatten(splits, rows_of, choice, regret)


def _prune(
    splits: dict[int, tuple[int, int, int, int]], score: Mapping[int, float], max_leaves: int
) -> None:
    """Merge sibling leaves, cheapest first, while over budget or while a merge is free."""
    parent = {left: node for node, (_, _, left, _) in splits.items()}
    parent.update({right: node for node, (_, _, _, right) in splits.items()})

    def merge_cost(node: int) -> float:
        _, _, left, right = splits[node]
        return score[node] - score[left] - score[right]

    def is_twig(node: int) -> bool:
        _, _, left, right = splits[node]
        return left not in splits and right not in splits

    heap = [(merge_cost(node), node) for node in splits if is_twig(node)]
    heapq.heapify(heap)
    leaves = len(splits) + 1
    while heap:
        increase, node = heap[0]
        if leaves <= max_leaves and increase > 1e-9:
            break
        heapq.heappop(heap)
        del splits[node]
        leaves -= 1
        up = parent.get(node)
        if up is not None and is_twig(up):
            heapq.heappush(heap, (merge_cost(up), up))


def _flatten(
    splits: Mapping[int, tuple[int, int, int, int]],
    rows_of: Mapping[int, np.ndarray],
    choice: Mapping[int, int],
    regret: np.ndarray,
) -> DispatchTree:
    """Renumber depth-first so that the node list reads top-down."""
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
            loss = float(regret[rows, choice[node]].mean())
            nodes.append(TreeNode(dim=LEAF, choice=choice[node], samples=len(rows), loss=loss))
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
