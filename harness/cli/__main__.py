"""``python -m harness.cli``: the same as the ``benchspace`` command."""

import sys

from harness.cli import main

sys.exit(main())
