"""The SM90 BF16 GEMM kernel catalogue, enumerated with the ``cutlass_library`` generator."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import pandas as pd

from benchspace.harness.errors import UsageError

LEVELS = ("default", "max")
"""Named instantiation levels; any 4-digit string is accepted as well."""

WIDE_LEVEL = "9999"
"""The level whose WGMMA shapes include N = 8 to 256 in steps of 8 (``max`` stops at the
powers of two): the 128x160 and 128x192 tiles that cuBLASLt's own kernels use on SM90."""

LAYOUTS = ("nnn", "ntn", "tnn", "ttn")
"""Layouts of A, B and C (``t`` row-major, ``n`` column-major); C and D are column-major."""

D_TYPES = ("bf16", "f32")

# A non-empty filter is required: with an empty one the 3.x generator runs in "pruned" mode and
# keeps only the first tile description per call.
_KERNEL_FILTER = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_*"

_TILE_SCHEDULERS = {"Default": "default", "Persistent": "persistent", "StreamK": "stream_k"}


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelConfig:
    """The compile-time configuration of one catalogue kernel."""

    name: str
    """``procedural_name()``: the stable id of the kernel."""
    tm: int
    tn: int
    tk: int
    cm: int
    cn: int
    stages: int
    """0 means automatic (``StageCountAutoCarveout``)."""
    kernel_schedule: str
    """CUTLASS ``KernelScheduleType`` name: ``TmaWarpSpecializedCooperative``, ``...Pingpong``,
    ``TmaWarpSpecialized`` or ``ScheduleAuto``."""
    epilogue_schedule: str
    """CUTLASS ``EpilogueScheduleType`` name: ``NoSmemWarpSpecialized``, ``TmaWarpSpecialized``,
    ``TmaWarpSpecializedCooperative`` or ``ScheduleAuto``."""
    tile_scheduler: str
    """``default``, ``persistent`` or ``stream_k``."""
    layout: str
    align_a: int
    align_b: int
    align_c: int
    align_d: int
    c_type: str
    """``bf16`` (C is read when beta != 0) or ``void`` (no C operand)."""


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(KernelConfig))


def _level_argument(level: str) -> list[str]:
    if level == "default":
        return []
    if level == "max" or re.fullmatch(r"[0-9]{4}", level):
        return ["--instantiation-level", level]
    raise UsageError(
        f"instantiation level {level!r} is not valid; use 'default', 'max' or four digits "
        "such as '2342'"
    )


def _check_layouts(layouts: Sequence[str] | None) -> tuple[str, ...]:
    if layouts is None:
        return LAYOUTS
    bad = [lay for lay in layouts if lay not in LAYOUTS]
    if bad or not layouts:
        raise UsageError(
            f"layouts {list(layouts)!r} are not valid; choose from {', '.join(LAYOUTS)} "
            "(A, B, C; C is always column-major)"
        )
    return tuple(layouts)


def _generate(level: str) -> list[Any]:
    # Imported here: the generator costs ~0.3 s to import and only this function needs it.
    from cutlass_library import generator
    from cutlass_library.manifest import Manifest

    argv = [
        "--operations",
        "gemm",
        "--architectures",
        "90a",
        "--cuda-version",
        "13.0",
        "--kernels",
        _KERNEL_FILTER,
        *_level_argument(level),
    ]
    args = generator.define_parser().parse_args(argv)
    # The generator logs and prints as it goes; library code stays quiet.
    logger = logging.getLogger("cutlass_library")
    previous = logger.level
    logger.setLevel(logging.WARNING)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            manifest = Manifest(args)
            generator.GenerateSM90_TensorOp_16b_WGMMA_gemm(manifest, args.cuda_version)
    finally:
        logger.setLevel(previous)
    return [
        op
        for by_cc in manifest.operations.values()
        for by_name in by_cc.values()
        for ops in by_name.values()
        for op in ops
    ]


def enumerate_operations(
    level: str = "default", layouts: Sequence[str] | None = None, d_type: str = "bf16"
) -> list[Any]:
    """SM90 ``GemmOperation``s: bf16 x bf16 -> f32 accumulate -> ``d_type`` D, aligned TMA kernels.

    C is either ``d_type`` or void; ``layouts`` filters on the A/B/C layout string (``"tnn"``).
    The list is sorted by procedural name so that its order is stable.
    """
    if d_type not in D_TYPES:
        raise UsageError(f"D type {d_type!r} is not valid; choose from {', '.join(D_TYPES)}")
    wanted = _check_layouts(layouts)
    kept = []
    for op in _generate(level):
        if (
            op.A.element.name != "bf16"
            or op.B.element.name != "bf16"
            or op.accumulator_type().name != "f32"
            or op.D.element.name != d_type
            or op.C.element.name not in (d_type, "void")
            or op.layout_name_3x() not in wanted
        ):
            continue
        kept.append(op)
    kept.sort(key=lambda op: op.procedural_name())
    return kept


def operation_record(op: Any) -> KernelConfig:
    """The :class:`KernelConfig` of one ``cutlass_library`` ``GemmOperation``."""
    tile = op.tile_description
    tm, tn, tk = (int(v) for v in tile.threadblock_shape)
    cm, cn = int(tile.cluster_shape[0]), int(tile.cluster_shape[1])
    return KernelConfig(
        name=op.procedural_name(),
        tm=tm,
        tn=tn,
        tk=tk,
        cm=cm,
        cn=cn,
        stages=int(tile.stages),
        kernel_schedule=op.kernel_schedule.name,
        epilogue_schedule=op.epilogue_schedule.name,
        tile_scheduler=_TILE_SCHEDULERS[op.tile_scheduler.name],
        layout=op.layout_name_3x(),
        align_a=int(op.A.alignment),
        align_b=int(op.B.alignment),
        align_c=int(op.C.alignment),
        align_d=int(op.D.alignment),
        c_type=op.C.element.name,
    )


_NAME = re.compile(
    r"cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_(?P<c>bf16|f32|void)_(?P<d>bf16|f32)_"
    r"(?P<tm>\d+)x(?P<tn>\d+)x(?P<tk>\d+)_(?P<cm>\d+)x(?P<cn>\d+)x1_(?P<stages>\d+)_"
    r"(?P<layout>[nt]{3})_align(?P<align>\d+)(?P<sk>_stream_k)?"
    r"(?P<ks>_warpspecialized(?:_pingpong|_cooperative)?)?(?P<es>_epi_nosmem|_epi_tma)?"
)
_KERNEL_SUFFIX = {
    None: "ScheduleAuto",
    "_warpspecialized": "TmaWarpSpecialized",
    "_warpspecialized_pingpong": "TmaWarpSpecializedPingpong",
    "_warpspecialized_cooperative": "TmaWarpSpecializedCooperative",
}
_BITS = {"bf16": 16, "f32": 32}


def parse_kernel_name(name: str) -> KernelConfig:
    """The :class:`KernelConfig` encoded in a procedural name, without running the generator.

    The generator pairs the ``_epi_tma`` suffix with the cooperative TMA epilogue for
    cooperative kernels and with the plain TMA epilogue otherwise, and C/D alignment is always
    16 bytes; the catalogue tests check that this inverts ``procedural_name()`` exactly.
    """
    match = _NAME.fullmatch(name)
    if match is None:
        raise UsageError(
            f"{name!r} is not an SM90 bf16 GEMM procedural name; take names from "
            "'benchspace cutlass catalogue --names'"
        )
    kernel_schedule = _KERNEL_SUFFIX[match["ks"]]
    if match["es"] is None:
        epilogue_schedule = "ScheduleAuto"
    elif match["es"] == "_epi_nosmem":
        epilogue_schedule = "NoSmemWarpSpecialized"
    elif kernel_schedule == "TmaWarpSpecializedCooperative":
        epilogue_schedule = "TmaWarpSpecializedCooperative"
    else:
        epilogue_schedule = "TmaWarpSpecialized"
    align_cd = 128 // _BITS[match["d"]]
    return KernelConfig(
        name=name,
        tm=int(match["tm"]),
        tn=int(match["tn"]),
        tk=int(match["tk"]),
        cm=int(match["cm"]),
        cn=int(match["cn"]),
        stages=int(match["stages"]),
        kernel_schedule=kernel_schedule,
        epilogue_schedule=epilogue_schedule,
        tile_scheduler="stream_k" if match["sk"] else "default",
        layout=match["layout"],
        align_a=int(match["align"]),
        align_b=int(match["align"]),
        align_c=align_cd,
        align_d=align_cd,
        c_type=match["c"],
    )


def records_frame(records: Iterable[KernelConfig]) -> pd.DataFrame:
    """A DataFrame with one row per record and the :class:`KernelConfig` fields as columns."""
    return pd.DataFrame([asdict(r) for r in records], columns=list(FIELDS))


def load_catalogue(
    level: str = "default", layouts: Sequence[str] | None = None, d_type: str = "bf16"
) -> pd.DataFrame:
    """The catalogue as a DataFrame: one row per kernel, the :class:`KernelConfig` fields."""
    return records_frame(
        operation_record(op) for op in enumerate_operations(level, layouts, d_type)
    )


def operations_by_name(
    names: Iterable[str], level: str | Sequence[str] = "default", d_type: str = "bf16"
) -> dict[str, Any]:
    """The ``GemmOperation`` for each procedural name; an unknown name is an error.

    ``level``: one instantiation level, or several tried in order, each enumerated only for
    the names the earlier ones lack (``("max", WIDE_LEVEL)``: the 128x160 and 128x192 tiles
    beside the ``max`` catalogue without enumerating 89,840 kernels for every build)."""
    wanted = list(dict.fromkeys(names))
    levels = [level] if isinstance(level, str) else list(level)
    found: dict[str, Any] = {}
    for one in levels:
        missing = [n for n in wanted if n not in found]
        if not missing:
            break
        here = {op.procedural_name(): op for op in enumerate_operations(one, None, d_type)}
        found.update({n: here[n] for n in missing if n in here})
    missing = [n for n in wanted if n not in found]
    if missing:
        raise UsageError(
            f"{len(missing)} kernel name(s) are not in the {_either(levels)} catalogue, e.g. "
            f"{missing[0]!r}; enumerate a larger level (--level max, or {WIDE_LEVEL} for tiles "
            "whose N is not a power of two) or fix the name"
        )
    return {n: found[n] for n in wanted}


def _either(levels: Sequence[str]) -> str:
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'``."""
    quoted = [repr(level) for level in levels]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def field_counts(catalogue: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Kernel counts by tile, cluster, schedules, tile scheduler, layout and C type."""
    keyed = {
        "tile": catalogue["tm"].astype(str)
        + "x"
        + catalogue["tn"].astype(str)
        + "x"
        + catalogue["tk"].astype(str),
        "cluster": catalogue["cm"].astype(str) + "x" + catalogue["cn"].astype(str),
        "kernel_schedule": catalogue["kernel_schedule"],
        "epilogue_schedule": catalogue["epilogue_schedule"],
        "tile_scheduler": catalogue["tile_scheduler"],
        "layout": catalogue["layout"],
        "c_type": catalogue["c_type"],
        "stages": catalogue["stages"].astype(str),
    }
    return {
        key: {str(k): int(v) for k, v in col.value_counts().sort_index().items()}
        for key, col in keyed.items()
    }
