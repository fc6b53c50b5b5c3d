"""A sweep's profile meta block: BatchLAS's keys, the options and the provenance."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from benchspace.harness import provenance
from benchspace.harness.execute.invoke import RunOptions
from benchspace.harness.profiles.model import ProfileMeta, ProfileProvenance
from benchspace.harness.spaces.model import Space


class SweepSettings(Protocol):
    """What the meta block records of a sweep's options (``TuneOptions`` has them)."""

    @property
    def command(self) -> Sequence[str]: ...
    @property
    def run(self) -> RunOptions: ...
    @property
    def repeats(self) -> int | None: ...
    @property
    def timeout_s(self) -> float | None: ...
    @property
    def topk(self) -> int: ...
    @property
    def benches(self) -> Sequence[str]: ...
    @property
    def extra_meta(self) -> Mapping[str, Any]: ...
    @property
    def out(self) -> Path: ...


def base_meta(space: Space, options: SweepSettings) -> ProfileMeta:
    """The profile's meta block (BatchLAS keys plus provenance)."""
    prov = provenance.collect(space.path, list(options.command))
    prov.update(
        options={
            "backend": options.run.backend,
            "dtype": options.run.dtype,
            "repeats": options.repeats,
            "timeout_s": options.timeout_s,
            "topk": options.topk,
            "warmup": options.run.warmup,
            "min_time_ms": options.run.min_time_ms,
            "min_iters": options.run.min_iters,
            "max_iters": options.run.max_iters,
            "benches": list(options.benches),
        },
        **options.extra_meta,
    )
    other = {k: v for k, v in prov.items() if k not in ("space_path", "space_sha256")}
    # Both the absolute path and the path from the profile's folder: readers find the space
    # from the profile, wherever they run (harness/profiles/read.py: recorded_space).
    space_file = Path(str(prov.get("space_path", space.path))).resolve()
    other["space_path_relative"] = os.path.relpath(space_file, options.out.resolve().parent)
    return ProfileMeta(
        backend=options.run.backend,
        dtype=options.run.dtype,
        build_dir=str(options.run.build_dir),
        hostname=platform.node(),
        platform=platform.platform(),
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        provenance=ProfileProvenance(
            space_path=str(Path(str(prov.get("space_path", space.path))).resolve()),
            space_sha256=str(prov.get("space_sha256", space.sha256)),
            executables={},
            other=other,
        ),
    )


def with_executables(
    meta: ProfileMeta, executables: Mapping[str, str], changes: Sequence[Mapping[str, str]] = ()
) -> ProfileMeta:
    """The meta block with the hashes of the executables swept so far, and the executables
    that changed during the sweep (``executable_changes``, only when one did)."""
    assert meta.provenance is not None
    prov = replace(meta.provenance, executables=dict(executables))
    if changes:
        prov = replace(prov, other={**prov.other, "executable_changes": list(changes)})
    return replace(meta, provenance=prov)
