"""``python harness/sensitivity.py PROFILE ...`` (BatchLAS's usage): ``benchspace sensitivity``.

The analysis is harness/analysis/sensitivity.py; the command is harness/cli/sensitivity.py.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    if not __package__:
        # Run as a script: import the package from the repository, not harness/ itself, so
        # that modules here never shadow the standard library's.
        from pathlib import Path

        sys.path[0] = str(Path(__file__).resolve().parent.parent)
    from benchspace.harness.cli import main

    sys.exit(main(["sensitivity", *sys.argv[1:]]))
