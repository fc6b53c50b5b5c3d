"""benchspace: a tuning harness for libraries whose speed hangs on compile-time constants.

One import namespace, three rooms: :mod:`benchspace.harness` (spaces, sweeps, the store,
profiles, analysis, the CLI), :mod:`benchspace.generators` (headers from profiles) and
:mod:`benchspace.evaluation` (the CUTLASS kernel-selection study). In the repository the rooms
are the top-level folders ``harness/``, ``generators/`` and ``evaluation/``; the wheel installs
them under ``benchspace/`` and no other top-level name.
"""

__version__ = "0.1.0"
