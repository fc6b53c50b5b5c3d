"""The cuBLASLt study (``scripts/device/cublaslt_study.sh``, ``cublaslt_search.sh``): pinned
cuBLASLt configurations beside the tune-my-shapes shortlist, and a search beyond the
heuristic's eight.

Runs of ``evaluation/data/h200/cublaslt`` (driver v4, one mode):

* ``a`` selection: the top 8 CUTLASS kernels of the shortlist, ``cublas:heuristic``,
  ``cublas:algo0..7``, the same eight pinned (``cublaslt:...``), a sample of cuBLASLt's space;
* ``b`` the same lists again (new processes, new order): the pinned replays' check;
* ``c`` search: the best of the top 8 (pinned) and its neighbours in cuBLASLt's space;
* ``d`` confirmation: every pick of ``a`` and ``c`` (``picks.json``) in fresh rounds.

The wide study (``scripts/device/cublaslt_wide.sh``, ``evaluation/data/h200/cublaslt_wide``)
has runs ``s`` (a screen of cuBLASLt's whole listed space), ``a`` (selection: the shortlist,
the top 8 pinned, the screen's best) and ``d`` (confirmation of ``a``'s picks, ``wide`` and
``wide_cublaslt`` among them).

Figures: each pick's time in ``d`` against ``cublas:heuristic`` timed in the same rounds
(measurements that did not choose it); and the pinned replay of ``cublas:algo<i>`` against
the rank itself in the same process. Pure: frames and dicts in, records out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

HEURISTIC = "cublas:heuristic"
PICKS: tuple[tuple[str, str], ...] = (
    ("both", "K=8 CUTLASS + cuBLASLt's top 8 (picked in run a)"),
    ("best8", "cuBLASLt's best of its top 8 alone (run a)"),
    ("cutlass", "best of the K=8 CUTLASS shortlist alone (run a)"),
    ("search_cublaslt", "best cuBLASLt configuration of the search (run c)"),
    ("search", "K=8 CUTLASS pick + top 8 + search (picked in run c)"),
    ("wide_cublaslt", "best cuBLASLt configuration of the top 8 and the screen's best (run a)"),
    ("wide", "K=8 CUTLASS + top 8 + the screen's best (picked in run a)"),
)
"""The picks of ``picks.json``, in print order, with what each one is."""


@dataclass(frozen=True, kw_only=True)
class PickFigure:
    """One pick, confirmed: its time in the confirmation run against the heuristic's."""

    key: str
    label: str
    shapes: int
    geomean: float
    minimum: float
    ahead: int


@dataclass(frozen=True, kw_only=True)
class PinnedStudy:
    """Every figure of the study."""

    picks: tuple[PickFigure, ...]
    over_best8: tuple[tuple[str, float], ...]
    """(pick, its geomean over cuBLASLt's best of 8 alone, shape by shape) for the picks that
    add to the best of 8."""
    replays: int
    replay_runs: str
    """The runs the replays were read in (``a, b``; ``a`` where there is no repeat run)."""
    replays_same_key: int
    replay_geomean: float
    replay_p5: float
    replay_p95: float
    space_accepted_mean: float | None
    space_checked_mean: float | None
    screened_mean: float | None = None
    """Configurations of cuBLASLt's space timed per shape in a screen (run ``s``), if any."""


def _geomean(values: pd.Series) -> float:
    v = values.dropna().to_numpy(dtype=float)
    return float(np.exp(np.log(v).mean())) if v.size else float("nan")


def _times(rows: pd.DataFrame, run: str) -> pd.DataFrame:
    ok = rows[(rows["run"] == run) & (rows["status"] == "ok")]
    ok = ok[~ok["config"].str.endswith("@last")]
    return ok.assign(
        shape=ok["M"].astype(str) + "x" + ok["N"].astype(str) + "x" + ok["K"].astype(str)
    )


def confirmed_ratios(rows: pd.DataFrame, picks: dict[str, dict[str, str]]) -> pd.DataFrame:
    """Per shape and pick: heuristic time / pick time, both in the confirmation run ``d``."""
    d = _times(rows, "d")
    by_shape = {s: g.set_index("config")["ms_median"] for s, g in d.groupby("shape")}
    out = []
    for shape, chosen in sorted(picks.items()):
        t = by_shape.get(shape)
        if t is None or HEURISTIC not in t.index:
            continue
        out.append(
            {"shape": shape}
            | {k: float(t[HEURISTIC] / t[v]) if v in t.index else np.nan for k, v in chosen.items()}
        )
    return pd.DataFrame(out)


def pinned_replays(rows: pd.DataFrame, finalists: dict[str, dict[str, list[str]]]) -> pd.DataFrame:
    """Runs a and b: each pinned key (finalists' first 8 extras) against ``cublas:algo<i>`` of
    the same process; ``same`` when the rank's recorded attributes are the pinned key's."""
    out = []
    for run in ("a", "b"):
        for shape, g in _times(rows, run).groupby("shape"):
            ms = dict(zip(g["config"], g["ms_median"].astype(float), strict=True))
            algo = dict(zip(g["config"], g["cublas_algo"].astype(str), strict=True))
            entry = finalists.get(str(shape), {})
            pinned = entry.get("top8", entry.get("extra", [])[:8])
            for i, key in enumerate(pinned):
                rank = f"cublas:algo{i}"
                if key in ms and rank in ms:
                    same = algo[rank].split(";ws=")[0] == key.split(":", 1)[1]
                    out.append({"ratio": ms[key] / ms[rank], "same": same})
    return pd.DataFrame(out, columns=["ratio", "same"])


def _mean_of(frame: pd.DataFrame | None, column: str) -> float | None:
    return None if frame is None else float(frame[column].mean())


def pinned_study(
    rows: pd.DataFrame,
    picks: dict[str, dict[str, str]],
    finalists: dict[str, dict[str, list[str]]],
    space_counts: pd.DataFrame | None,
) -> PinnedStudy:
    """The study's figures from its rows, picks, finalists and space counts (None: the space
    was not listed in this study)."""
    ratios = confirmed_ratios(rows, picks)
    figures = tuple(
        PickFigure(
            key=key,
            label=label,
            shapes=int(ratios[key].notna().sum()),
            geomean=_geomean(ratios[key]),
            minimum=float(ratios[key].min()),
            ahead=int((ratios[key] > 1).sum()),
        )
        for key, label in PICKS
        if key in ratios
    )
    replays = pinned_replays(rows, finalists)
    screen = _times(rows, "s")
    screened = screen[screen["config"].str.startswith("cublaslt:")].groupby("shape").size()
    return PinnedStudy(
        picks=figures,
        over_best8=tuple(
            (key, _geomean(ratios[key] / ratios["best8"]))
            for key in ("both", "search", "wide")
            if key in ratios and "best8" in ratios
        ),
        replays=len(replays),
        replay_runs=", ".join(r for r in ("a", "b") if (rows["run"] == r).any()),
        replays_same_key=int(replays["same"].sum()),
        replay_geomean=_geomean(replays["ratio"]),
        replay_p5=float(replays["ratio"].quantile(0.05)),
        replay_p95=float(replays["ratio"].quantile(0.95)),
        space_accepted_mean=_mean_of(space_counts, "accepted"),
        space_checked_mean=_mean_of(space_counts, "checked"),
        screened_mean=float(screened.mean()) if len(screened) else None,
    )


OVER_BEST8 = {"both": "K=8 + top 8", "search": "with the search", "wide": "with the screen"}


def render_pinned(study: PinnedStudy) -> str:
    """The study's lines."""
    lines = [
        "cuBLASLt study (confirmed in run d: each pick re-timed beside cublas:heuristic in "
        "fresh rounds), pick vs heuristic, geomean (min; ahead on n):"
    ]
    for f in study.picks:
        lines.append(
            f"  {f.label}: {f.geomean:.4f} (min {f.minimum:.3f}; ahead on {f.ahead} of {f.shapes})"
        )
    lines.append(
        "  over cuBLASLt's best of 8 alone: "
        + ", ".join(f"{OVER_BEST8[key]} {value:.4f}" for key, value in study.over_best8)
    )
    lines.append(
        f"pinned replays ({'runs' if ',' in study.replay_runs else 'run'} {study.replay_runs}): "
        f"{study.replays} cublaslt:<attributes> "
        "against their "
        f"cublas:algo<i>, same attributes {study.replays_same_key}, time ratio geomean "
        f"{study.replay_geomean:.4f} (p5 {study.replay_p5:.4f}, p95 {study.replay_p95:.4f})"
    )
    if study.space_accepted_mean is not None:
        lines.append(
            f"cuBLASLt's space near the heuristic: {study.space_accepted_mean:.0f} "
            f"configurations accepted of {study.space_checked_mean:.0f} checked per shape (mean)"
        )
    if study.screened_mean is not None:
        lines.append(
            f"screen (run s): {study.screened_mean:.0f} configurations of cuBLASLt's space timed "
            "per shape (mean); its figures chose run a's finalists and are not reported"
        )
    return "\n".join(lines)
