"""CUTLASS SM90 GEMM kernel-selection study, in four wings that depend one way.

``cutlass`` → ``selector`` → ``study`` → ``deploy``: a wing imports only the wings before it
(and ``harness``/``generators``), never one after it.

* :mod:`evaluation.cutlass`: what is measured and how — GPU descriptors, the kernel
  catalogue, shared memory and spill rules, kernel sets, shape sets, the batch build, the
  driver's CSV, the study's space, and the measured dataset (load and export).
* :mod:`evaluation.selector`: the learned selector — static features, encoding, grades,
  regret, the sampling policies, the models (XGBoost, ridge, MLP), grouped CV, HPO and the
  saved model file.
* :mod:`evaluation.study`: the study on a dataset — training and held-out judging,
  correlation and sampling analyses, the dataset summary and the report.
* :mod:`evaluation.deploy`: shipping a selector — per-shape ranking and the bucketed kernel
  header.

Shipped data (measured datasets, shape sets, hardware descriptors, trained models, reports)
lives under :data:`DATA_DIR`, found from this file rather than from the working directory.
"""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
"""``evaluation/data``: datasets (``h200/``), ``shapes/``, ``hardware/``, ``models/``, ``reports/``.
"""
