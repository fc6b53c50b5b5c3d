#!/usr/bin/env python3
"""What ``scripts/device/tune_shapes.sh`` measured on the H200 (evaluation/data/h200/tune_shapes/
llm): per K the summary lines of ``benchspace cutlass header --from-profile`` (its per-shape
table left out), each header written to a scratch folder and dropped.

    python scripts/tune_shapes_summary.py [RUN_DIR] [SHORTLIST]
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

from benchspace.harness.cli import main as benchspace

KS = (1, 4, 8)


def main() -> int:
    run = Path(sys.argv[1] if len(sys.argv) > 1 else "evaluation/data/h200/tune_shapes/llm")
    short = sys.argv[2] if len(sys.argv) > 2 else "spaces/tune_shapes_llm.shortlist.csv"
    with tempfile.TemporaryDirectory() as scratch:
        for k in KS:
            out = Path(scratch) / f"gemm_kernels_k{k}.hh"
            argv = ["cutlass", "header", "--from-profile", str(run / "profile.json"),
                    "--shortlist", short, "--topk", str(k), "--out", str(out)]  # fmt: skip
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = benchspace(argv)
            if code != 0:
                return code
            lines = [line for line in printed.getvalue().splitlines() if not line.startswith("|")]
            print(f"K={k}:")
            for line in lines:
                print("  " + line.replace(str(out), f"gemm_kernels_k{k}.hh"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
