"""The dispatch tree: robust leaf choices, best-first splits, the leaf budget, relabelling."""

from __future__ import annotations

import numpy as np
import pytest

from benchspace.evaluation.deploy.dispatch_tree import LEAF, LeafCost, grow_tree, relabel

EDGES = [np.array([256, 512, 1024, 2048])] * 3


def _crafted() -> tuple[np.ndarray, np.ndarray]:
    """CRAFTED: candidate 0 is best for M <= 512, candidate 1 above; candidate 2 is second
    everywhere (never best, a 3 % loss)."""
    rng = np.random.default_rng(0)
    shapes = rng.integers(1, 128, size=(400, 3)) * 32
    small = shapes[:, 0] <= 512
    logy = np.full((len(shapes), 3), np.log(0.5))
    logy[small, 0] = 0.0
    logy[~small, 1] = 0.0
    logy[:, 2] = np.log(0.97)
    return shapes, logy


def test_one_leaf_takes_the_robust_choice() -> None:
    shapes, logy = _crafted()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=1)
    # The always-second candidate has the best geometric mean over the whole box.
    assert len(tree.leaves) == 1 and tree.leaves[0].choice == 2
    assert tree.leaves[0].samples == 400
    assert tree.leaves[0].loss == pytest.approx(-np.log(0.97))


def test_the_split_that_removes_the_loss_comes_first() -> None:
    shapes, logy = _crafted()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=8)
    root = tree.nodes[0]
    assert (root.dim, root.edge) == (0, 512)
    assert len(tree.leaves) == 2  # no further split helps
    picks = tree.choose(shapes)
    np.testing.assert_array_equal(picks, np.where(shapes[:, 0] <= 512, 0, 1))
    assert all(leaf.loss == 0 for leaf in tree.leaves)


def test_leaves_keep_at_least_min_samples() -> None:
    shapes, logy = _crafted()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=8, min_samples=390)
    assert len(tree.leaves) == 1


def test_relabel_and_leaf_of() -> None:
    shapes, logy = _crafted()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=2)
    leaves = [i for i, n in enumerate(tree.nodes) if n.dim == LEAF]
    changed = relabel(tree, {leaves[1]: 7})
    assert changed.choose(np.array([[64, 64, 64], [4096, 64, 64]])).tolist() == [0, 7]
    assert set(tree.leaf_of(shapes).tolist()) == set(leaves)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one feature row per row of logy"):
        grow_tree(np.zeros((3, 3), dtype=np.int64), np.zeros((2, 2)), EDGES, 4)
    with pytest.raises(ValueError, match="max_leaves 0 must be at least 1"):
        grow_tree(np.zeros((2, 3), dtype=np.int64), np.zeros((2, 2)), EDGES, 0)


def _checkerboard() -> tuple[np.ndarray, np.ndarray]:
    """CRAFTED: candidate 0 is best where exactly one of M, N is <= 512, candidate 1 where
    neither or both are; candidate 2 is second everywhere (a 3 % loss). No single edge
    changes the robust choice of the whole box, two do."""
    rng = np.random.default_rng(1)
    shapes = rng.integers(1, 128, size=(800, 3)) * 32
    odd = (shapes[:, 0] <= 512) != (shapes[:, 1] <= 512)
    logy = np.full((len(shapes), 3), np.log(0.5))
    logy[odd, 0] = 0.0
    logy[~odd, 1] = 0.0
    logy[:, 2] = np.log(0.97)
    return shapes, logy


def _expected(shapes: np.ndarray) -> np.ndarray:
    return np.where((shapes[:, 0] <= 512) != (shapes[:, 1] <= 512), 0, 1)


def test_the_exact_criterion_stalls_where_two_edges_are_needed() -> None:
    shapes, logy = _checkerboard()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=8)
    assert len(tree.leaves) == 1 and tree.leaves[0].choice == 2


def test_the_surrogate_finds_them_and_pruning_drops_what_does_not_help() -> None:
    shapes, logy = _checkerboard()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=8, temperature=0.02, overgrow=4)
    # Four boxes run the per-shape best; splits that do not change a choice were merged.
    assert len(tree.leaves) == 4
    assert {n.dim for n in tree.nodes if n.dim != LEAF} == {0, 1}
    np.testing.assert_array_equal(tree.choose(shapes), _expected(shapes))
    assert all(leaf.loss == 0 for leaf in tree.leaves)


def test_pruning_keeps_the_budget() -> None:
    shapes, logy = _checkerboard()
    tree = grow_tree(shapes, logy, EDGES, max_leaves=3, temperature=0.02, overgrow=4)
    assert len(tree.leaves) == 3
    # Three leaves: the large part of one dimension (7/8 of the shapes) split at the other
    # runs the per-shape best; the small part stays mixed and runs the safe candidate.
    picks = tree.choose(shapes)
    exact = picks == _expected(shapes)
    assert exact.mean() > 0.8
    assert set(picks[~exact].tolist()) == {2}


def test_the_tail_penalty_trades_mean_for_the_worst_shape() -> None:
    """CRAFTED: candidate 0 is exact on 19 shapes of 20 and 25 % behind on the last;
    candidate 1 is 2 % behind everywhere."""
    shapes = np.array([[64 * (i + 1), 64, 64] for i in range(20)])
    logy = np.zeros((20, 2))
    logy[19, 0] = np.log(0.75)
    logy[:, 1] = np.log(0.98)
    edges = [np.array([4096])] * 3  # nothing can be split off
    plain = grow_tree(shapes, logy, edges, max_leaves=1)
    assert plain.leaves[0].choice == 0  # best geometric mean
    cost = LeafCost(tail=-np.log(0.97), weight=3.0)
    tailed = grow_tree(shapes, logy, edges, max_leaves=1, cost=cost)
    assert tailed.leaves[0].choice == 1
    assert tailed.leaves[0].loss == pytest.approx(-np.log(0.98) * 19 / 20)
    worst = np.log(0.98 / 0.75)  # candidate 0's regret on the last shape, against candidate 1
    np.testing.assert_allclose(
        cost.costs(logy.max(axis=1, keepdims=True) - logy),
        [worst + 3 * (worst + np.log(0.97)), -np.log(0.98) * 19],
    )
