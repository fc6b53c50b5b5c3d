"""The dispatch tree's shape features: values and split edges."""

from __future__ import annotations

import numpy as np

from benchspace.evaluation.deploy.shape_features import feature_matrix, shape_features
from benchspace.evaluation.deploy.shape_sample import ShapeDomain


def test_padding_and_wave_features() -> None:
    row = feature_matrix(np.array([[100, 300, 64]]), 132)[0].tolist()
    # M, N, K; M padded to 64/128/256; N likewise; tiles of 128x128 ... mod 132.
    assert row[:9] == [100, 300, 64, 28, 28, 156, 20, 84, 212]
    assert row[9] == (1 * 3) % 132 and row[13] == (2 * 5) % 132


def test_every_feature_has_edges_and_a_cxx_expression() -> None:
    features = shape_features(ShapeDomain(), 132)
    assert [f.name for f in features[:4]] == ["M", "N", "K", "pad64(M)"]
    assert len(features) == feature_matrix(np.array([[64, 64, 64]]), 132).shape[1]
    assert all(f.edges and f.cxx for f in features)
    assert features[4].edges == (0, 32, 64)
