"""The dispatch tree: robust leaf choices, best-first splits, the leaf budget, relabelling."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.deploy.dispatch_tree import LEAF, grow_tree, relabel

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
