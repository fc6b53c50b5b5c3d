#!/usr/bin/env python3
"""Print the cuBLASLt ranker's budget curve on the wide study's screen
(:mod:`evaluation.study.cublaslt_rank`): how much of the screen's best the heuristic's top 8
plus a ranker's (or a random draw's) top k of cuBLASLt's listed space find.

    python scripts/cublaslt_rank.py [evaluation/data/h200/cublaslt_wide]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchspace.evaluation.study.cublaslt_rank import (  # noqa: E402
    out_of_fold_scores,
    rank_study,
    render_rank_study,
    screen_frame,
)
from benchspace.evaluation.study.timing_runs import load_timing  # noqa: E402


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("evaluation/data/h200/cublaslt_wide")
    frame = screen_frame(load_timing(folder))
    print(f"{folder}: run s")
    print(render_rank_study(rank_study(frame, out_of_fold_scores(frame))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
