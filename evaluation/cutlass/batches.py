"""Kernel batches: which kernels compile together into one translation unit and library."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchspace.evaluation.cutlass.nvcc import NVCC_FLAGS
from benchspace.harness.errors import UsageError
from benchspace.harness.files import decode

GLUE_VERSION = 2
"""Bump when cb_kernel.hpp or batch.cu.j2 change what a library does: every batch rebuilds."""


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelBatch:
    """Kernels compiled together into one translation unit and one shared library."""

    batch_id: str
    """First 12 hex digits of the sha256 of the sorted names, flags and glue version."""
    names: tuple[str, ...]
    """Sorted: a kernel's index in the library is its position here."""

    @property
    def library(self) -> str:
        """File name of the shared library."""
        return f"libcb_{self.batch_id}.so"

    @property
    def source(self) -> str:
        """File name of the generated translation unit."""
        return f"cb_{self.batch_id}.cu"


def batch_id(names: Iterable[str], flags: Sequence[str] = NVCC_FLAGS) -> str:
    """The stable id of a set of kernels built with these flags."""
    key = json.dumps(
        {"names": sorted(names), "flags": list(flags), "glue": GLUE_VERSION}, sort_keys=True
    )
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def plan_batches(names: Sequence[str], per_tu: int = 8) -> list[KernelBatch]:
    """Chunk names (duplicates dropped, order kept: earlier names build first) into batches."""
    if per_tu < 1:
        raise UsageError(f"--per-tu {per_tu} is not valid; use a positive count such as 8")
    unique = list(dict.fromkeys(names))
    chunks = [unique[i : i + per_tu] for i in range(0, len(unique), per_tu)]
    return [KernelBatch(batch_id=batch_id(chunk), names=tuple(sorted(chunk))) for chunk in chunks]


def read_kernel_list(path: Path) -> list[str]:
    """Kernel names, one a line; blank lines and ``#`` comments ignored."""
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the kernel list ({exc.strerror})") from exc
    lines = decode(blob, str(path), error=UsageError).splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def pending_names(names: Sequence[str], index: dict[str, Any], build_dir: Path) -> list[str]:
    """Names without a built library (failed batches are not retried: their names drop out)."""
    failed = {
        name
        for entry in index["batches"].values()
        if entry["status"] == "failed"
        for name in entry["kernels"]
    }
    done = {
        name
        for name, record in index["kernels"].items()
        if (build_dir / record["library"]).exists()
    }
    return [name for name in names if name not in done and name not in failed]
