"""A ranker of cuBLASLt configurations, judged on the wide study's screen: how much of the
screen's best can a ranker find while timing only its top k of cuBLASLt's listed space?

Data: run ``s`` of ``evaluation/data/h200/cublaslt_wide`` (every configuration of cuBLASLt's
listed space per shape, timed once in a cheap mode). Features of a configuration: the shape
(log2 M, N, K and M N K) and the nine attributes of its pinned key, as categories (algorithm
id, tile, stages, cluster shape, custom option, swizzle, reduction scheme, inner shape) and
split-K as a number. The ranker is XGBoost ``rank:ndcg`` with linear grades of the screen's
throughput (:func:`evaluation.selector.grades.linear_grades`), trained and judged shape-fold by
shape-fold (a shape is never ranked by a model that saw it).

Per budget k, per shape: the best screen reading among cuBLASLt's top 8 (the heuristic's own
list) and the ranker's top k, against the best of the whole screen (``captured``: 1 means the
shape's best was found) and against the top 8 alone (``gain``); beside the ranker, k
configurations drawn at random (seeded) with the top 8. Every figure is a screen reading: the
screen chose nothing here, and no pick is confirmed, so these compare ways of choosing what
to time, not GPU speed-ups (those are ``benchspace cutlass summary``'s run ``d``).

:func:`ranked_space` turns the ranker into candidates: per shape of a listed space
(``cutlass_bench --cublas-space``'s ``space.csv.gz``), its top k configurations by a model that
never saw the shape (trained on the screen's other folds, or on the whole screen for a shape
it does not hold), for a screen of k per shape instead of the whole space. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.grades import linear_grades

FIELDS = ("id", "tile", "splitk", "reduction", "swizzle", "custom", "stages", "inner", "cluster")
CATEGORIES = tuple(f for f in FIELDS if f != "splitk")
BUDGETS = (8, 16, 32, 64, 128, 256)
TOP8 = tuple(f"cublas:algo{i}" for i in range(8))


def _attributes(key: str) -> list[int]:
    return [int(part.split("=", 1)[1]) for part in key.split(":", 1)[1].split(";")[: len(FIELDS)]]


def screen_frame(rows: pd.DataFrame, run: str = "s") -> pd.DataFrame:
    """One row per screened cuBLASLt configuration: shape, M, N, K, key, the nine attributes,
    ms (median), tflops; and ``top8`` (whether it is one of the heuristic's eight for the
    shape, by the ranks' ``cublas_algo`` attributes)."""
    ok = rows[(rows["run"] == run) & (rows["status"] == "ok")]
    ok = ok[~ok["config"].astype(str).str.endswith("@last")]
    shape = ok["M"].astype(str) + "x" + ok["N"].astype(str) + "x" + ok["K"].astype(str)
    ok = ok.assign(shape=shape)
    ranks = ok[ok["config"].isin(TOP8)]
    top8 = {
        (str(s), "cublaslt:" + str(a).split(";ws=")[0])
        for s, a in zip(ranks["shape"], ranks["cublas_algo"], strict=True)
    }
    lt = ok[ok["config"].astype(str).str.startswith("cublaslt:")]
    attrs = pd.DataFrame([_attributes(k) for k in lt["config"]], columns=list(FIELDS))
    m, n, k = (lt[c].astype(np.int64).to_numpy() for c in ("M", "N", "K"))
    ms = lt["ms_median"].astype(float).to_numpy()
    frame = pd.DataFrame(
        {
            "shape": lt["shape"].to_numpy(),
            "M": m,
            "N": n,
            "K": k,
            "key": lt["config"].to_numpy(),
            "ms": ms,
            "tflops": 2.0 * m * n * k / (ms * 1e-3) / 1e12,
        }
    )
    frame = pd.concat([frame, attrs], axis=1)
    frame["top8"] = [(s, key) in top8 for s, key in zip(frame["shape"], frame["key"], strict=True)]
    return frame


def features(frame: pd.DataFrame) -> pd.DataFrame:
    """The ranker's features (categories as pandas categories over the values seen)."""
    out = pd.DataFrame(
        {
            "log_m": np.log2(frame["M"].to_numpy(dtype=float)),
            "log_n": np.log2(frame["N"].to_numpy(dtype=float)),
            "log_k": np.log2(frame["K"].to_numpy(dtype=float)),
            "log_mnk": np.log2(frame[["M", "N", "K"]].to_numpy(dtype=float).prod(axis=1)),
            "splitk": frame["splitk"].to_numpy(dtype=float),
        }
    )
    for name in CATEGORIES:
        out[name] = pd.Categorical(frame[name].to_numpy())
    return out


def space_frame(space: pd.DataFrame) -> pd.DataFrame:
    """A listed space (columns ``shape``, ``config``) as rows of shape, M, N, K, key and the
    nine attributes (no timing: what the ranker scores)."""
    lt = space[space["config"].astype(str).str.startswith("cublaslt:")]
    dims = lt["shape"].astype(str).str.split("x", expand=True).astype(np.int64)
    frame = pd.DataFrame(
        {
            "shape": lt["shape"].astype(str).to_numpy(),
            "M": dims[0].to_numpy(),
            "N": dims[1].to_numpy(),
            "K": dims[2].to_numpy(),
            "key": lt["config"].astype(str).to_numpy(),
        }
    )
    attrs = pd.DataFrame([_attributes(k) for k in frame["key"]], columns=list(FIELDS))
    return pd.concat([frame, attrs], axis=1)


def _ranker(sub: pd.DataFrame, X: pd.DataFrame, seed: int) -> object:
    import xgboost as xgb

    y = sub["tflops"] / sub.groupby("shape")["tflops"].transform("max")
    label = linear_grades(y.to_numpy())
    qid = pd.factorize(sub["shape"])[0]
    model = xgb.XGBRanker(
        objective="rank:ndcg",
        n_estimators=200,
        max_depth=6,
        learning_rate=0.1,
        tree_method="hist",
        enable_categorical=True,
        lambdarank_pair_method="topk",
        lambdarank_num_pair_per_sample=16,
        n_jobs=2,
        random_state=seed,
    )
    model.fit(X, label, qid=qid)
    return model


def out_of_fold_scores(
    frame: pd.DataFrame, folds: int = 8, seed: int = 0, target: pd.DataFrame | None = None
) -> np.ndarray:
    """A score for each row of ``target`` (default: ``frame``, the screen) from a ranker
    trained on ``frame``'s shapes of the other folds; a target shape the screen does not hold
    is scored by a ranker trained on the whole screen."""
    target = frame if target is None else target
    shapes = np.array(sorted(frame["shape"].unique()))
    rng = np.random.default_rng(seed)
    fold_of = dict(zip(rng.permutation(shapes), np.arange(len(shapes)) % folds, strict=True))
    fold = frame["shape"].map(fold_of).to_numpy()
    target_fold = target["shape"].map(fold_of).fillna(-1).astype(int).to_numpy()
    columns = ["M", "N", "K", *FIELDS]
    both = features(pd.concat([frame[columns], target[columns]], ignore_index=True))
    X, X_target = both.iloc[: len(frame)], both.iloc[len(frame) :]
    order = np.argsort(frame["shape"].to_numpy(), kind="stable")
    scores = np.full(len(target), np.nan)
    for f in sorted(set(target_fold.tolist())):
        train = order[fold[order] != f]
        test = np.flatnonzero(target_fold == f)
        model = _ranker(frame.iloc[train], X.iloc[train], seed)
        scores[test] = model.predict(X_target.iloc[test])  # type: ignore[attr-defined]
    return scores


def ranked_space(
    space: pd.DataFrame, screen: pd.DataFrame, k: int, folds: int = 8, seed: int = 0
) -> dict[str, list[str]]:
    """Per shape of ``space`` (a listed space's rows), its top ``k`` configuration keys by
    :func:`out_of_fold_scores` against ``screen`` (a :func:`screen_frame`), best first."""
    target = space_frame(space)
    scored = target.assign(score=out_of_fold_scores(screen, folds, seed, target=target))
    out: dict[str, list[str]] = {}
    for shape, g in scored.groupby("shape", sort=True):
        order = np.argsort(-g["score"].to_numpy(), kind="stable")[:k]
        out[str(shape)] = g["key"].to_numpy()[order].tolist()
    return out


@dataclass(frozen=True, kw_only=True)
class BudgetPoint:
    """Budget k: geomeans over shapes of the best screen reading found, against the whole
    screen's best (``captured``) and against the top 8 alone (``gain``)."""

    k: int
    ranked_captured: float
    ranked_gain: float
    random_captured: float
    random_gain: float
    ranked_found_best: int


@dataclass(frozen=True, kw_only=True)
class RankStudy:
    shapes: int
    configurations: int
    top8_captured: float
    screen_gain: float
    """The whole screen's best over the top 8's, geomean (the most any budget can gain)."""
    points: tuple[BudgetPoint, ...]


def _geomean(values: Sequence[float]) -> float:
    return float(np.exp(np.mean(np.log(values)))) if len(values) else float("nan")


def rank_study(
    frame: pd.DataFrame, scores: np.ndarray, budgets: Sequence[int] = BUDGETS, seed: int = 0
) -> RankStudy:
    """The budget curve of :class:`BudgetPoint` from out-of-fold ``scores``."""
    rng = np.random.default_rng(seed)
    frame = frame.assign(score=scores)
    best_all, best_top8 = [], []
    found: dict[int, list[tuple[float, float, bool]]] = {k: [] for k in budgets}
    for _, g in frame.groupby("shape", sort=True):
        ms = g["ms"].to_numpy()
        top8 = g["top8"].to_numpy()
        if not top8.any():
            continue
        t_all, t_top8 = ms.min(), ms[top8].min()
        best_all.append(t_all)
        best_top8.append(t_top8)
        ranked = np.argsort(-g["score"].to_numpy(), kind="stable")
        for k in budgets:
            r = min(t_top8, ms[ranked[:k]].min())
            drawn = rng.choice(len(ms), size=min(k, len(ms)), replace=False)
            found[k].append((r, min(t_top8, ms[drawn].min()), bool(r <= t_all)))
    a, t8 = np.array(best_all), np.array(best_top8)
    points = []
    for k in budgets:
        r = np.array([x[0] for x in found[k]])
        d = np.array([x[1] for x in found[k]])
        points.append(
            BudgetPoint(
                k=k,
                ranked_captured=_geomean(a / r),
                ranked_gain=_geomean(t8 / r),
                random_captured=_geomean(a / d),
                random_gain=_geomean(t8 / d),
                ranked_found_best=int(sum(x[2] for x in found[k])),
            )
        )
    return RankStudy(
        shapes=len(a),
        configurations=len(frame),
        top8_captured=_geomean(a / t8),
        screen_gain=_geomean(t8 / a),
        points=tuple(points),
    )


def render_rank_study(study: RankStudy) -> str:
    lines = [
        f"screen: {study.configurations} cuBLASLt configurations over {study.shapes} shapes; "
        f"the heuristic's top 8 reach {study.top8_captured:.4f} of the screen's best "
        f"(the screen's best is {study.screen_gain:.4f}x the top 8's), geomean",
        "timing the top 8 and k more (screen readings; ranker: XGBoost rank:ndcg, out of fold "
        "by shape): of the screen's best / over the top 8 alone",
    ]
    for p in study.points:
        lines.append(
            f"  k={p.k:<4} ranker {p.ranked_captured:.4f} / {p.ranked_gain:.4f} "
            f"(the best itself on {p.ranked_found_best} of {study.shapes}); "
            f"random {p.random_captured:.4f} / {p.random_gain:.4f}"
        )
    return "\n".join(lines)
