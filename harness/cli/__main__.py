"""``python -m benchspace.harness.cli``: the same as the ``benchspace`` command."""

import sys

from benchspace.harness.cli import main

sys.exit(main())
