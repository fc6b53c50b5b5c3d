"""Script form of ``benchspace generate``: a bucketed constexpr tuning header from a profile.

    python generators/generate_tuning_header.py --profile P [--space S] --out H

The command lives in `harness.cli.generate`, the generator in `generators.generate`.
"""

from __future__ import annotations

import sys

from benchspace.harness.cli.generate import main

if __name__ == "__main__":
    sys.exit(main())
