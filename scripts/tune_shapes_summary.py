#!/usr/bin/env python3
"""What ``scripts/device/tune_shapes.sh`` measured on the GPU: per K the summary lines of
``benchspace cutlass header --from-profile`` (its per-shape table left out), each header
written to a scratch folder and dropped.

    python scripts/tune_shapes_summary.py [RUN_DIR] [SHORTLIST] [--ks 1 4 8] [--listed]

``--listed`` (a run whose space holds cuBLASLt's listed configurations, ``tune-shapes
--cublaslt-space``): each K twice, with them and without them (``--no-listed``), from the same
rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

from benchspace.harness.cli import main as benchspace


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", nargs="?", type=Path,
                   default=Path("evaluation/data/h200/tune_shapes/llm"))  # fmt: skip
    p.add_argument("shortlist", nargs="?", default="spaces/tune_shapes_llm.shortlist.csv")
    p.add_argument("--ks", type=int, nargs="+", default=[1, 4, 8])
    p.add_argument("--listed", action="store_true")
    args = p.parse_args()
    variants = [("", []), (" without the listed configurations", ["--no-listed"])]
    with tempfile.TemporaryDirectory() as scratch:
        for k in args.ks:
            for title, extra in variants if args.listed else variants[:1]:
                name = f"gemm_kernels_k{k}{'_no_listed' if extra else ''}.hh"
                out = Path(scratch) / name
                argv = ["cutlass", "header", "--from-profile", str(args.run / "profile.json"),
                        "--shortlist", args.shortlist, "--topk", str(k), "--out", str(out),
                        *extra]  # fmt: skip
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    code = benchspace(argv)
                if code != 0:
                    return code
                lines = [ln for ln in printed.getvalue().splitlines() if not ln.startswith("|")]
                print(f"K={k}{title}:")
                for line in lines:
                    print("  " + line.replace(str(out), name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
