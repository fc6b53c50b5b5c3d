"""The GEMM header's records: where it goes (spec), what a leaf runs (choice), the whole
dispatch (tree, choices, enum order, pinned cuBLASLt entries). Pure."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchspace.evaluation.deploy.dispatch_tree import DispatchTree
from benchspace.evaluation.deploy.pinned import PinnedConfig
from benchspace.evaluation.deploy.shape_features import ShapeFeature, feature_matrix
from benchspace.evaluation.deploy.shape_sample import ShapeDomain
from benchspace.harness.spaces.model import Space

DEFAULT_PATH = "include/benchspace/gemm_kernels.hh"
ENV_SUFFIX = "GEMM_KERNEL"
CUBLAS = "cublas"
"""The pseudo-kernel: dispatch to cuBLAS instead of a CUTLASS kernel."""
DEFAULT_LEAVES = 512


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmHeaderSpec:
    """Where the header goes, how it is overridden, and its size budget and sample."""

    path: str = DEFAULT_PATH
    namespace: str = "benchspace::gemm"
    env_var: str = "BENCHSPACE_" + ENV_SUFFIX
    guard: str | None = None
    max_leaves: int = DEFAULT_LEAVES
    """The size budget: leaves of the dispatch tree (each one table row)."""
    samples: int = 32000
    """Shapes the tree is grown on."""
    pilot: int = 4000
    """The first ``pilot`` of them are scored over every candidate, to narrow the rest."""
    narrow: int = 3
    """Candidates kept: the union of each pilot shape's ``narrow`` best predicted."""
    seed: int = 0
    domain: ShapeDomain = field(default_factory=ShapeDomain)
    edges_per_octave: int = 4
    min_samples: int = 4
    """Fewest sampled shapes a leaf may hold."""
    quantised: bool = True
    """Let nodes test the padding, tile and wave features too, not only M, N and K."""
    temperature: float = 0.02
    """Of the soft preferences the splits separate (log units of predicted throughput)."""
    overgrow: int = 4
    """Grow this many times the leaf budget, then prune back."""
    tail: float = 0.03
    """Regret past which a leaf's choice is penalised ..."""
    tail_weight: float = 3.0
    """... with this weight on top of the log regret itself."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmChoice:
    """A kernel with its runtime scheduler knobs (``cublas`` for the pseudo-kernel)."""

    kernel: str
    raster: str = "H"
    swizzle: int = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmDispatch:
    """The tree, the choices its leaves index, and the kernels the enum lists."""

    spec: GemmHeaderSpec
    tree: DispatchTree
    choices: tuple[GemmChoice, ...]
    kernels: tuple[str, ...]
    """Enum order: sorted CUTLASS names (runners-up included), then the pinned entries'
    enumerators (in :attr:`pinned` order), then ``cublas``."""
    origin: str
    """What chose the tree (selector name, file hash, training data), for the banner."""
    features: tuple[ShapeFeature, ...]
    """What the nodes test (node ``dim`` indexes this)."""
    sms: int
    """The SM count the wave features divide by."""
    cublas_leaves: int = 0
    note: str = ""
    """The header's overview paragraph; empty: the sampled tree's (see :func:`header_view`)."""
    pinned: tuple[PinnedConfig, ...] = ()
    """Pinned cuBLASLt configurations; a choice names one by its ``enum_name``."""
    cublaslt_version: int = 0
    """``cublasLtGetVersion()`` the pinned entries were measured with (0: none)."""
    leaf_rule: str = ""
    """How the leaves naming cublas or a pinned entry were decided, for the overview (empty:
    the selector's same-round cuBLAS evidence)."""

    def leaf_of(self, shapes: np.ndarray) -> np.ndarray:
        """The leaf node of each (M, N, K) row."""
        return self.tree.leaf_of(feature_matrix(shapes, self.sms)[:, : len(self.features)])

    def choose(self, shapes: np.ndarray) -> np.ndarray:
        """The index into :attr:`choices` of each (M, N, K) row."""
        return self.tree.choose(feature_matrix(shapes, self.sms)[:, : len(self.features)])


def spec_from_space(space: Space) -> GemmHeaderSpec:
    """The header spec declared by a space file's ``header`` section (defaults otherwise):
    path, namespace, env prefix, guard and the leaf budget (``leaves``)."""
    header = space.header
    if header is None:
        return GemmHeaderSpec()
    leaves = space.raw.get("header", {}).get("leaves", DEFAULT_LEAVES)
    return GemmHeaderSpec(
        path=header.path,
        namespace=header.namespace,
        env_var=header.env_prefix + ENV_SUFFIX,
        guard=header.guard,
        max_leaves=int(leaves),
    )
