#!/usr/bin/env python3
"""Print the cuBLASLt ranker's budget curve on the wide study's screen
(:mod:`evaluation.study.cublaslt_rank`): how much of the screen's best the heuristic's top 8
plus a ranker's (or a random draw's) top k of cuBLASLt's listed space find.

    python scripts/cublaslt_rank.py [evaluation/data/h200/cublaslt_wide]

With ``--space SPACE.csv.gz --k K --out FILE``, write instead the screen's finalists for
``scripts/device/cublaslt_wide.sh`` (``RANKED=FILE``): per shape of the listed space, the
ranker's top K configurations, each shape ranked by a model that never saw it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from benchspace.evaluation.study.cublaslt_rank import (  # noqa: E402
    out_of_fold_scores,
    rank_study,
    ranked_space,
    render_rank_study,
    screen_frame,
)
from benchspace.evaluation.study.timing_runs import load_timing  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", type=Path,
                   default=Path("evaluation/data/h200/cublaslt_wide"))  # fmt: skip
    p.add_argument("--space", type=Path, help="a listed space (space.csv.gz) to rank")
    p.add_argument("--k", type=int, default=256, help="with --space: configurations per shape")
    p.add_argument("--out", type=Path, help="with --space: the screen's finalists (json)")
    args = p.parse_args()
    frame = screen_frame(load_timing(args.folder))
    if args.space is None:
        print(f"{args.folder}: run s")
        print(render_rank_study(rank_study(frame, out_of_fold_scores(frame))))
        return 0
    if args.out is None:
        p.error("--space needs --out FILE")
    ranked = ranked_space(pd.read_csv(args.space), frame, args.k)
    out = {shape: {"shortlist": [], "extra": keys} for shape, keys in ranked.items()}
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    total = sum(len(keys) for keys in ranked.values())
    print(f"{args.out}: the ranker's top {args.k} of {args.space} for {len(out)} shapes, "
          f"{total} configurations (ranked by models trained on {args.folder}'s screen, "
          "out of fold)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
