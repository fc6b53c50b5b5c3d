"""Kernels beyond a selector's candidate pool, ranked beside it from their static facts.

A selector ranks the kernels its training data measured. cuBLASLt's own SM90 kernels often run
tiles whose N is not a power of two (128x160 and 128x192, its tile ids 29 and 32), which the
``max`` catalogue lacks (its WGMMA shapes stop at the powers of two; the wide-tile level
``catalogue.WIDE_LEVEL`` has them). ``tune-shapes --extra-kernels FILE`` adds such kernels to the
pool: each gets its catalogue fields from its procedural name, the stage count CUTLASS's
``StageCountAutoCarveout`` resolves (``smem.resolved_stages``, checked against nvcc), and the
knob settings (raster, swizzle) the pool measured for kernels of its schedule, tile scheduler
and cluster. The model then scores them like any candidate. It never saw such a tile
measured, so its scores for them are an extrapolation: the measured rounds decide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pandas as pd

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.smem import resolved_stages
from benchspace.evaluation.selector.model_file import DeployedSelector
from benchspace.harness.errors import UsageError

SIBLING_KEYS = ("kernel_schedule", "epilogue_schedule", "tile_scheduler", "cm", "cn")
"""A pool kernel shares its knob settings with an extra kernel when these fields agree."""

DEFAULT_KNOBS = (("H", 1),)
"""The knob setting of an extra kernel no pool kernel resembles: the scheduler's defaults."""


def extra_candidates(selector: DeployedSelector, names: Sequence[str]) -> pd.DataFrame:
    """Candidate rows (the pool's columns) for ``names`` that are not in the pool yet."""
    pool = selector.candidates
    known = set(pool["kernel"].astype(str))
    configs = records_frame(parse_kernel_name(n) for n in names if n not in known)
    if configs.empty:
        return pool.iloc[0:0].copy()
    layouts = set(pool["layout"].astype(str))
    foreign = configs[~configs["layout"].isin(layouts)]
    if len(foreign):
        raise UsageError(
            f"extra kernel {foreign['name'].iloc[0]!r} has layout {foreign['layout'].iloc[0]!r}; "
            f"the selector's candidates are {', '.join(sorted(layouts))}: list kernels of those"
        )
    configs["stages"] = resolved_stages(configs, selector.hardware)
    rows = []
    for config in configs.to_dict("records"):
        same = pool
        for key in SIBLING_KEYS:
            same = same[same[key] == config[key]]
        knobs = sorted(
            {(str(r), int(s)) for r, s in zip(same["raster"], same["swizzle"], strict=True)}
        )
        for raster, swizzle in knobs or DEFAULT_KNOBS:
            row: dict[str, Any] = {str(c): None for c in pool.columns}
            row.update({str(k): v for k, v in config.items() if k in pool.columns})
            row.update(kernel=config["name"], raster=raster, swizzle=swizzle)
            row.update(spill_loads=0, spill_stores=0)
            rows.append(row)
    return pd.DataFrame(rows, columns=pool.columns)


def with_extra_kernels(selector: DeployedSelector, names: Sequence[str]) -> DeployedSelector:
    """``selector`` whose pool also holds ``names`` (see :func:`extra_candidates`)."""
    extra = extra_candidates(selector, names)
    if extra.empty:
        return selector
    pool = pd.concat([selector.candidates, extra], ignore_index=True)
    return dataclasses.replace(selector, candidates=pool)
