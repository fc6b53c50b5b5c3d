"""The timing study: the 64 v2 evaluation shapes' finalists re-timed in independent driver
runs (``scripts/device/timing_study.sh``), per timing mode.

Figures per mode (runs ``a`` and ``b``, the same shapes in new processes):

* heuristic two-run sd: sd over shapes of t_b / t_a of ``cublas:heuristic`` (ms_median);
* best re-timed loss: the configuration fastest in one run, its time in the other run over
  that run's fastest, minus 1 (both directions pooled): what choosing in one run costs when
  the choice is timed again;
* the K curve: the pick at K (fastest of the shortlist's top K in the *selection* run ``a``)
  against ``cublas:heuristic``, in ``a`` (selection) and re-timed in ``b`` (confirmation).

Pure: frames in, records out; :func:`load_timing` is the one reader.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchspace.harness.errors import ReaderError

HEURISTIC = "cublas:heuristic"
KS = (1, 4, 8)


@dataclass(frozen=True, kw_only=True)
class ModeNoise:
    """Between-run noise of one timing mode."""

    mode: str
    shapes: int
    heuristic_sd: float
    best_loss_mean: float
    best_loss_p95: float


@dataclass(frozen=True, kw_only=True)
class KPoint:
    """The pick at K against the heuristic, in the selection run and re-timed."""

    k: int
    select_geomean: float
    select_ahead: int
    confirm_geomean: float
    confirm_ahead: int
    or_cublas_select: float
    or_cublas_confirm: float
    shapes: int


def load_timing(folder: Path) -> pd.DataFrame:
    """Every ``timing_rows_*.csv.gz`` of ``folder`` (driver rows with run and mode)."""
    files = sorted(folder.glob("timing_rows_*.csv.gz"))
    frames = []
    for path in files:
        try:
            with gzip.open(path, "rt") as handle:
                frames.append(pd.read_csv(handle, dtype={"sentinel": str}, keep_default_na=False))
        except (OSError, ValueError) as exc:
            raise ReaderError(f"{path}: not a timing rows file ({exc}); re-fetch it") from None
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _ok(rows: pd.DataFrame) -> pd.DataFrame:
    ok = rows[(rows["status"] == "ok") & (rows["sentinel"].astype(str) != "last")].copy()
    ok["ms"] = pd.to_numeric(ok["ms_median"], errors="coerce")
    ok["shape"] = ok["M"].astype(str) + "x" + ok["N"].astype(str) + "x" + ok["K"].astype(str)
    return ok.dropna(subset=["ms"])


def _table(rows: pd.DataFrame, mode: str, run: str) -> pd.DataFrame:
    part = rows[(rows["mode"] == mode) & (rows["run"] == run)]
    return part.pivot_table(index="shape", columns="config", values="ms", aggfunc="first")


def _loss(choose: pd.DataFrame, retime: pd.DataFrame) -> pd.Series:
    shapes = choose.index.intersection(retime.index)
    out = {}
    for shape in shapes:
        pick = choose.loc[shape].dropna().idxmin()
        other = retime.loc[shape].dropna()
        if pick in other:
            out[shape] = float(other[pick] / other.min() - 1)
    return pd.Series(out, dtype=float)


def mode_noise(rows: pd.DataFrame) -> list[ModeNoise]:
    """Per mode with runs ``a`` and ``b``: the heuristic's two-run sd and the best's loss."""
    ok = _ok(rows)
    out = []
    for mode in sorted(ok["mode"].unique()):
        a, b = _table(ok, mode, "a"), _table(ok, mode, "b")
        shapes = a.index.intersection(b.index)
        if len(shapes) == 0 or HEURISTIC not in a or HEURISTIC not in b:
            continue
        ratio = (b.loc[shapes, HEURISTIC] / a.loc[shapes, HEURISTIC]).dropna()
        loss = pd.concat([_loss(a.loc[shapes], b.loc[shapes]), _loss(b.loc[shapes], a.loc[shapes])])
        out.append(
            ModeNoise(
                mode=str(mode),
                shapes=len(shapes),
                heuristic_sd=float(ratio.std(ddof=1)),
                best_loss_mean=float(loss.mean()),
                best_loss_p95=float(np.quantile(loss, 0.95)),
            )
        )
    return out


def _geo(values: list[float]) -> float:
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def k_curve(rows: pd.DataFrame, shortlist: dict[str, list[str]], mode: str) -> list[KPoint]:
    """The pick at each K of :data:`KS`, chosen in run ``a``, confirmed in run ``b``."""
    ok = _ok(rows)
    a, b = _table(ok, mode, "a"), _table(ok, mode, "b")
    shapes = [s for s in a.index.intersection(b.index) if s in shortlist]
    points = []
    for k in KS:
        sel, con, sel_or, con_or = [], [], [], []
        for shape in shapes:
            top = [c for c in shortlist[shape][:k] if c in a.columns and c in b.columns]
            ra, rb = a.loc[shape], b.loc[shape]
            top = [c for c in top if not np.isnan(ra[c]) and not np.isnan(rb[c])]
            if not top:
                continue
            pick = min(top, key=lambda c: ra[c])
            sel.append(ra[HEURISTIC] / ra[pick])
            con.append(rb[HEURISTIC] / rb[pick])
            # the header may dispatch cublas where the heuristic was faster in the selection run
            cublas = ra[HEURISTIC] < ra[pick]
            sel_or.append(1.0 if cublas else ra[HEURISTIC] / ra[pick])
            con_or.append(1.0 if cublas else rb[HEURISTIC] / rb[pick])
        points.append(
            KPoint(
                k=k,
                select_geomean=_geo(sel),
                select_ahead=sum(v > 1 for v in sel),
                confirm_geomean=_geo(con),
                confirm_ahead=sum(v > 1 for v in con),
                or_cublas_select=_geo(sel_or),
                or_cublas_confirm=_geo(con_or),
                shapes=len(sel),
            )
        )
    return points


def read_shortlist(path: Path) -> dict[str, list[str]]:
    """``spaces/timing_finalists.json``: MxNxK -> the shortlist in rank order."""
    try:
        doc = json.loads(path.read_text())
        return {key: list(entry["shortlist"]) for key, entry in doc.items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReaderError(
            f"{path}: not a finalists file ({exc}); write it with "
            "scripts/device/timing_finalists.py"
        ) from None
