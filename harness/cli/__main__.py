"""``python -m benchspace.harness.cli``: the same as the ``benchspace`` command."""

import sys

from benchspace.__main__ import main

sys.exit(main())
