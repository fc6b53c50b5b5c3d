"""Dense seeded shape samples and the candidate split edges."""

from __future__ import annotations

import numpy as np
import pytest

from benchspace.evaluation.deploy.shape_sample import ShapeDomain, log2_edges, sample_shapes
from benchspace.harness.errors import UsageError


def test_samples_are_seeded_aligned_and_inside_the_box() -> None:
    domain = ShapeDomain(low=32, high=16384, align=32)
    a, b = sample_shapes(domain, 500, 0), sample_shapes(domain, 500, 0)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (500, 3) and (a % 32 == 0).all()
    assert a.min() >= 32 and a.max() <= 16384
    assert not np.array_equal(a, sample_shapes(domain, 500, 1))
    # Log-uniform: about as many shapes below the geometric middle (724) as above it.
    assert 0.4 < np.mean(a[:, 0] <= 724) < 0.6


def test_edges_are_aligned_distinct_and_inside() -> None:
    edges = log2_edges(ShapeDomain(low=32, high=512, align=32), per_octave=2)
    assert edges.tolist() == [32, 64, 96, 128, 192, 256, 352]


def test_bad_domains_are_refused() -> None:
    with pytest.raises(UsageError, match="need 1 <= align <= low < high"):
        sample_shapes(ShapeDomain(low=48, high=1024, align=32), 10, 0)
    with pytest.raises(UsageError, match="at least 1 shape"):
        sample_shapes(ShapeDomain(), 0, 0)
