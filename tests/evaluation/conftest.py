"""Fixtures of the kernel-selection tests: the default catalogue (enumerated once) and the H200."""

from __future__ import annotations

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import load_catalogue
from benchspace.evaluation.cutlass.hardware import Hardware, load_hardware


@pytest.fixture(scope="session")
def catalogue() -> pd.DataFrame:
    """The default-level catalogue, all four layouts (472 kernels, about 0.3 s)."""
    return load_catalogue("default")


@pytest.fixture(scope="session")
def h200() -> Hardware:
    """The shipped H200 descriptor."""
    return load_hardware("h200")
