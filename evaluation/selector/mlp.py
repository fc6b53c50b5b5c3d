"""Model B: a multilayer perceptron on the transformed features, with three training losses.

Training needs PyTorch (CPU build, optional extra ``mlp``); scoring does not: the fitted
network is exported as a :class:`FoldedMLP`, plain NumPy weights with the numeric
standardisation folded into the first layer, so a saved model ranks raw feature rows anywhere.

Reconstruction of the selection study's losses (its formulas were lost; the prose says):
``x'_i`` is the scaled/encoded row, ``s_i = f(x'_i)``, ``y_i = T_i / T*_g``; ``P`` holds
ordered pairs of one group with ``y_i > y_j``.

* pointwise: ``L = mean_i (s_i - y_i)^2``;
* pairwise logistic: ``L = mean_{(i,j) in P} log(1 + exp(-(s_i - s_j)))``;
* LambdaRank: ``L = sum_{(i,j) in P} |dNDCG_ij| log(1 + exp(-(s_i - s_j)))`` per group, with
  gains ``g = y`` (linear) or ``g = 2^y - 1`` (exponential),
  ``IDCG = sum_r g_pi(r) / log2(1 + r)`` over the throughput-sorted order ``pi`` and
  ``|dNDCG_ij| = |g_i - g_j| * |1/log2(1 + r_i) - 1/log2(1 + r_j)| / IDCG``, where the ranks
  ``r`` come from the current scores, detached from the gradient.

Pairs are drawn afresh each epoch, per group: every pair touching one of the group's eight
highest ``y`` (the needle guarantee) is kept, then random pairs of the remainder fill the
group up to ``pair_cap``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np
import pandas as pd

from benchspace.evaluation.selector.encoding import (
    FeatureSpec,
    Scaler,
    fit_scaler,
    numeric_matrix,
    one_hot,
)

LOSSES = ("mse", "pairwise", "lambdarank")
GAINS = ("linear", "exponential")
NEEDLE_TOP = 8


def torch_available() -> bool:
    """True when PyTorch can be imported (the ``mlp`` extra is installed)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # a broken or blocked installation counts as absent
        return False


def sample_pairs(
    y: np.ndarray, cap: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Ordered pairs ``(i, j)`` of one group with ``y_i > y_j``: all that touch the top
    :data:`NEEDLE_TOP` rows, then random pairs of the other rows up to ``cap`` in all."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    top = np.argsort(-y, kind="stable")[: min(NEEDLE_TOP, n)]
    in_top = np.zeros(n, dtype=bool)
    in_top[top] = True
    a = np.repeat(top, n)
    b = np.tile(np.arange(n), len(top))
    # A pair of two top rows appears from both ends: keep it once (a < b).
    keep = (y[a] != y[b]) & (~in_top[b] | (a < b))
    a, b = a[keep], b[keep]
    hi = np.where(y[a] > y[b], a, b)
    lo = np.where(y[a] > y[b], b, a)
    rest = np.flatnonzero(~in_top)
    want = cap - len(hi)
    if want > 0 and len(rest) > 1:
        draw = rng.choice(rest, size=(2 * want, 2))
        draw = draw[y[draw[:, 0]] != y[draw[:, 1]]][:want]
        first_higher = y[draw[:, 0]] > y[draw[:, 1]]
        hi = np.concatenate([hi, np.where(first_higher, draw[:, 0], draw[:, 1])])
        lo = np.concatenate([lo, np.where(first_higher, draw[:, 1], draw[:, 0])])
    return hi.astype(np.int64), lo.astype(np.int64)


def gains(y: np.ndarray, mode: str) -> np.ndarray:
    """LambdaRank gains: ``y`` (linear) or ``2^y - 1`` (exponential)."""
    if mode == "linear":
        return np.asarray(y, dtype=np.float64)
    if mode == "exponential":
        return np.exp2(np.asarray(y, dtype=np.float64)) - 1.0
    raise ValueError(f"gain {mode!r} is not one of {', '.join(GAINS)}")


def ideal_dcg(g: np.ndarray) -> float:
    """``sum_r g_pi(r) / log2(1 + r)`` with ``pi`` sorting the gains in decreasing order."""
    ordered = np.sort(np.asarray(g, dtype=np.float64))[::-1]
    return float(np.sum(ordered / np.log2(np.arange(2, len(ordered) + 2))))


def delta_ndcg(
    g: np.ndarray, ranks: np.ndarray, i: np.ndarray, j: np.ndarray, idcg: float
) -> np.ndarray:
    """``|g_i - g_j| * |1/log2(1+r_i) - 1/log2(1+r_j)| / IDCG`` (ranks from 1)."""
    disc = 1.0 / np.log2(1.0 + np.asarray(ranks, dtype=np.float64))
    return np.asarray(np.abs(g[i] - g[j]) * np.abs(disc[i] - disc[j]) / max(idcg, 1e-12))


@dataclass(frozen=True, kw_only=True)
class FoldedMLP:
    """An exported network: ReLU layers, standardisation folded into the first one."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Scores of rows ``[finite(raw numeric), one-hot]``."""
        h = x
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w.T + b
            if k < len(self.weights) - 1:
                h = np.maximum(h, 0.0)
        return np.asarray(h[:, 0], dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        """Layers as nested lists."""
        return {
            "weights": [w.tolist() for w in self.weights],
            "biases": [b.tolist() for b in self.biases],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> FoldedMLP:
        """The inverse of :meth:`to_json`."""
        return FoldedMLP(
            weights=tuple(np.asarray(w, dtype=np.float64) for w in data["weights"]),
            biases=tuple(np.asarray(b, dtype=np.float64) for b in data["biases"]),
        )


def fold_scaler(
    weights: list[np.ndarray], biases: list[np.ndarray], scaler: Scaler, n_numeric: int
) -> FoldedMLP:
    """Fold ``(x - mean) / scale`` of the first ``n_numeric`` inputs into the first layer."""
    w0, b0 = weights[0].astype(np.float64), biases[0].astype(np.float64)
    mean, scale = np.asarray(scaler.mean), np.asarray(scaler.scale)
    w = w0.copy()
    w[:, :n_numeric] = w0[:, :n_numeric] / scale
    b = b0 - w0[:, :n_numeric] @ (mean / scale)
    rest = [x.astype(np.float64) for x in weights[1:]]
    return FoldedMLP(weights=(w, *rest), biases=(b, *(x.astype(np.float64) for x in biases[1:])))


def raw_inputs(features: pd.DataFrame, spec: FeatureSpec) -> np.ndarray:
    """What a :class:`FoldedMLP` reads: numeric columns with non-finite values as 0, one-hot."""
    x = numeric_matrix(features, spec)
    return np.hstack([np.where(np.isfinite(x), x, 0.0), one_hot(features, spec)])


class _Adam:
    """Adam with L2 weight decay (as ``torch.optim.Adam``), without importing its compiler stack.

    ``torch.optim`` pulls in TorchDynamo on first use, seconds of import on a busy 2-core box.
    """

    def __init__(self, params: list[Any], lr: float, weight_decay: float) -> None:
        import torch

        self.params, self.lr, self.weight_decay = params, lr, weight_decay
        self.betas, self.eps, self.t = (0.9, 0.999), 1e-8, 0
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]

    def step(self) -> None:
        import torch

        self.t += 1
        b1, b2 = self.betas
        with torch.no_grad():
            for p, m, v in zip(self.params, self.m, self.v, strict=True):
                if p.grad is None:
                    continue
                g = p.grad + self.weight_decay * p
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (v / (1 - b2**self.t)).sqrt_().add_(self.eps)
                p.addcdiv_(m, denom, value=-self.lr / (1 - b1**self.t))


@dataclass(kw_only=True)
class MLPSelector:
    """Model B: train with PyTorch on CPU, score with the folded NumPy network."""

    spec: FeatureSpec
    loss: str = "lambdarank"
    gain: str = "exponential"
    hidden: tuple[int, ...] = (64, 32)
    epochs: int = 15
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    groups_per_batch: int = 16
    pair_cap: int = 512
    seed: int = 0
    n_threads: int = 1
    network_: FoldedMLP | None = field(default=None, init=False, repr=False)

    def _check(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"loss {self.loss!r} is not one of {', '.join(LOSSES)}")
        gains(np.zeros(1), self.gain)

    def fit(
        self,
        X: pd.DataFrame,
        y: np.ndarray,
        *,
        group: np.ndarray,
        relevance: np.ndarray | None = None,
    ) -> Self:
        """Train on the rows of ``X`` (``y = T/T*``, ``group`` one code per row)."""
        del relevance
        self._check()
        import torch

        torch.manual_seed(self.seed)
        torch.set_num_threads(self.n_threads)
        rng = np.random.default_rng(self.seed)
        scaler = fit_scaler(numeric_matrix(X, self.spec))
        raw = raw_inputs(X, self.spec)
        n_num = len(self.spec.numeric)
        scaled = raw.copy()
        scaled[:, :n_num] = (raw[:, :n_num] - np.asarray(scaler.mean)) / np.asarray(scaler.scale)
        x_all = torch.as_tensor(scaled, dtype=torch.float32)
        target = np.asarray(y, dtype=np.float64)
        y_all = torch.tensor(target, dtype=torch.float32)
        rows_of = [
            np.asarray(r, dtype=np.int64)
            for r in pd.Series(np.arange(len(target))).groupby(np.asarray(group)).indices.values()
        ]
        gain_of = [gains(target[r], self.gain) for r in rows_of]
        idcg_of = [ideal_dcg(g) for g in gain_of]

        layers: list[Any] = []
        width = x_all.shape[1]
        for h in self.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, 1))
        net = torch.nn.Sequential(*layers)
        opt = _Adam(list(net.parameters()), self.learning_rate, self.weight_decay)
        for _ in range(self.epochs):
            order = rng.permutation(len(rows_of))
            for start in range(0, len(order), self.groups_per_batch):
                batch = order[start : start + self.groups_per_batch]
                rows = np.concatenate([rows_of[g] for g in batch])
                scores = net(x_all[rows]).squeeze(1)
                loss = self._batch_loss(scores, y_all[rows], batch, rows_of, gain_of, idcg_of, rng)
                if loss is None:
                    continue
                net.zero_grad()
                loss.backward()
                opt.step()
        linear = [m for m in net if isinstance(m, torch.nn.Linear)]
        self.network_ = fold_scaler(
            [m.weight.detach().numpy() for m in linear],
            [m.bias.detach().numpy() for m in linear],
            scaler,
            n_num,
        )
        return self

    def _batch_loss(
        self,
        scores: Any,
        y: Any,
        batch: np.ndarray,
        rows_of: list[np.ndarray],
        gain_of: list[np.ndarray],
        idcg_of: list[float],
        rng: np.random.Generator,
    ) -> Any:
        import torch

        if self.loss == "mse":
            return torch.mean((scores - y) ** 2)
        detached = scores.detach().numpy()
        his, los, weights = [], [], []
        offset = 0
        for g in batch:
            n = len(rows_of[g])
            yg = y[offset : offset + n].numpy().astype(np.float64)
            i, j = sample_pairs(yg, self.pair_cap, rng)
            if self.loss == "lambdarank" and len(i):
                s = detached[offset : offset + n]
                ranks = np.empty(n)
                ranks[np.argsort(-s, kind="stable")] = np.arange(1, n + 1)
                weights.append(delta_ndcg(gain_of[g], ranks, i, j, idcg_of[g]))
            his.append(i + offset)
            los.append(j + offset)
            offset += n
        hi = torch.as_tensor(np.concatenate(his))
        lo = torch.as_tensor(np.concatenate(los))
        if len(hi) == 0:
            return None
        logistic = torch.nn.functional.softplus(-(scores[hi] - scores[lo]))
        if self.loss == "pairwise":
            return torch.mean(logistic)
        w = torch.as_tensor(np.concatenate(weights), dtype=torch.float32)
        return torch.sum(w * logistic) / len(batch)

    def score(self, X: pd.DataFrame) -> np.ndarray:
        """Higher is better within a group (no PyTorch needed)."""
        if self.network_ is None:
            raise RuntimeError("MLPSelector is not fitted; call fit() first")
        return self.network_.forward(raw_inputs(X, self.spec))
