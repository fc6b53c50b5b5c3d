"""CUTLASS SM90 GEMM kernel-selection study, in four wings that depend one way.

``cutlass`` → ``selector`` → ``study`` → ``deploy``: a wing imports only the wings before it
(and ``harness``/``generators``), never one after it.

* :mod:`benchspace.evaluation.cutlass`: what is measured and how — GPU descriptors, the kernel
  catalogue, shared memory and spill rules, kernel sets, shape sets, the batch build, the
  driver's CSV, the study's space, and the measured dataset (load and export).
* :mod:`benchspace.evaluation.selector`: the learned selector — static features, encoding, grades,
  regret, the sampling policies, the models (XGBoost, ridge, MLP), grouped CV, HPO and the
  saved model file.
* :mod:`benchspace.evaluation.study`: the study on a dataset — training and held-out judging,
  correlation and sampling analyses, the dataset summary and the report.
* :mod:`evaluation.deploy`: shipping a selector — per-shape ranking and the bucketed kernel
  header.

Shipped data (measured datasets, shape sets, hardware descriptors, trained models, reports)
lives under :data:`DATA_DIR`, found from the package rather than from the working directory:
the checkout's ``evaluation/data`` where it exists (a source tree, an editable install), else
the ``benchspace-h200`` distribution that the ``[cutlass]`` extra installs (package
``benchspace_h200``, built from the same folder by ``packages/benchspace-h200``).
"""

import importlib.util
from pathlib import Path

DATA_PACKAGE = "benchspace_h200"
"""The import name of the study's data distribution (``pip install benchspace-h200``)."""


def _data_dir() -> Path:
    """The checkout's ``evaluation/data`` if present, else the data distribution's folder."""
    local = Path(__file__).resolve().parent / "data"
    if local.is_dir():
        return local
    spec = importlib.util.find_spec(DATA_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return local


DATA_DIR = _data_dir()
"""``evaluation/data``: datasets (``h200/``), ``shapes/``, ``hardware/``, ``models/``, ``reports/``.
"""
