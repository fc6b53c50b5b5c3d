"""Render a :class:`~evaluation.study.run.StudyResult`: terminal tables, a Markdown report, figures.

Computation happens in :mod:`benchspace.evaluation.study.run`; this module only formats. Figures use
matplotlib's Agg backend (no display needed) and go under ``<out>/figures/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.hpo import SEARCH_SPACE
from benchspace.evaluation.selector.metrics import RegretSummary
from benchspace.evaluation.study.baselines import ORACLE_NOTE, REGRET_HEADER, SEED_SELECTORS
from benchspace.evaluation.study.baselines import best_of_n_text as best_of_n_text
from benchspace.evaluation.study.run import StudyResult
from benchspace.evaluation.study.sampling_study import (
    SEED_BUDGETS,
    SEED_CATALOGUE,
    SEED_DEFAULT_BUDGET,
    SEED_P05,
    SEED_REGRET,
    SamplingStudy,
)
from benchspace.harness.jsonio import write_text_atomic

POLICY_NAMES = {
    "uniform": "uniform",
    "static_top": "static top-B",
    "biased_diverse": "biased-diverse",
}
SEED_ALPHA: dict[float, tuple[float | None, float | None]] = {
    0.0: (0.085, None),
    0.75: (0.009, 0.913),
    1.0: (0.006, 0.971),
}
"""GH200 alpha ablation at B = 2000: mean regret and P_0.05 the study quotes."""


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _ratio(x: float | None) -> str:
    return "not measured" if x is None else f"{x:.3f}x"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(
        h.ljust(w) if i == 0 else h.rjust(w)
        for i, (h, w) in enumerate(zip(header, widths, strict=True))
    )
    body = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    return [line, *body]


def regret_rows(summaries: Sequence[RegretSummary]) -> list[list[str]]:
    """One row per selector: mean, median, p95, max regret, top-1/top-5, vs cuBLAS."""
    return [
        [
            s.name,
            _pct(s.mean, 2),
            _pct(s.median, 2),
            _pct(s.p95, 2),
            _pct(s.max, 2),
            _pct(s.top1, 0),
            _pct(s.top5, 0),
            _ratio(s.cublas_geomean),
            _ratio(s.cublas_best_geomean),
        ]
        for s in summaries
    ]


def sampling_rows(study: SamplingStudy) -> list[list[str]]:
    """Regret and P_eps per policy and budget, with the GH200 figure where the budget scales one."""
    rows = []
    for r in _records(study.curves):
        seed_b = int(r["seed_budget"])
        label = f"{r['budget']} (= {seed_b}/{SEED_CATALOGUE})" if seed_b else str(r["budget"])
        seed_regret = SEED_REGRET.get(str(r["policy"]), {}).get(seed_b)
        seed_p05 = SEED_P05.get(str(r["policy"]), {}).get(seed_b)
        rows.append(
            [
                POLICY_NAMES[str(r["policy"])],
                label,
                _pct(float(r["regret"]), 2),
                _pct(float(r["p01"]), 0),
                _pct(float(r["p05"]), 0),
                _pct(float(r["p10"]), 0),
                _pct(seed_regret) if seed_b else "",
                _pct(seed_p05) if seed_b else "",
            ]
        )
    return rows


SAMPLING_HEADER = (
    "policy",
    "budget B",
    "regret",
    "P_0.01",
    "P_0.05",
    "P_0.10",
    "GH200 regret",
    "GH200 P_0.05",
)


def _sampling_note(study: SamplingStudy) -> str:
    scaled = ", ".join(
        f"{b} -> {max(1, round(b * study.catalogue_size / SEED_CATALOGUE))}" for b in SEED_BUDGETS
    )
    return (
        f"Budgets scaled: the GH200 study sampled B = 1000/2000/3000 of a {SEED_CATALOGUE}-kernel "
        f"catalogue; ours has {study.catalogue_size} candidates per exhaustive group (median), so "
        f"the same fractions give {scaled}. GH200 columns are the study's numbers at the budget "
        f"each row scales; {study.repetitions} repetitions for the random policies, "
        f"{study.groups} exhaustive groups."
    )


def render_text(result: StudyResult) -> str:
    """The evaluate command's terminal output."""
    lines = [
        result.dataset,
        f"hardware {result.hardware}; trained on {result.train_groups} training groups "
        f"({result.train_rows} rows), judged on {result.eval_groups} held-out exhaustive groups "
        f"({result.eval_rows} rows); seed {result.options.seed}",
        "",
        "Held-out regret R(g) = 1 - T(pick)/T* on evaluation groups:",
        *_table(REGRET_HEADER, regret_rows(result.held_out), markdown=False),
        ORACLE_NOTE,
        f"best measured kernel (oracle) vs cuBLAS: {_ratio(result.oracle_cublas)} (geomean)"
        + best_of_n_text(result.oracle_cublas_best),
        SEED_SELECTORS,
    ]
    if result.cross_validated:
        lines += [
            "",
            f"Cross-validated regret on training groups ({result.options.folds} folds grouped "
            "by shape):",
            *_table(REGRET_HEADER, regret_rows(result.cross_validated), markdown=False),
        ]
    s = result.sampling
    lines += [
        "",
        "Sampling study on evaluation groups (sampling regret and P_eps = share of groups with a "
        "kernel within eps of the oracle):",
        *_table(SAMPLING_HEADER, sampling_rows(s), markdown=False),
        _sampling_note(s),
        "alpha ablation at B = "
        + f"{s.alpha_budget}: "
        + ", ".join(
            f"alpha {a:.2f}: {_pct(r, 2)} / P_0.05 {_pct(p, 0)}"
            for a, r, p in zip(s.alpha["alpha"], s.alpha["regret"], s.alpha["p05"], strict=True)
        ),
        "competitive candidates (within 1/5/10% of the oracle, mean over groups): "
        + " / ".join(_pct(v, 2) for v in s.competitive["mean"])
        + " (GH200: 0.43% / 2.4% / 10.9%)",
    ]
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)


def _figures(result: StudyResult, folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, group in result.per_group.groupby("model", sort=False):
        values = np.concatenate([[0.0], np.sort(group["regret"].to_numpy())])
        share = np.arange(len(values)) / (len(values) - 1)
        ax.step(values, share, where="post", label=str(name))
    ax.set_xlabel("regret 1 - T(pick)/T*")
    ax.set_ylabel("share of held-out groups")
    ax.legend(fontsize=7)
    ax.set_title("Held-out regret (CDF)")
    written.append(_save(fig, folder / "regret_cdf.png"))

    curves = result.sampling.curves
    for metric, label, name in (
        ("regret", "mean sampling regret", "sampling_regret.png"),
        ("p05", "P_0.05(B)", "sampling_p05.png"),
    ):
        fig, ax = plt.subplots(figsize=(6, 4))
        for policy, group in curves.groupby("policy", sort=False):
            ax.plot(group["budget"], group[metric], marker="o", label=POLICY_NAMES[str(policy)])
        ax.set_xscale("log")
        ax.set_xlabel("budget B (candidates measured per group)")
        ax.set_ylabel(label)
        ax.legend()
        ax.set_title(f"{label} vs budget (our catalogue: {result.sampling.catalogue_size})")
        written.append(_save(fig, folder / name))

    fig, ax = plt.subplots(figsize=(6, 4))
    alpha = result.sampling.alpha
    ax.plot(alpha["alpha"], alpha["regret"], marker="o", label="mean regret")
    ax.plot(alpha["alpha"], alpha["p05"], marker="s", label="P_0.05")
    ax.set_xlabel("alpha (share of the budget from the static top)")
    ax.set_title(f"alpha ablation at B = {result.sampling.alpha_budget}")
    ax.legend()
    written.append(_save(fig, folder / "alpha_ablation.png"))

    fig, ax = plt.subplots(figsize=(5, 5))
    table = result.correlation.dropna(subset=["global_rho", "mean_rho_g"])
    ax.scatter(table["global_rho"], table["mean_rho_g"], s=12)
    for r in _records(table.head(8)):
        ax.annotate(str(r["feature"]), (float(r["global_rho"]), float(r["mean_rho_g"])), fontsize=6)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("global Spearman rho")
    ax.set_ylabel("mean within-group rho_g")
    ax.set_title("Features: pooled vs within-group correlation")
    written.append(_save(fig, folder / "correlation.png"))
    return written


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def _correlation_rows(table: pd.DataFrame, limit: int) -> list[list[str]]:
    return [
        [
            str(r["feature"]),
            f"{r['global_rho']:+.3f}",
            f"{r['mean_rho_g']:+.3f}",
            f"{r['median_rho_g']:+.3f}",
            _pct(float(r["share_positive"]), 1),
            str(r["groups"]),
        ]
        for r in _records(table.head(limit))
    ]


def render_markdown(
    result: StudyResult, figures: Sequence[Path], params: Mapping[str, Any] | None = None
) -> str:
    """The Markdown report: every table of the terminal output and more, with figure links."""
    s = result.sampling
    md = [
        "# CUTLASS kernel selection: study report",
        "",
        f"Dataset: {result.dataset}. Hardware descriptor: {result.hardware}.",
        f"Trained on {result.train_groups} training groups ({result.train_rows} rows); judged on "
        f"{result.eval_groups} held-out groups measured over every compiled kernel "
        f"({result.eval_rows} rows). Seed {result.options.seed}; relevance bands B = "
        f"{result.options.bands}.",
        "",
        "## Held-out regret",
        "",
        *_table(REGRET_HEADER, regret_rows(result.held_out), markdown=True),
        "",
        f"{ORACLE_NOTE}. "
        f"Best measured kernel (oracle) vs cuBLAS: {_ratio(result.oracle_cublas)}"
        f"{best_of_n_text(result.oracle_cublas_best)} (geometric mean "
        "over held-out shapes). `random (expected)` is the exact expectation of a uniform pick.",
    ]
    if result.cross_validated:
        md += [
            "",
            f"## Cross-validated regret ({result.options.folds} folds grouped by shape, "
            "training groups)",
            "",
            *_table(REGRET_HEADER, regret_rows(result.cross_validated), markdown=True),
            "",
            "Training groups hold a budgeted sample of the catalogue, so here T* is the best "
            "measured candidate of that sample, not the catalogue's oracle.",
        ]
    md += ["", "## Hyperparameters", ""]
    if params:
        md += ["Settings from a hyperparameter search (Optuna TPE, minimising CV regret) won:", ""]
        md += [f"- `{k}` = {v}" for k, v in sorted(params.items())]
    else:
        md += ["Default settings (no search result was given with `--params`)."]
    md += ["", "Searched ranges: " + "; ".join(f"{k}: {v}" for k, v in SEARCH_SPACE.items()) + "."]
    if result.importance:
        md += [
            "",
            "Top features of XGBoost rank:ndcg by total gain: "
            + ", ".join(f"`{k}`" for k, _ in result.importance[:10])
            + ".",
        ]
    md += [
        "",
        "## Sampling study",
        "",
        *_table(SAMPLING_HEADER, sampling_rows(s), markdown=True),
        "",
        _sampling_note(s),
        "",
        f"Alpha ablation at B = {s.alpha_budget} (scaled from the study's "
        f"B = {SEED_DEFAULT_BUDGET}):",
        "",
        *_table(
            ("alpha", "regret", "P_0.01", "P_0.05", "P_0.10", "GH200 regret", "GH200 P_0.05"),
            [
                [
                    f"{r['alpha']:.2f}",
                    _pct(float(r["regret"]), 2),
                    _pct(float(r["p01"]), 0),
                    _pct(float(r["p05"]), 0),
                    _pct(float(r["p10"]), 0),
                    _pct(SEED_ALPHA.get(float(r["alpha"]), (None, None))[0]),
                    _pct(SEED_ALPHA.get(float(r["alpha"]), (None, None))[1]),
                ]
                for r in _records(s.alpha)
            ],
            markdown=True,
        ),
        "",
        "Competitive candidates (share within eps of the oracle):",
        "",
        *_table(
            ("eps", "mean", "median", "GH200 mean", "GH200 median"),
            [
                [
                    _pct(float(r["epsilon"]), 0),
                    _pct(float(r["mean"]), 2),
                    _pct(float(r["median"]), 2),
                    _pct(float(r["seed_mean"]), 2),
                    _pct(float(r["seed_median"]), 2),
                ]
                for r in _records(s.competitive)
            ],
            markdown=True,
        ),
        "",
        "## Features and parameters: global vs within-group Spearman (evaluation groups)",
        "",
        "The study's Table 3 correlates profiler counters; this dataset records none, so only "
        "the static features and configuration parameters (its Table 4) are analysed here.",
        "",
        *_table(
            ("feature", "global rho", "mean rho_g", "median rho_g", "rho_g > 0", "groups"),
            _correlation_rows(result.correlation, 25),
            markdown=True,
        ),
        "",
        "Mean within-group rho_g by size, geometry and intensity regime:",
        "",
    ]
    regimes = result.regimes
    top = [f for f in result.correlation["feature"].head(12) if f in regimes.index]
    md += _table(
        ("feature", *regimes.columns),
        [[f, *(f"{v:+.3f}" if np.isfinite(v) else "n/a" for v in regimes.loc[f])] for f in top]
        + [["groups", *(str(int(v)) for v in regimes.loc["groups"].to_numpy())]],
        markdown=True,
    )
    md += ["", "## Figures", ""]
    md += [f"![{p.stem}](figures/{p.name})" for p in figures]
    if result.notes:
        md += ["", "## Notes", "", *(f"- {n}" for n in result.notes)]
    return "\n".join(md) + "\n"


def write_report(
    result: StudyResult, out: str | Path, params: Mapping[str, Any] | None = None
) -> list[Path]:
    """Write ``report.md``, ``figures/*.png`` and ``per_group.csv`` under ``out``."""
    folder = Path(out)
    figures = _figures(result, folder / "figures")
    report = folder / "report.md"
    write_text_atomic(report, render_markdown(result, figures, params))
    per_group = folder / "per_group.csv"
    write_text_atomic(per_group, result.per_group.to_csv(index=False))
    return [report, per_group, *figures]
