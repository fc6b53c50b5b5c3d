"""How well each sampling policy exposes near-optimal kernels, measured on exhaustive groups.

Reconstruction of the selection study's definitions (formulas lost; the prose says): for an
exhaustively measured group ``g`` with oracle ``T*_g = max_{c in C_g} T(c)`` and a policy's
subset ``S_B(g)`` of ``B`` candidates, the sampling regret is
``R_B(g) = 1 - max_{c in S_B(g)} T(c) / T*_g`` and the discovery indicator is
``1[max_{c in S_B(g)} T(c) >= (1 - eps) T*_g]``; ``P_eps(B)`` is its mean over groups.
Random policies (uniform, biased-diverse) are repeated and averaged; static top-B is
deterministic. The competitive fraction of a group is the share of its candidates within
``eps`` of the oracle.

The study's catalogue had 15,132 kernels and budgets of 1000/2000/3000; ours is far smaller,
so its budgets are rescaled to the same fractions of our catalogue, next to a few small
absolute budgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.sampling import (
    DEFAULT_ALPHA,
    POLICIES,
    biased_diverse,
    static_top,
    uniform,
)

SEED_CATALOGUE = 15_132
"""The GH200 study's SM90 catalogue (cutlass_library at ``max``, four layouts)."""
SEED_BUDGETS: tuple[int, ...] = (1000, 2000, 3000)
SEED_DEFAULT_BUDGET = 2000
ABSOLUTE_BUDGETS: tuple[int, ...] = (5, 10, 20, 50)
EPSILONS: tuple[float, ...] = (0.01, 0.05, 0.10)
ALPHAS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
REPETITIONS = 100

SEED_REGRET: dict[str, dict[int, float]] = {
    "uniform": {1000: 0.113, 2000: 0.085, 3000: 0.071},
    "static_top": {2000: 0.006},
    "biased_diverse": {1000: 0.015, 2000: 0.009, 3000: 0.005},
}
"""GH200 mean sampling regret quoted by the study, by policy and budget."""
SEED_P05: dict[str, dict[int, float]] = {
    "uniform": {2000: 0.256, 3000: 0.353},
    "static_top": {2000: 0.971, 3000: 0.971},
    "biased_diverse": {2000: 0.913, 3000: 0.973},
}
"""GH200 ``P_0.05(B)`` quoted by the study."""
SEED_COMPETITIVE = {0.01: (0.0043, 0.0017), 0.05: (0.024, 0.010), 0.10: (0.109, 0.044)}
"""GH200 share of candidates within eps of the oracle: (mean, median) over groups."""


@dataclass(frozen=True, kw_only=True)
class SamplingStudy:
    """Regret and discovery curves per policy and budget, the alpha ablation, competitiveness."""

    groups: int
    catalogue_size: int
    """Median number of candidates of an exhaustive group: what budgets are scaled to."""
    repetitions: int
    alpha_budget: int
    curves: pd.DataFrame
    """policy, budget, seed_budget (the GH200 budget it scales, or 0), regret, p01, p05, p10."""
    alpha: pd.DataFrame
    """alpha, regret, p01, p05, p10 at ``alpha_budget``."""
    competitive: pd.DataFrame
    """epsilon, mean and median share within eps of the oracle, the GH200 figures."""


def scaled_budget(seed_budget: int, catalogue_size: int) -> int:
    """``seed_budget / 15132`` of our catalogue, at least 1."""
    return max(1, round(seed_budget * catalogue_size / SEED_CATALOGUE))


def _outcomes(best: np.ndarray, oracle: float) -> np.ndarray:
    """Regret and the three discovery indicators of each draw (rows)."""
    ratio = best / oracle
    hits = [ratio >= 1.0 - eps - 1e-12 for eps in EPSILONS]
    return np.column_stack([1.0 - ratio, *hits]).astype(np.float64)


def _draws(
    policy: str,
    t: np.ndarray,
    scores: np.ndarray,
    budget: int,
    alpha: float,
    rng: np.random.Generator,
    repetitions: int,
) -> np.ndarray:
    """The best throughput observed in each repetition of one policy on one group."""
    pool = [str(i) for i in range(len(t))]
    if policy == "static_top" or (policy == "biased_diverse" and alpha == 1.0):
        chosen = static_top(pool, budget, list(scores))
        return np.array([max(t[int(c)] for c in chosen)])
    out = np.empty(repetitions)
    for r in range(repetitions):
        if policy == "uniform":
            chosen = uniform(pool, budget, rng)
        else:
            chosen = biased_diverse(pool, budget, list(scores), alpha, rng)
        out[r] = max(t[int(c)] for c in chosen)
    return out


def _evaluate(
    groups: list[tuple[np.ndarray, np.ndarray]],
    policy: str,
    budget: int,
    alpha: float,
    seed: int,
    repetitions: int,
) -> np.ndarray:
    """Mean regret, P_0.01, P_0.05, P_0.10 over groups (repetitions averaged within a group)."""
    per_group = []
    for index, (t, scores) in enumerate(groups):
        rng = np.random.default_rng([seed, index, budget, round(alpha * 1000)])
        best = _draws(policy, t, scores, budget, alpha, rng, repetitions)
        per_group.append(_outcomes(best, float(t.max())).mean(axis=0))
    return np.asarray(np.mean(per_group, axis=0), dtype=np.float64)


def sampling_study(
    frame: pd.DataFrame,
    static: np.ndarray | pd.Series,
    seed: int = 0,
    repetitions: int = REPETITIONS,
    absolute_budgets: Sequence[int] = ABSOLUTE_BUDGETS,
) -> SamplingStudy:
    """Run every policy at every budget on the groups of ``frame`` (group, tflops, one row per
    candidate of an exhaustively measured group); ``static`` is each row's static score."""
    data = frame[["group", "tflops"]].assign(score=np.asarray(static, dtype=np.float64))
    groups = [
        (g["tflops"].to_numpy(np.float64), g["score"].to_numpy(np.float64))
        for _, g in data.groupby("group", sort=True)
    ]
    if not groups:
        raise ValueError("the sampling study needs at least one exhaustively measured group")
    size = int(np.median([len(t) for t, _ in groups]))
    budgets: dict[int, int] = {b: 0 for b in absolute_budgets if b < size}
    for seed_budget in SEED_BUDGETS:
        budgets[scaled_budget(seed_budget, size)] = seed_budget
    rows = []
    for policy in POLICIES:
        for budget, seed_budget in sorted(budgets.items()):
            values = _evaluate(groups, policy, budget, DEFAULT_ALPHA, seed, repetitions)
            rows.append((policy, budget, seed_budget, *values))
    columns = ["regret", "p01", "p05", "p10"]
    curves = pd.DataFrame(rows, columns=["policy", "budget", "seed_budget", *columns])
    alpha_budget = scaled_budget(SEED_DEFAULT_BUDGET, size)
    alpha_rows = [
        (a, *_evaluate(groups, "biased_diverse", alpha_budget, a, seed, repetitions))
        for a in ALPHAS
    ]
    competitive = pd.DataFrame(
        [
            (
                eps,
                float(np.mean([np.mean(t >= (1 - eps - 1e-12) * t.max()) for t, _ in groups])),
                float(np.median([np.mean(t >= (1 - eps - 1e-12) * t.max()) for t, _ in groups])),
                *SEED_COMPETITIVE[eps],
            )
            for eps in EPSILONS
        ],
        columns=["epsilon", "mean", "median", "seed_mean", "seed_median"],
    )
    return SamplingStudy(
        groups=len(groups),
        catalogue_size=size,
        repetitions=repetitions,
        alpha_budget=alpha_budget,
        curves=curves,
        alpha=pd.DataFrame(alpha_rows, columns=["alpha", *columns]),
        competitive=competitive,
    )
