"""``benchspace cutlass summary`` of a timing-study folder (``timing_rows_*.csv.gz``): reads the
folder and renders every figure (IO here; the computation is in :mod:`timing_runs` and
:mod:`position`)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from benchspace.evaluation.study.position import position_check
from benchspace.evaluation.study.timing_runs import (
    k_curve,
    load_timing,
    mode_noise,
    read_shortlist,
)
from benchspace.evaluation.study.timing_runs_format import render_timing

CURVE_MODES = ("g2ms", "g0", "g3")
"""The K curve in the chosen modes (g2ms, the quietest between runs; g0 before it) and the old
protocol's."""


def timing_summary(folder: Path) -> str:
    """The study's lines for ``folder``."""
    rows = load_timing(folder)
    provenance = folder / "provenance.json"
    p = json.loads(provenance.read_text()) if provenance.exists() else {}
    title = (
        f"{folder}: {p.get('gpu', '?')}, driver {p.get('driver', '?')}, cuBLASLt "
        f"{p.get('cublaslt_version', '?')}, CUTLASS {p.get('cutlass_version', '?')}"
    )
    modes = sorted(str(m) for m in rows["mode"].unique())
    by_mode = {m: position_check(rows[rows["mode"] == m]) for m in modes}
    finalists = folder / "finalists.json"
    curves = {}
    if finalists.exists():
        shortlist = read_shortlist(finalists)
        curves = {m: k_curve(rows, shortlist, m) for m in CURVE_MODES if m in modes}
    text = render_timing(title, position_check(rows), by_mode, mode_noise(rows), curves)
    if (folder / "picks.json").exists():
        from benchspace.evaluation.study.pinned_study import pinned_study, render_pinned

        study = pinned_study(
            rows,
            json.loads((folder / "picks.json").read_text()),
            json.loads(finalists.read_text()) if finalists.exists() else {},
            pd.read_csv(counts) if (counts := folder / "space_counts.csv").exists() else None,
        )
        text += "\n" + render_pinned(study)
    return text
