"""The selection study on one dataset: train, judge on held-out shapes, analyse, report.

Third wing of ``evaluation`` (order: cutlass → selector → study → deploy): imports
``evaluation.cutlass``, ``evaluation.selector`` and ``harness``, never ``deploy``. Within it:
``correlation``, ``sampling_study``, ``baselines`` → ``run`` → ``report`` (renders a run);
``summary`` → ``summary_format``.
"""
