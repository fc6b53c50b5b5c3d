"""Fair ratios of dataset v2: CUTLASS (kernel x knobs) against cuBLASLt timed in the same rounds.

Pure: from a loaded :class:`DatasetV2` to tables; :mod:`summary_v2_format` renders them.
Every ratio compares configurations of one run (one driver invocation, same interleaved
rounds), each timed as its median over rounds; a ratio above 1 means CUTLASS is faster.

* ``oracle_vs_heuristic``: the best configuration of the knob-sweep run (every knob setting
  of the shape's best kernels, their default knobs included) against ``cublas:heuristic``;
* ``oracle_vs_best_of_n``: the same against the best of the heuristic's top-N algorithms;
* ``knob_gain``: the best of that run over the best at default knobs in the same run;
* ``default_vs_heuristic``: the exhaustive run's best kernel at default knobs against
  ``cublas:heuristic`` of that run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset_v2 import HEURISTIC, DatasetV2, align_runs, per_config

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
class SummaryV2:
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


def shape_classes(path: Path | None) -> Classes:
    """``(M, N, K) -> classes`` from a shape-set file (empty without one)."""
    if path is None or not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        (int(s["M"]), int(s["N"]), int(s["K"])): tuple(s["classes"])
        for part in ("train", "eval")
        for s in data.get(part, [])
    }


def fair_shapes(dataset: DatasetV2, classes: Classes) -> pd.DataFrame:
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
        row["oracle_vs_heuristic"] = float(heur.iloc[0]) / best if len(heur) else np.nan
        row["oracle_vs_best_of_n"] = float(algos["ms"].min()) / best if len(algos) else np.nan
        row["best_of_n_vs_heuristic"] = (
            float(heur.iloc[0]) / float(algos["ms"].min()) if len(heur) and len(algos) else np.nan
        )
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
        for ratio in (*RATIOS, "best_of_n_vs_heuristic"):
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


def summarise_v2(dataset: DatasetV2, shapes_file: Path | None = None) -> SummaryV2:
    """The fair summary of a v2 dataset."""
    r = dataset.rounds
    table = fair_shapes(dataset, shape_classes(shapes_file))
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
    return SummaryV2(
        counts=counts,
        noise=noise,
        between_calls=between_calls(ev),
        shapes=table.sort_values(["M", "N", "K"]) if len(table) else table,
        by_class=by_class(table) if len(table) else pd.DataFrame(),
        training=training,
    )
