"""What a measured dataset holds, and per evaluation shape how CUTLASS compares with cuBLAS.

Pure: from a loaded :class:`~benchspace.evaluation.cutlass.dataset.Dataset` to tables (plain
data); :mod:`summary_format` renders them. :func:`summarise` picks the summary the data allows:

* a dataset with rounds (version 2 on) gets the fair summary (:class:`FairSummary`): every
  ratio compares configurations of one run (one driver invocation, same interleaved rounds),
  each timed as its median over rounds; a ratio above 1 means CUTLASS is faster.
  ``oracle_vs_heuristic``: the best configuration of the knob-sweep run (every knob setting of
  the shape's best kernels, their default knobs included) against ``cublas:heuristic``;
  ``oracle_vs_best_of_n``: the same against the best of the heuristic's top-N algorithms;
  ``knob_gain``: the best of that run over the best at default knobs in the same run;
  ``default_vs_heuristic``: the exhaustive run's best kernel at default knobs against
  ``cublas:heuristic`` of that run;
* a dataset of means (version 1) gets :class:`DatasetSummary`: per evaluation group the best
  kernel against the cuBLAS table (timed apart) and the share of kernels near the best.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import HEURISTIC, Dataset, cublas_table
from benchspace.evaluation.cutlass.dataset_runs import align_runs, per_config

EPSILONS = (0.01, 0.05, 0.10)


@dataclass(frozen=True, kw_only=True)
class DatasetSummary:
    """Counts, failures and the evaluation-shape table."""

    groups: dict[str, int]
    kernels: int
    measurements: int
    by_status: dict[str, int]
    shapes: pd.DataFrame
    """Per evaluation group: best CUTLASS, cuBLAS, ratio, share within 1/5/10 % of best."""


def summarise_dataset(dataset: Dataset) -> DatasetSummary:
    """Summarise a dataset (the committed files of one GPU)."""
    m = dataset.measurements
    ok = m[m["status"] == "ok"].dropna(subset=["tflops"])
    # One throughput per (group, kernel, knobs): the mean over repeated attempts.
    per = ok.groupby(
        ["split", "group", "M", "N", "K", "kernel", "raster", "swizzle"], as_index=False
    )["tflops"].mean()
    cublas = cublas_table(dataset)
    rows = []
    for (group, mm, nn, kk), frame in per[per["split"] == "eval"].groupby(["group", "M", "N", "K"]):
        best = frame["tflops"].max()
        best_kernel = frame.loc[frame["tflops"].idxmax(), "kernel"]
        row = {
            "group": group,
            "M": int(mm),
            "N": int(nn),
            "K": int(kk),
            "candidates": len(frame),
            "best_tflops": best,
            "best_kernel": str(best_kernel),
        }
        match = cublas[(cublas["M"] == mm) & (cublas["N"] == nn) & (cublas["K"] == kk)]
        cub = float(match["cublas_tflops"].iloc[0]) if not match.empty else np.nan
        row["cublas_tflops"] = cub
        row["best_vs_cublas"] = best / cub if cub == cub else np.nan
        for eps in EPSILONS:
            row[f"within_{round(eps * 100)}pct"] = float(
                (frame["tflops"] >= (1 - eps) * best).mean()
            )
        rows.append(row)
    groups = m.groupby("split")["group"].nunique().to_dict()
    return DatasetSummary(
        groups={str(k): int(v) for k, v in groups.items()},
        kernels=int(m["kernel"].nunique()),
        measurements=len(m),
        by_status={str(k): int(v) for k, v in m["status"].value_counts().items()},
        shapes=pd.DataFrame(rows).sort_values(["M", "N", "K"]) if rows else pd.DataFrame(rows),
    )


CLASS_GROUPS: tuple[str, ...] = (
    "square",
    "tall",
    "wide",
    "skinny_k",
    "deep_k",
    "small",
    "medium",
    "large",
    "memory_bound",
    "compute_bound",
    "layer",
    "transition",
)
"""Shape classes (from the shape-set file) reported as rows of the by-class table."""
Classes = dict[tuple[int, int, int], tuple[str, ...]]
RATIOS = ("oracle_vs_heuristic", "oracle_vs_best_of_n", "knob_gain", "default_vs_heuristic")


@dataclass(frozen=True, kw_only=True)
class FairSummary:
    """Counts, the per-shape fair table and its geometric means by class."""

    counts: dict[str, int]
    noise: dict[str, float]
    """``cublas:heuristic`` over ``cublas:algo0`` (the same algorithm timed as two
    configurations of one run) on the evaluation runs: geometric mean, p5, p95."""
    shapes: pd.DataFrame
    by_class: pd.DataFrame
    training: pd.DataFrame
    between_calls: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per sweep pass (``k``, ``y``) of the evaluation shapes: ``speed``, the run's speed
    against its shape's exhaustive run by their cuBLASLt rows (:func:`align_runs`: geometric
    mean, p5, p95), and ``oracle_vs_heuristic`` inside that pass's latest runs (geomean)."""


def _best(frame: pd.DataFrame) -> tuple[float, str]:
    if frame.empty:
        return float("nan"), ""
    at = int(np.argmin(frame["ms"].to_numpy()))
    return float(frame["ms"].iloc[at]), str(frame["config"].iloc[at])


def _spread(rounds: pd.DataFrame) -> dict[str, float]:
    clock = rounds["sm_clock_mhz"].dropna()
    power = rounds["power_w"].dropna()

    def q(s: pd.Series, p: float) -> float:
        return float(s.quantile(p)) if len(s) else float("nan")

    return {
        "clock_p5": q(clock, 0.05),
        "clock_median": q(clock, 0.5),
        "clock_p95": q(clock, 0.95),
        "power_p5": q(power, 0.05),
        "power_median": q(power, 0.5),
        "power_p95": q(power, 0.95),
    }


def fair_shapes(dataset: Dataset, classes: Classes) -> pd.DataFrame:
    """One row per evaluation shape: the fair ratios and its rounds' clock/power spread."""
    table = per_config(dataset.rounds)
    rows = []
    for _, frame in table[table["split"] == "eval"].groupby(["M", "N", "K"]):
        m, n, k = (int(frame[c].iloc[0]) for c in ("M", "N", "K"))
        row: dict[str, object] = {"M": m, "N": n, "K": k}
        # The latest call's runs: a shape measured again later was measured over more kernels.
        # A top-up (pass y) re-times the knob sweep of the earlier best beside the kernels not
        # measured before: it then stands for both the exhaustive pass and the sweep.
        x = frame[frame["pass"] == "x"]
        x = x[x["call"] == x["call"].max()]
        sweeps = frame[frame["pass"].isin(["k", "y"])]
        kk = sweeps[sweeps["call"] == sweeps["call"].max()]
        row["kernels"] = int(frame.loc[frame["pass"].isin(["x", "y"]) & ~frame["cublas"], "kernel"]
                             .nunique())  # fmt: skip
        picked = kk if (kk["pass"] == "y").any() else x
        kernels_x = picked[~picked["cublas"]]
        best_x, config_x = _best(kernels_x[kernels_x["default_knobs"]])
        heur_x = picked.loc[picked["config"] == HEURISTIC, "ms"]
        row["default_vs_heuristic"] = (
            float(heur_x.iloc[0]) / best_x if len(heur_x) and best_x == best_x else np.nan
        )
        row["best_default_config"] = config_x
        sweep = kk if not kk.empty else x
        kern = sweep[~sweep["cublas"]]
        best, config = _best(kern)
        best_default, _ = _best(kern[kern["default_knobs"]])
        heur = sweep.loc[sweep["config"] == HEURISTIC, "ms"]
        algos = sweep[sweep["cublas"] & (sweep["config"] != HEURISTIC)]
        row["knob_configs"] = len(kern)
        row["oracle_config"] = config
        row["oracle_tflops"] = 2.0 * m * n * k / (best * 1e-3) / 1e12
        heur_ms = float(heur.iloc[0]) if len(heur) else np.nan
        row["cublas_tflops"] = 2.0 * m * n * k / (heur_ms * 1e-3) / 1e12
        oracle_vs_heuristic = float(heur.iloc[0]) / best if len(heur) else np.nan
        oracle_vs_best_of_n = float(algos["ms"].min()) / best if len(algos) else np.nan
        best_of_n_vs_heuristic = (
            float(heur.iloc[0]) / float(algos["ms"].min()) if len(heur) and len(algos) else np.nan
        )
        row["oracle_vs_heuristic"] = oracle_vs_heuristic
        row["oracle_vs_best_of_n"] = oracle_vs_best_of_n
        row["best_of_n_vs_heuristic"] = best_of_n_vs_heuristic
        # The most a dispatch among these CUTLASS configurations and cuBLASLt's listed ones
        # could read here: the better of the two bests, each chosen on these rounds (NaN only
        # where neither was measured).
        row["either_vs_heuristic"] = float(np.fmax(oracle_vs_heuristic, best_of_n_vs_heuristic))
        row["either_vs_best_of_n"] = max(oracle_vs_best_of_n, 1.0) if len(algos) else np.nan
        row["knob_gain"] = best_default / best
        run_rounds = dataset.rounds[dataset.rounds["run"].isin({*x["run"], *kk["run"]})]
        row.update(_spread(run_rounds))
        row["classes"] = ",".join(classes.get((m, n, k), ()))
        rows.append(row)
    return pd.DataFrame(rows)


def geomean(values: pd.Series) -> float:
    """Geometric mean of the finite positive values (NaN when none)."""
    v = values.dropna()
    v = v[v > 0]
    return float(np.exp(np.log(v).mean())) if len(v) else float("nan")


def by_class(shapes: pd.DataFrame) -> pd.DataFrame:
    """Geometric means of the fair ratios over all shapes and per class."""
    groups = [("all", shapes)]
    for name in CLASS_GROUPS:
        member = shapes["classes"].str.split(",").apply(lambda c, n=name: n in c)
        if member.any():
            groups.append((name, shapes[member]))
    rows = []
    for name, frame in groups:
        row: dict[str, object] = {"class": name, "shapes": len(frame)}
        for ratio in (
            *RATIOS,
            "best_of_n_vs_heuristic",
            "either_vs_heuristic",
            "either_vs_best_of_n",
        ):
            row[ratio] = geomean(frame[ratio])
        row["cutlass_ahead"] = float((frame["oracle_vs_heuristic"] > 1).mean())
        rows.append(row)
    return pd.DataFrame(rows)


def between_calls(ev: pd.DataFrame) -> dict[str, dict[str, float]]:
    """How the sweep passes of the evaluation shapes compare with their exhaustive runs when
    timed in other runs or calls (``ev``: :func:`per_config` of the evaluation rounds)."""
    scaled = align_runs(ev)
    out: dict[str, dict[str, float]] = {}
    for tag in ("k", "y"):
        runs = scaled[scaled["pass"] == tag]
        if runs.empty:
            continue
        latest = runs[runs["call"] == runs.groupby(["M", "N", "K"])["call"].transform("max")]
        speed = latest.groupby("run")["clock_scale"].first()
        ratios = []
        for _, frame in latest.groupby("run"):
            heur = frame.loc[frame["config"] == HEURISTIC, "ms"]
            kern = frame.loc[~frame["cublas"], "ms"]
            if len(heur) and len(kern):
                ratios.append(float(heur.iloc[0]) / float(kern.min()))
        out[tag] = {
            "runs": float(len(speed)),
            "speed": geomean(speed),
            "speed_p5": float(speed.quantile(0.05)),
            "speed_p95": float(speed.quantile(0.95)),
            "oracle_vs_heuristic": geomean(pd.Series(ratios, dtype=float)),
        }
    return out


def summarise_fair(dataset: Dataset, classes: Classes | None = None) -> FairSummary:
    """The fair summary of a dataset with rounds (``classes``: from a shape-set file)."""
    r = dataset.rounds
    table = fair_shapes(dataset, classes or {})
    train = per_config(r[r["split"] == "train"])
    training = (
        train.groupby(["M", "N", "K"])
        .agg(configs=("config", "nunique"), kernels=("kernel", "nunique"))
        .reset_index()
    )
    counts = {
        "eval_shapes": len(table),
        "train_shapes": len(training),
        "kernels": int(r.loc[r["kernel"] != "cublas", "kernel"].nunique()),
        "configs": int(r["config"].nunique()),
        "runs": int(r["run"].nunique()),
        "round_rows": len(r),
        "failed_rows": int((dataset.rows["status"] != "ok").sum()),
    }
    ev = per_config(r[r["split"] == "eval"])
    pair = ev[ev["config"].isin([HEURISTIC, "cublas:algo0"])].pivot_table(
        index="run", columns="config", values="ms"
    )
    same = (pair[HEURISTIC] / pair["cublas:algo0"]).dropna() if len(pair.columns) == 2 else None
    noise = (
        {
            "geomean": geomean(same),
            "p5": float(same.quantile(0.05)),
            "p95": float(same.quantile(0.95)),
        }
        if same is not None and len(same)
        else {}
    )
    return FairSummary(
        counts=counts,
        noise=noise,
        between_calls=between_calls(ev),
        shapes=table.sort_values(["M", "N", "K"]) if len(table) else table,
        by_class=by_class(table) if len(table) else pd.DataFrame(),
        training=training,
    )


def summarise(dataset: Dataset, classes: Classes | None = None) -> DatasetSummary | FairSummary:
    """The fair summary where the dataset has rounds, else the summary of its means."""
    return summarise_fair(dataset, classes) if dataset.has_rounds else summarise_dataset(dataset)
