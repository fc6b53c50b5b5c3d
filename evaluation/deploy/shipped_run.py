"""Run the shipping study (:mod:`evaluation.deploy.shipped_study`) for saved selectors on a v2
dataset.

Each selector's ``select`` pick and its header (grown with ``spec``, CUTLASS leaves only, then
relabelled by :mod:`evaluation.deploy.leaf_policy` on the training split's measured shapes)
are judged on the evaluation split. The selectors must not have been trained on the
evaluation split (``trained_on.splits``): their figures would not be held out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchspace.evaluation.deploy.cublas_evidence import SHAPE, CublasEvidence
from benchspace.evaluation.deploy.gemm_dispatch import GemmHeaderSpec
from benchspace.evaluation.deploy.kernel_header import choose_dispatch
from benchspace.evaluation.deploy.leaf_policy import policy_dispatch
from benchspace.evaluation.deploy.select import score_matrix
from benchspace.evaluation.deploy.shape_sample import shape_tuples
from benchspace.evaluation.deploy.shipped_study import (
    ShippedRow,
    header_choices,
    per_shape,
    summarise,
)
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.harness.errors import UsageError

HEADER_WAYS = (
    ("CUTLASS-only", "cutlass"),
    ("CUTLASS-or-heuristic", "heuristic"),
    ("CUTLASS-or-pinned-cuBLASLt", "pinned"),
)


@dataclass(frozen=True, kw_only=True)
class SelectorStudy:
    """One selector's rows: its select pick, then its header three ways."""

    label: str
    select: ShippedRow
    headers: tuple[ShippedRow, ...]


def select_choices(selector: DeployedSelector, evidence: CublasEvidence) -> list[str]:
    """``select``'s pick at each evaluation shape, as ``kernel:raster:swizzle``."""
    points = evidence.shapes[SHAPE].to_numpy(dtype=np.int64)
    pool, scores = score_matrix(selector, shape_tuples(points))
    best = scores.argmax(axis=1)
    return [
        f"{pool['kernel'].iloc[i]}:{pool['raster'].iloc[i]}:{int(pool['swizzle'].iloc[i])}"
        for i in best
    ]


def study_selector(
    label: str,
    selector: DeployedSelector,
    spec: GemmHeaderSpec,
    train: CublasEvidence,
    held_out: CublasEvidence,
    dataset: str,
    say: Callable[[str], None] | None = None,
) -> SelectorStudy:
    """The rows of one selector (see the module docstring); ``dataset``: the folder the
    evidence is from (a selector trained on its evaluation split is refused)."""
    splits = [str(s) for s in selector.trained_on.get("splits", [])]
    same = Path(str(selector.trained_on.get("dataset", ""))).parts[-2:] == Path(dataset).parts[-2:]
    if same and held_out.split in splits:
        raise UsageError(
            f"{selector.source or label}: trained on the {held_out.split!r} split too, so its "
            f"figures there are not held out; train one with `benchspace cutlass train DATASET "
            f"--split train --out FILE`"
        )
    select = summarise(f"{label}: select", per_shape(select_choices(selector, held_out), held_out))
    if say:
        say(f"{label}: growing the header's tree")
    base = choose_dispatch(selector, spec, cublas_leaves=False)
    headers = []
    for name, policy in HEADER_WAYS:
        dispatch = policy_dispatch(base, train, policy)
        table = per_shape(header_choices(dispatch, held_out), held_out)
        headers.append(summarise(f"{label}: header {name}", table))
    return SelectorStudy(label=label, select=select, headers=tuple(headers))


def decide(studies: Sequence[SelectorStudy]) -> tuple[SelectorStudy, str]:
    """The selector to ship: the least mean regret of its select pick over the measured
    shapes, and the line saying so."""
    ranked = sorted(studies, key=lambda s: (s.select.regret_mean, s.label))
    best = ranked[0]
    figures = "; ".join(
        f"{s.label} {100 * s.select.regret_mean:.2f} % ({s.select.measured} of "
        f"{s.select.shapes} picks measured)"
        for s in studies
    )
    return best, (
        f"held-out mean regret of select against the measured CUTLASS best: {figures} -> "
        f"ship {best.label}"
    )


def label_of(path: str) -> str:
    """A short label for a selector file."""
    return Path(path).stem
