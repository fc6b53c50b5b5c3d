"""Shared-memory layout of CUTLASS SM90 GEMM kernels: epilogue storage, auto stages, totals.

Reconstructed from the CUTLASS 4.2 headers shipped in the ``nvidia-cutlass`` wheel and checked
against the values nvcc 13.0 computes for 405 distinct (tile, schedule, C type) kernels of the
``max`` catalogue (tests/evaluation/data/cutlass_smem_nvcc.csv): stages and epilogue storage
match exactly, the kernel total within 128 bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.hardware import Hardware

SMEM_ALIGNMENT = 128
"""``compute_stage_count_or_override``'s default alignment of stage and carve-out bytes."""

MAINLOOP_BARRIER_BYTES = 16
"""``sizeof(PipelineTmaAsync<1>::SharedStorage)``: a full and an empty 8-byte barrier per stage."""

SWIZZLE_ALIGNMENT = 1024
"""Alignment of the 128-byte-swizzled epilogue C/D buffers (every SM90 column-major D here)."""

# Bytes of barriers and scheduler state besides the mainloop pipeline, fitted to nvcc's
# SharedStorageSize (order barriers for ping-pong, none for the plain kernel).
_SCHEDULE_OVERHEAD = {"cooperative": 160, "pingpong": 224, "warpspecialized": 16}

_KERNEL = {
    "TmaWarpSpecializedCooperative": "cooperative",
    "TmaWarpSpecializedPingpong": "pingpong",
    "TmaWarpSpecialized": "warpspecialized",
}
_EPILOGUE = {
    "NoSmemWarpSpecialized": "nosmem",
    "ScheduleAuto": "nosmem",
    "TmaWarpSpecialized": "tma",
    "TmaWarpSpecializedCooperative": "tma_cooperative",
}
_BITS = {"bf16": 16, "f32": 32, "void": 0}


def _lookup(values: Any, table: dict[str, Any], default: Any = None) -> np.ndarray:
    """Map strings through ``table`` in one vectorised pass (unknown values -> ``default``)."""
    mapped = pd.Series(np.asarray(values, dtype=object)).map(table)
    if default is not None:
        mapped = mapped.fillna(default)
    return mapped.to_numpy()


def round_up(x: Any, a: int) -> np.ndarray:
    """``x`` rounded up to a multiple of ``a`` (element-wise)."""
    arr = np.asarray(x, dtype=np.int64)
    return np.asarray(-(-arr // a) * a, dtype=np.int64)


def effective_kernel_schedule(kernel_schedule: np.ndarray, tm: np.ndarray) -> np.ndarray:
    """``cooperative``, ``pingpong`` or ``warpspecialized``; ``ScheduleAuto`` resolved as the
    SM90 builder does with CUDA >= 12.1 (ping-pong for TM = 64, cooperative otherwise)."""
    auto = np.where(np.asarray(tm) == 64, "pingpong", "cooperative")
    mapped = _lookup(kernel_schedule, _KERNEL, "")
    return np.asarray(np.where(mapped == "", auto, mapped), dtype=str)


def effective_epilogue_schedule(epilogue_schedule: np.ndarray) -> np.ndarray:
    """``nosmem``, ``tma`` or ``tma_cooperative``; the builder's Auto epilogue is no-smem."""
    return np.asarray(_lookup(epilogue_schedule, _EPILOGUE), dtype=str)


def _epilogue_parts(configs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tensor bytes, load-pipeline bytes, is TMA) of the epilogue ``SharedStorage``.

    Epilogue tile (``sm90_compute_tile_shape_or_override``): ``(min(128, TM), gcd(min(32, TN),
    TN))`` for the cooperative epilogue, ``(min(64, TM), ...)`` otherwise. With ``E`` epilogue
    tiles per CTA tile: ``StagesD = min(E, 2)``; C reuses D's buffer when both have the same
    width (``StagesC = max(min(E, 4), StagesD + 1)``), else ``StagesC = min(E, 4)``. Buffers: D
    only for void C, ``StagesC`` shared buffers on reuse, else both; the fusion state adds a few
    bytes and the 1 KiB swizzle alignment rounds the tensors up; the C-load pipeline holds
    two 8-byte barriers per C stage.
    """
    tm = np.asarray(configs["tm"].to_numpy(), dtype=np.int64)
    tn = np.asarray(configs["tn"].to_numpy(), dtype=np.int64)
    epi = effective_epilogue_schedule(configs["epilogue_schedule"].to_numpy())
    c_bits = np.asarray(_lookup(configs["c_type"], _BITS), dtype=np.int64)
    d_types = configs["d_type"] if "d_type" in configs.columns else ["bf16"] * len(configs)
    d_bits = np.asarray(_lookup(d_types, _BITS), dtype=np.int64)
    em = np.minimum(np.where(epi == "tma_cooperative", 128, 64), tm)
    en = np.gcd(np.minimum(32, tn), tn)
    tiles = (tm // em) * (tn // en)
    stages_d = np.minimum(tiles, 2)
    reuse = (c_bits == d_bits) & (d_bits > 8)
    stages_c = np.where(reuse, np.maximum(np.minimum(tiles, 4), stages_d + 1), np.minimum(tiles, 4))
    tile_bytes = em * en
    collective = np.where(
        c_bits == 0,
        tile_bytes * stages_d * d_bits // 8,
        np.where(
            reuse,
            tile_bytes * stages_c * d_bits // 8,
            tile_bytes * (stages_c * c_bits + stages_d * d_bits) // 8,
        ),
    )
    is_tma = epi != "nosmem"
    tensors = np.where(is_tma, round_up(collective + 1, SWIZZLE_ALIGNMENT), 0)
    pipeline = np.where(is_tma, MAINLOOP_BARRIER_BYTES * stages_c, 0)
    return tensors, pipeline, is_tma


def epilogue_storage_bytes(configs: pd.DataFrame) -> np.ndarray:
    """``sizeof(CollectiveEpilogue::SharedStorage)``: 1 for the no-smem epilogue (an empty
    struct), else the TMA epilogue's buffers and pipeline rounded to the 1 KiB alignment."""
    tensors, pipeline, is_tma = _epilogue_parts(configs)
    return np.where(is_tma, round_up(tensors + pipeline, SWIZZLE_ALIGNMENT), 1)


def auto_stages(configs: pd.DataFrame, hw: Hardware) -> np.ndarray:
    """Stages that ``StageCountAutoCarveout<sizeof(epilogue SharedStorage)>`` gives.

    ``(capacity - round_up(carveout, 128)) // (round_up((TM + TN) * TK * 2, 128) + 16)``, with
    the capacity the per-block shared memory rounded down to 128 bytes (232448 on SM90).
    """
    tm, tn, tk = (np.asarray(configs[c].to_numpy(), dtype=np.int64) for c in ("tm", "tn", "tk"))
    stage = round_up((tm + tn) * tk * 2, SMEM_ALIGNMENT) + MAINLOOP_BARRIER_BYTES
    carveout = round_up(epilogue_storage_bytes(configs), SMEM_ALIGNMENT)
    capacity = hw.smem_per_block_bytes // SMEM_ALIGNMENT * SMEM_ALIGNMENT
    return np.asarray((capacity - carveout) // stage, dtype=np.int64)


def resolved_stages(configs: pd.DataFrame, hw: Hardware) -> np.ndarray:
    """The explicit stage count where one is set, else :func:`auto_stages`."""
    explicit = np.asarray(configs["stages"].to_numpy(), dtype=np.int64)
    return np.where(explicit > 0, explicit, auto_stages(configs, hw))


def smem_total_bytes(configs: pd.DataFrame, stages: np.ndarray) -> np.ndarray:
    """The kernel's ``SharedStorageSize`` by schedule.

    Cooperative and ping-pong kernels hold mainloop stages and epilogue buffers at once (the
    epilogue of one tile overlaps the next tile's mainloop); the plain warp-specialized kernel
    keeps them in a union. Barriers are added and the sum rounded to the alignment of its
    most-aligned member.
    """
    tm, tn, tk = (np.asarray(configs[c].to_numpy(), dtype=np.int64) for c in ("tm", "tn", "tk"))
    schedule = effective_kernel_schedule(configs["kernel_schedule"].to_numpy(), tm)
    tensors, pipeline, is_tma = _epilogue_parts(configs)
    mainloop = np.asarray(stages, dtype=np.int64) * (tm + tn) * tk * 2
    data = np.where(
        schedule == "warpspecialized", np.maximum(mainloop, tensors), mainloop + tensors
    )
    overhead = np.asarray(_lookup(schedule, _SCHEDULE_OVERHEAD), dtype=np.int64)
    barriers = MAINLOOP_BARRIER_BYTES * np.asarray(stages, dtype=np.int64) + pipeline + overhead
    align = np.where(is_tma, SWIZZLE_ALIGNMENT, SMEM_ALIGNMENT)
    return np.asarray(-(-(data + barriers) // align) * align, dtype=np.int64)
