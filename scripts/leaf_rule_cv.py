#!/usr/bin/env python3
"""How many training shapes a leaf of the shipped GEMM header needs before it may leave the
cuBLASLt heuristic: the shipped selector's tree (as ``scripts/check_headers.sh`` grows it),
and per ``min_shapes`` the leave-one-out figures on dataset v2's training shapes
(:func:`evaluation.deploy.leaf_policy.leave_one_out`); nothing here reads the evaluation shapes.

    python scripts/leaf_rule_cv.py [--min-shapes 1 2 3]     (several minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchspace.evaluation.cutlass.dataset_read import load_dataset  # noqa: E402
from benchspace.evaluation.deploy.cublas_evidence import cublas_evidence  # noqa: E402
from benchspace.evaluation.deploy.kernel_header import (  # noqa: E402
    GemmHeaderSpec,
    choose_dispatch,
)
from benchspace.evaluation.deploy.leaf_policy import LeafRule, leave_one_out  # noqa: E402
from benchspace.evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-shapes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--dataset", default=str(ROOT / "evaluation/data/h200/v2"))
    args = parser.parse_args()
    selector = load_selector(SHIPPED_SELECTOR)
    evidence = cublas_evidence(load_dataset(args.dataset), "train")
    base = choose_dispatch(
        selector, GemmHeaderSpec(pilot=1000, narrow=4), None, 0, cublas_leaves=False
    )
    print(f"tree of {SHIPPED_SELECTOR.name}: {len(base.tree.leaves)} leaves (pilot 1000, narrow 4)")
    for n in args.min_shapes:
        rule = LeafRule(policy="pinned", min_shapes=n)
        print(leave_one_out(base, evidence, rule).line(rule))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
