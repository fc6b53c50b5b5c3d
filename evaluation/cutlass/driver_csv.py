"""Read the CSV that ``cutlass_bench`` prints: one row per configuration, failures included."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields

import pandas as pd

from benchspace.harness.errors import ReaderError, UsageError

COLUMNS: tuple[str, ...] = (
    "config",
    "name",
    "M",
    "N",
    "K",
    "raster",
    "swizzle",
    "status",
    "ms_mean",
    "ms_stdev",
    "tflops",
    "rel_err",
    "nonfinite",
    "smem_bytes",
    "stages",
    "regs",
    "local_bytes",
    "sm_clock_mhz",
    "power_w",
)
"""The driver's header, in order (``cutlass_bench --describe`` prints it too)."""

STATUSES: tuple[str, ...] = (
    "ok",
    "cannot_implement",
    "launch_error",
    "wrong_result",
    "unknown_kernel",
    "crashed",
    "timeout",
    "not_offered",
)
"""``crashed``/``timeout`` are written for the configuration in flight when the driver dies;
``not_offered``: a ``cublas:algo<i>`` beyond what cuBLASLt's heuristic returned for the shape
(not a failure)."""
SENTINEL_COPY = "last"
"""The ``sentinel`` column of the position sentinel's second copy (config ``<text>@last``):
not a row of the run; :mod:`benchspace.evaluation.study.position` reads it."""

RASTERS: tuple[str, ...] = ("H", "M", "N")
"""Heuristic, along M, along N."""
SWIZZLES: tuple[int, ...] = (1, 2, 4, 8)
DECOMPOSITIONS: tuple[str, ...] = ("H", "D", "K", "S")
"""Stream-K decomposition: heuristic, data-parallel, split-K, stream-K."""
CUBLAS = "cublas"
"""The name of cuBLASLt configurations: ``cublas:heuristic``, ``cublas:algo<i>`` and the pinned
``cublaslt:<attributes>``."""
PINNED = "cublaslt"
"""The prefix of a pinned cuBLASLt configuration (driver v4)."""
PINNED_FIELDS: tuple[str, ...] = (
    "id",
    "tile",
    "splitk",
    "reduction",
    "swizzle",
    "custom",
    "stages",
    "inner",
    "cluster",
)
"""cuBLASLt's ``CUBLASLT_ALGO_CONFIG_*`` attributes 0..8, in the order of the pinned key."""

_NAME = re.compile(r"[A-Za-z0-9_]+")
_CUBLAS = re.compile(r"cublas:(heuristic|algo[0-9]{1,3})")
_PINNED = re.compile(PINNED + ":" + ";".join(f"{f}=[0-9]{{1,9}}" for f in PINNED_FIELDS))


def pinned_key(cublas_algo: str) -> str:
    """The pinned configuration (``cublaslt:id=..;...;cluster=..``) of a cuBLASLt row's
    ``cublas_algo`` column (``id=..;...;cluster=..;ws=..;waves=..[;words=..]``); empty when the
    column does not hold the nine attributes (a driver before v2, or a failed row)."""
    fields = dict(part.split("=", 1) for part in cublas_algo.split(";") if "=" in part)
    if not all(f in fields and fields[f].isdigit() for f in PINNED_FIELDS):
        return ""
    return PINNED + ":" + ";".join(f"{f}={int(fields[f])}" for f in PINNED_FIELDS)


def pinned_attributes(text: str) -> tuple[int, ...]:
    """The nine attributes of a pinned configuration's text, in :data:`PINNED_FIELDS` order."""
    if not _PINNED.fullmatch(text):
        raise UsageError(
            f"configuration {text!r} is not a pinned cuBLASLt configuration; write "
            f"{PINNED}:" + ";".join(f"{f}=<int>" for f in PINNED_FIELDS)
        )
    return tuple(int(part.split("=", 1)[1]) for part in text.split(":", 1)[1].split(";"))


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelRunConfig:
    """One runtime configuration: a compiled kernel and its scheduler knobs, or a cuBLASLt
    algorithm (``name`` ``cublas``, ``algo`` ``heuristic`` or ``algo<i>``)."""

    name: str
    raster: str = "H"
    swizzle: int = 1
    splits: int = 1
    """Stream-K kernels: split-K factor (``k<splits>`` in the text)."""
    decomposition: str = "H"
    """Stream-K kernels: one of :data:`DECOMPOSITIONS` (``d<X>`` in the text)."""
    algo: str = ""
    """cuBLASLt configurations only: ``heuristic``, ``algo<i>``, or a pinned configuration's
    attributes ``id=..;...;cluster=..``."""

    @property
    def pinned(self) -> bool:
        """True for a pinned cuBLASLt configuration (``cublaslt:...``)."""
        return self.cublas and self.algo.startswith("id=")

    @property
    def cublas(self) -> bool:
        """True for a cuBLASLt configuration."""
        return self.name == CUBLAS

    @property
    def text(self) -> str:
        """The driver's CONFIG argument; defaults are left out so the plain name is canonical."""
        if self.pinned:
            return f"{PINNED}:{self.algo}"
        if self.cublas:
            return f"{CUBLAS}:{self.algo}"
        extra = (f":k{self.splits}" if self.splits != 1 else "") + (
            f":d{self.decomposition}" if self.decomposition != "H" else ""
        )
        if self.swizzle != 1 or extra:
            return f"{self.name}:{self.raster}:{self.swizzle}{extra}"
        return self.name if self.raster == "H" else f"{self.name}:{self.raster}"


def parse_config(text: str) -> KernelRunConfig:
    """``name[:raster[:swizzle[:k<splits>][:d<decomposition>]]]``, ``cublas:heuristic`` /
    ``cublas:algo<i>`` or ``cublaslt:id=..;...;cluster=..``, as the driver accepts them."""
    if text.startswith(PINNED + ":"):
        pinned_attributes(text)
        return KernelRunConfig(name=CUBLAS, algo=text.split(":", 1)[1])
    if _CUBLAS.fullmatch(text):
        return KernelRunConfig(name=CUBLAS, algo=text.split(":", 1)[1])
    parts = text.split(":")
    fix = "write <kernel_name>[:H|M|N[:1|2|4|8[:k<splits>][:d<H|D|K|S>]]] or cublas:heuristic"
    if not 1 <= len(parts) <= 5 or not _NAME.fullmatch(parts[0]) or parts[0] == CUBLAS:
        raise UsageError(f"configuration {text!r} is not valid; {fix}")
    raster = parts[1] if len(parts) > 1 else "H"
    swizzle = parts[2] if len(parts) > 2 else "1"
    if raster not in RASTERS or swizzle not in {str(s) for s in SWIZZLES}:
        raise UsageError(f"configuration {text!r} is not valid; {fix}")
    splits, decomposition, seen = 1, "H", ""
    for field in parts[3:]:
        if re.fullmatch(r"k[0-9]{1,3}", field) and not seen and int(field[1:]) >= 1:
            splits, seen = int(field[1:]), "k"
        elif re.fullmatch(r"d[HDKS]", field) and seen != "d":
            decomposition, seen = field[1], "d"
        else:
            raise UsageError(f"configuration {text!r} is not valid; {fix}")
    return KernelRunConfig(
        name=parts[0],
        raster=raster,
        swizzle=int(swizzle),
        splits=splits,
        decomposition=decomposition,
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchRow:
    """One row of the driver's output."""

    config: str
    name: str
    m: int
    n: int
    k: int
    raster: str
    swizzle: int
    status: str
    ms_mean: float | None = None
    ms_stdev: float | None = None
    tflops: float | None = None
    rel_err: float | None = None
    nonfinite: int | None = None
    smem_bytes: int | None = None
    stages: int | None = None
    regs: int | None = None
    local_bytes: int | None = None
    sm_clock_mhz: float | None = None
    power_w: float | None = None

    @property
    def ok(self) -> bool:
        """True when the configuration was timed."""
        return self.status == "ok" and self.ms_mean is not None


ROW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(BenchRow))


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchOutput:
    """Everything read from one invocation's stdout."""

    rows: tuple[BenchRow, ...]
    header_seen: bool
    malformed: tuple[str, ...] = ()
    """Lines after the header that are not rows (a line cut short by a dying process)."""


def _number(value: str, kind: type[int] | type[float], column: str, line: str) -> float | None:
    if value == "":
        return None
    try:
        number = kind(value)
    except ValueError as exc:
        raise ReaderError(
            f"cutlass_bench output: column {column!r} holds {value!r}, not a number, in "
            f"row {line!r}; rebuild the driver or check what else writes to its stdout"
        ) from exc
    return None if isinstance(number, float) and math.isnan(number) else number


def _row(values: dict[str, str], line: str) -> BenchRow:
    status = values["status"]
    if status not in STATUSES:
        raise ReaderError(
            f"cutlass_bench output: status {status!r} is unknown in row {line!r}; "
            f"expected one of {', '.join(STATUSES)}"
        )

    def num_i(column: str) -> int | None:
        found = _number(values[column], int, column, line)
        return None if found is None else int(found)

    def num_f(column: str) -> float | None:
        return _number(values[column], float, column, line)

    m, n, k, swizzle = num_i("M"), num_i("N"), num_i("K"), num_i("swizzle")
    if m is None or n is None or k is None or swizzle is None:
        raise ReaderError(f"cutlass_bench output: M, N, K or swizzle is empty in row {line!r}")
    return BenchRow(
        config=values["config"],
        name=values["name"],
        m=m,
        n=n,
        k=k,
        raster=values["raster"],
        swizzle=swizzle,
        status=status,
        ms_mean=num_f("ms_mean"),
        ms_stdev=num_f("ms_stdev"),
        tflops=num_f("tflops"),
        rel_err=num_f("rel_err"),
        nonfinite=num_i("nonfinite"),
        smem_bytes=num_i("smem_bytes"),
        stages=num_i("stages"),
        regs=num_i("regs"),
        local_bytes=num_i("local_bytes"),
        sm_clock_mhz=num_f("sm_clock_mhz"),
        power_w=num_f("power_w"),
    )


def parse_output(text: str) -> BenchOutput:
    """Rows of the driver's stdout; lines before the header are ignored, extra columns too."""
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.startswith("config,name,")), None)
    if header_at is None:
        return BenchOutput(rows=(), header_seen=False)
    header = next(csv.reader([lines[header_at]]))
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ReaderError(
            f"cutlass_bench output: header lacks column(s) {', '.join(missing)}; "
            "rebuild the driver from benchmarks/cutlass"
        )
    rows: list[BenchRow] = []
    malformed: list[str] = []
    for line in lines[header_at + 1 :]:
        if not line.strip():
            continue
        cells = next(csv.reader(io.StringIO(line)))
        if len(cells) != len(header):
            malformed.append(line)
            continue
        if "sentinel" in header and cells[header.index("sentinel")] == SENTINEL_COPY:
            continue
        rows.append(_row(dict(zip(header, cells, strict=True)), line))
    return BenchOutput(rows=tuple(rows), header_seen=True, malformed=tuple(malformed))


def missing_configs(configs: Sequence[str], rows: Iterable[BenchRow]) -> list[str]:
    """Configurations (in the order given) that have no row yet; repeats count one by one."""
    seen: dict[str, int] = {}
    for row in rows:
        seen[row.config] = seen.get(row.config, 0) + 1
    left = []
    for config in configs:
        if seen.get(config, 0) > 0:
            seen[config] -= 1
        else:
            left.append(config)
    return left


def rows_frame(rows: Iterable[BenchRow]) -> pd.DataFrame:
    """A DataFrame with one row per :class:`BenchRow`, columns the record's fields."""
    return pd.DataFrame([asdict(r) for r in rows], columns=list(ROW_FIELDS))
