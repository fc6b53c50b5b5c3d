"""The static efficiency score and the budgeted candidate-sampling policies.

Policies pick ``budget`` kernels out of a pool: ``uniform`` (random), ``static_top`` (the
best static scores) and ``biased_diverse`` (a fraction ``alpha`` from the top of the static
ranking, the rest at random from the remainder). All are deterministic for a seed, return the
whole pool when it is no larger than the budget, and return their choice in pool order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.selector.features import features_for_pairs
from benchspace.harness.errors import SpaceError, UsageError
from benchspace.harness.measurement import Value

POLICIES = ("uniform", "static_top", "biased_diverse")
DEFAULT_ALPHA = 0.75
"""The selection study's corpus policy: three quarters of the budget from the top."""

STAGE_WEIGHT = 0.2
STAGE_CAP = 8
TILE_WEIGHT = 0.2
TILE_INTENSITY_CAP = 128.0
"""``TM*TN/(TM+TN)`` of a 256x256 tile, the largest in the catalogue."""
SPILL_PENALTY = 1.0


def static_score(features: pd.DataFrame, hw: Hardware, penalise_spill: bool = True) -> pd.Series:
    """The cheap ranking score of each (problem, kernel) row of a feature frame; higher is better.

    Reconstruction of the study's score: ``n_c = ceil(n_M/c_M) * ceil(n_N/c_N)`` clusters,
    ``S_cl = floor(S_SM / (c_M*c_N))`` clusters resident at once, ``W = ceil(n_c / S_cl)``
    cluster waves, and::

        score = n_c / (W*S_cl) * n_M*n_N / (n_c*c_M*c_N)
              + 0.2 * min(S, 8) / 8 + 0.2 * (TM*TN / (TM+TN)) / 128

    The first term is the wave fill in cluster slots times the share of launched CTAs that
    own a tile, so ragged last waves and oversized clusters both lose; the others favour deeper
    pipelines and larger (higher-reuse) tiles. Kernels at spill risk lose 1 so that they rank
    below every other kernel (a spilling kernel runs at a few percent of the best).
    """
    clusters = features["clusters"].to_numpy(dtype=np.float64)
    cluster_size = features["cluster_size"].to_numpy(dtype=np.int64)
    resident = np.maximum(hw.sms // cluster_size, 1)
    waves = np.ceil(clusters / resident)
    fill = clusters / (waves * resident)
    used = features["tiles"].to_numpy(dtype=np.float64) / (clusters * cluster_size)
    stages = np.minimum(features["stages_resolved"].to_numpy(dtype=np.float64), STAGE_CAP)
    tile = features["tile_intensity"].to_numpy(dtype=np.float64) / TILE_INTENSITY_CAP
    score = fill * used + STAGE_WEIGHT * stages / STAGE_CAP + TILE_WEIGHT * tile
    if penalise_spill:
        score = score - SPILL_PENALTY * features["spill_risk"].to_numpy(dtype=np.float64)
    return pd.Series(score, index=features.index, name="static_score")


def _check_budget(budget: int) -> None:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget {budget!r} must be a non-negative integer")


def _scores(pool: Sequence[str], scores: Sequence[float] | Mapping[str, float]) -> np.ndarray:
    if isinstance(scores, Mapping):
        return np.array([scores[name] for name in pool], dtype=np.float64)
    if len(scores) != len(pool):
        raise ValueError(f"{len(scores)} scores for a pool of {len(pool)}; give one per candidate")
    return np.asarray(scores, dtype=np.float64)


def _ranking(pool: Sequence[str], scores: Sequence[float] | Mapping[str, float]) -> np.ndarray:
    """Pool positions from best to worst score; ties keep pool order."""
    return np.argsort(-_scores(pool, scores), kind="stable")


def _generator(seed: int | Sequence[int] | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def uniform(
    pool: Sequence[str], budget: int, seed: int | Sequence[int] | np.random.Generator = 0
) -> list[str]:
    """``budget`` candidates drawn without replacement, uniformly."""
    _check_budget(budget)
    if budget >= len(pool):
        return list(pool)
    chosen = _generator(seed).choice(len(pool), size=budget, replace=False)
    return [pool[i] for i in sorted(int(i) for i in chosen)]


def static_top(
    pool: Sequence[str], budget: int, scores: Sequence[float] | Mapping[str, float]
) -> list[str]:
    """The ``budget`` candidates with the highest static score (ties: earlier in the pool)."""
    _check_budget(budget)
    if budget >= len(pool):
        return list(pool)
    top = _ranking(pool, scores)[:budget]
    return [pool[i] for i in sorted(int(i) for i in top)]


def biased_diverse(
    pool: Sequence[str],
    budget: int,
    scores: Sequence[float] | Mapping[str, float],
    alpha: float = DEFAULT_ALPHA,
    seed: int | Sequence[int] | np.random.Generator = 0,
) -> list[str]:
    """``round(alpha*budget)`` from the top of the static ranking, the rest uniformly from the
    remainder. ``alpha = 1`` is :func:`static_top`; ``alpha = 0`` is :func:`uniform` with the
    same seed."""
    _check_budget(budget)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha {alpha!r} must lie in [0, 1]")
    if budget >= len(pool):
        return list(pool)
    n_top = round(alpha * budget)
    top = _ranking(pool, scores)[:n_top]
    taken = np.zeros(len(pool), dtype=bool)
    taken[top] = True
    rest = np.flatnonzero(~taken)
    n_rest = budget - n_top
    if n_rest:
        drawn = _generator(seed).choice(len(rest), size=n_rest, replace=False)
        taken[rest[drawn]] = True
    return [pool[int(i)] for i in np.flatnonzero(taken)]


@dataclass(frozen=True, kw_only=True, slots=True)
class SamplingPolicy:
    """A space file's ``sample`` block: which policy picks how many grid values per case."""

    policy: str
    budget: int
    alpha: float = DEFAULT_ALPHA
    seed: int = 0


def parse_sample(block: Any, where: str = "sample") -> SamplingPolicy:
    """A :class:`SamplingPolicy` from a decoded ``sample`` block; ``where`` prefixes error paths
    (e.g. ``"spaces/cutlass.json: $.spaces[0].cases[2].sample"``)."""
    if isinstance(block, SamplingPolicy):
        return block
    if not isinstance(block, Mapping):
        raise SpaceError(f"{where}: {block!r} must be an object with policy and budget")
    unknown = set(block) - {"policy", "budget", "alpha", "seed"}
    if unknown:
        raise SpaceError(
            f"{where}: unknown key(s) {sorted(unknown)}; use policy, budget, alpha, seed"
        )
    policy = block.get("policy")
    if policy not in POLICIES:
        raise SpaceError(f"{where}.policy: {policy!r} is not one of {', '.join(POLICIES)}")
    budget = block.get("budget")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise SpaceError(f"{where}.budget: {budget!r} must be a positive integer")
    alpha = block.get("alpha", DEFAULT_ALPHA)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 <= alpha <= 1:
        raise SpaceError(f"{where}.alpha: {alpha!r} must be a number in [0, 1]")
    seed = block.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpaceError(f"{where}.seed: {seed!r} must be a non-negative integer")
    return SamplingPolicy(policy=policy, budget=budget, alpha=float(alpha), seed=seed)


def _dimension(case_fixed: Mapping[str, Value], key: str, where: str) -> int:
    for name in (key, key.lower()):
        if name in case_fixed:
            value = case_fixed[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SpaceError(f"{where}.fixed.{name}: {value!r} must be a positive integer")
            return value
    raise SpaceError(
        f"{where}.fixed: no {key} (or {key.lower()}); a sampled CUTLASS grid needs the case's "
        "M, N and K as fixed parameters"
    )


def sample_grid(
    values: Sequence[str],
    case_fixed: Mapping[str, Value],
    sample: SamplingPolicy | Mapping[str, Any],
    hw: Hardware,
    where: str = "case",
) -> list[str]:
    """The kernels of a categorical grid to measure for one case, in grid order.

    ``values`` are catalogue procedural names (the grid); ``case_fixed`` the case's fixed
    parameters, which must hold ``M``, ``N`` and ``K`` (or ``m``/``n``/``k``) and may hold
    ``beta`` (C is read only when beta != 0); ``sample`` is the grid's ``sample`` block
    (``policy``: uniform | static_top | biased_diverse, ``budget``, ``alpha`` = 0.75,
    ``seed`` = 0). Configurations are parsed from the names and scored with
    :func:`static_score` over :func:`~evaluation.selector.features.features_for_pairs`. The random
    draws use the generator seeded with ``[seed, M, N, K]``: reproducible, yet each case
    explores different kernels. ``where`` prefixes error messages (file and JSON path).
    """
    spec = parse_sample(sample, f"{where}.sample")
    pool = list(dict.fromkeys(values))
    m, n, k = (_dimension(case_fixed, key, where) for key in ("M", "N", "K"))
    rng = np.random.default_rng([spec.seed, m, n, k])
    if spec.budget >= len(pool):
        return pool
    if spec.policy == "uniform":
        return uniform(pool, spec.budget, rng)
    try:
        configs = records_frame(parse_kernel_name(name) for name in pool)
    except UsageError as exc:
        raise SpaceError(f"{where}: grid value {exc}") from exc
    pairs = configs.assign(M=m, N=n, K=k)
    beta = case_fixed.get("beta")
    if isinstance(beta, int | float) and not isinstance(beta, bool):
        pairs["beta"] = float(beta)
    scores = static_score(features_for_pairs(pairs, hw), hw).to_numpy()
    if spec.policy == "static_top":
        return static_top(pool, spec.budget, list(scores))
    return biased_diverse(pool, spec.budget, list(scores), spec.alpha, rng)
