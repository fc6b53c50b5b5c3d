"""Whether the tests that run sweeps on Dask can run: the 'distributed' package is an optional
dependency (``.[dist]``); the ``cluster`` fixture is in tests/conftest.py."""

from __future__ import annotations

import pytest

try:
    import distributed
except ImportError:  # an optional dependency: .[dist]
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason="needs the 'distributed' package")
