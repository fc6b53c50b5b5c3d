"""The build directory's ``batches.json``: which batches were built or failed, per kernel facts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchspace.evaluation.cutlass.batches import KernelBatch
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.files import read_object
from benchspace.harness.jsonio import write_text_atomic

INDEX_FORMAT = "benchspace-cutlass-batches"
INDEX_VERSION = 1
INDEX_NAME = "batches.json"


@dataclass(frozen=True, kw_only=True, slots=True)
class BuildResult:
    """How one batch's build ended."""

    batch: KernelBatch
    status: str
    """``built``, ``cached`` (library already there), ``failed``, or ``stopped`` (killed by a
    stop signal; not recorded)."""
    seconds: float
    kernels: dict[str, dict[str, Any]]
    """Per kernel: library, index, ptxas usage and static info (empty when failed)."""
    error: str = ""


def load_index(build_dir: Path) -> dict[str, Any]:
    """The build directory's batches.json, or an empty index when there is none."""
    path = build_dir / INDEX_NAME
    if not path.exists():
        return {"format": INDEX_FORMAT, "version": INDEX_VERSION, "batches": {}, "kernels": {}}
    data = read_object(path, kind="batch index (delete it to rebuild)")
    if data.get("format") != INDEX_FORMAT or data.get("version") != INDEX_VERSION:
        raise BenchspaceError(
            f"{path}: $.format/$.version is {data.get('format')!r}/{data.get('version')!r}, "
            f"expected {INDEX_FORMAT!r}/{INDEX_VERSION}; delete it to rebuild the index"
        )
    return data


def record_result(index: dict[str, Any], result: BuildResult, when: str) -> None:
    """Fold one build result into the index (in place)."""
    entry: dict[str, Any] = {
        "library": result.batch.library,
        "kernels": list(result.batch.names),
        "status": "failed" if result.status == "failed" else "built",
        "seconds": round(result.seconds, 1),
    }
    if result.status == "failed":
        entry["error"] = result.error
    old = index["batches"].get(result.batch.batch_id, {})
    entry["finished_at"] = old.get("finished_at", when) if result.status == "cached" else when
    if result.status == "cached" and "seconds" in old:
        entry["seconds"] = old["seconds"]
    index["batches"][result.batch.batch_id] = entry
    for name, record in result.kernels.items():
        index["kernels"][name] = record


_BUILD_KEYS = ("cutlass_version", "flags", "glue_version")
"""What must agree for two build directories' libraries to be mixed."""


def merge_index(into: dict[str, Any], other: dict[str, Any], other_name: str) -> list[str]:
    """Fold another build directory's index into ``into`` (in place); the batch ids it added.

    Batches are keyed by their kernels, so the same id is the same batch: a built entry wins
    over a failed one, and ``into``'s entry stays when both built. Refuses indexes whose
    CUTLASS version, nvcc flags or glue version differ (their libraries cannot be mixed).
    """
    for key in _BUILD_KEYS:
        mine, theirs = into.get(key), other.get(key)
        if mine is not None and theirs is not None and mine != theirs:
            raise BenchspaceError(
                f"{other_name}: $.{key} is {theirs!r} but the build directory's is {mine!r}; "
                "libraries built otherwise cannot be mixed: build them again here"
            )
    for key in _BUILD_KEYS:
        if into.get(key) is None and other.get(key) is not None:
            into[key] = other[key]
    added: list[str] = []
    for batch_id, entry in sorted(other.get("batches", {}).items()):
        old = into["batches"].get(batch_id)
        if old is not None and not (old.get("status") == "failed" and entry["status"] == "built"):
            continue
        into["batches"][batch_id] = entry
        added.append(batch_id)
        for name in entry.get("kernels", []):
            if name in other.get("kernels", {}):
                into["kernels"][name] = other["kernels"][name]
    return added


def write_index(build_dir: Path, index: dict[str, Any]) -> None:
    """Write batches.json deterministically and atomically."""
    write_text_atomic(build_dir / INDEX_NAME, json.dumps(index, indent=2, sort_keys=True) + "\n")


def compiled_kernels(index: dict[str, object]) -> tuple[list[str], int]:
    """Kernels built without register spills (ptxas), and how many spilling ones were dropped."""
    kernels = index.get("kernels", {})
    assert isinstance(kernels, dict)
    keep, spilled = [], 0
    for name, record in sorted(kernels.items()):
        if not isinstance(record, dict) or not record.get("library"):
            continue
        if (record.get("spill_stores") or 0) > 0 or (record.get("spill_loads") or 0) > 0:
            spilled += 1
            continue
        keep.append(name)
    return keep, spilled
