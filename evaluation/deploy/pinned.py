"""Pinned cuBLASLt configurations: a ``cublasLtMatmulAlgo_t`` named by its readable attributes.

The driver (v4) times ``cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;
stages=35;inner=0;cluster=5``: exactly these nine attributes in this order, decimal integers,
the stable key of a configuration (cuBLASLt's CUBLASLT_ALGO_CONFIG_ID, TILE_ID, SPLITK_NUM,
REDUCTION_SCHEME, CTA_SWIZZLING, CUSTOM_OPTION, STAGES_ID, INNER_SHAPE_ID, CLUSTER_SHAPE_ID),
rebuilt with ``cublasLtMatmulAlgoInit`` + ``cublasLtMatmulAlgoConfigSetAttribute`` and checked
with ``cublasLtMatmulAlgoCheck``. Rows of ``cublas:heuristic`` / ``cublas:algo<i>`` carry in
their ``cublas_algo`` column the same nine fields followed by ``ws`` and ``waves``: their key
is ``cublaslt:`` + the first nine. In the GEMM header a pinned entry's enumerator is
``cublaslt_<id>_<tile>_..._<cluster>`` and its name (what the override matches) is the key.

Pure: text in, records out.
"""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass

from benchspace.harness.errors import UsageError

PREFIX = "cublaslt:"
FIELDS = ("id", "tile", "splitk", "reduction", "swizzle", "custom", "stages", "inner", "cluster")
"""The key's attributes, in key order."""
_VALUE = re.compile(r"[0-9]+")


@dataclass(frozen=True, order=True, slots=True)
class PinnedConfig:
    """One cuBLASLt configuration (the nine attributes of :data:`FIELDS`)."""

    algo_id: int
    tile: int
    splitk: int
    reduction: int
    swizzle: int
    custom: int
    stages: int
    inner: int
    cluster: int

    def values(self) -> tuple[int, ...]:
        """The attributes in key order."""
        return tuple(int(v) for v in astuple(self))

    @property
    def key(self) -> str:
        """``cublaslt:id=..;tile=..;...;cluster=..`` (the driver's CONFIG text)."""
        return PREFIX + ";".join(f"{f}={v}" for f, v in zip(FIELDS, self.values(), strict=True))

    @property
    def enum_name(self) -> str:
        """``cublaslt_<id>_<tile>_..._<cluster>``: the header's enumerator."""
        return "cublaslt_" + "_".join(str(v) for v in self.values())


def _parse_fields(text: str, where: str, *, trailing: bool) -> PinnedConfig:
    parts = text.split(";")
    wanted = len(FIELDS)
    if len(parts) < wanted or (not trailing and len(parts) != wanted):
        raise UsageError(
            f"{where}: {text!r} is not {wanted} attributes {';'.join(f + '=N' for f in FIELDS)}"
        )
    values = []
    for part, name in zip(parts[:wanted], FIELDS, strict=True):
        key, sep, value = part.partition("=")
        if key != name or not sep or not _VALUE.fullmatch(value):
            raise UsageError(
                f"{where}: {text!r}: expected {name}=<decimal integer> where {part!r} stands "
                f"(attributes in the order {', '.join(FIELDS)})"
            )
        values.append(int(value))
    return PinnedConfig(*values)


def parse_key(text: str, where: str = "pinned configuration") -> PinnedConfig:
    """A ``cublaslt:id=..;...`` key (exactly the nine attributes, in order)."""
    if not text.startswith(PREFIX):
        raise UsageError(f"{where}: {text!r} does not start with {PREFIX!r}")
    return _parse_fields(text[len(PREFIX) :], where, trailing=False)


def from_cublas_algo(text: str, where: str = "cublas_algo") -> PinnedConfig:
    """The configuration a ``cublas_algo`` column describes (``id=..;...;cluster=..;ws=..;
    waves=..``: the first nine fields; the rest are facts of the shape, not of the key)."""
    return _parse_fields(text, where, trailing=True)


def is_key(text: str) -> bool:
    """Whether ``text`` names a pinned configuration (starts with ``cublaslt:``)."""
    return text.startswith(PREFIX)
