"""The learned kernel selector: features, encoding, grades, regret, sampling, models, CV, HPO.

Second wing of ``evaluation`` (order: cutlass → selector → study → deploy): imports
``benchspace.evaluation.cutlass`` and ``harness``, never ``study`` or ``deploy``. Within it:
``features`` → ``encoding`` / ``sampling`` / ``static_time`` / ``nvmmh`` (NVIDIA's ranking,
optional); ``grades``, ``metrics``; ``models`` / ``mlp`` (on ``encoding``) → ``cv`` → ``hpo``;
``calibration``; ``model_file`` (a trained selector on disk).
"""
