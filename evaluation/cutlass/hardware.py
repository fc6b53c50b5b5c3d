"""Hardware descriptors (capacities and rates of a GPU) from evaluation/data/hardware/*.json."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from benchspace.evaluation import DATA_DIR
from benchspace.harness.errors import BenchspaceError, json_path
from benchspace.harness.files import parse_json, read_text

FORMAT = "benchspace-hardware"
VERSION = 1


class HardwareError(BenchspaceError):
    """A hardware descriptor is missing or malformed."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Hardware:
    """Capacities and rates that the static features divide by; every value has a source."""

    name: str
    description: str
    sms: int
    smem_per_sm_bytes: int
    smem_per_block_bytes: int
    """The most one block may use; CUTLASS's stage carve-out works from this."""
    smem_reserved_per_block_bytes: int
    registers_per_sm: int
    max_registers_per_thread: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    max_cluster_size: int
    llc_bytes: int
    hbm_bytes_per_s: float
    peak_bf16_flops: float
    sm_clock_hz: float
    tma_bytes_per_s_per_sm: float
    wgmma_flops_per_s_per_warpgroup: float
    hbm_bytes_per_s_measured: float | None = None
    peak_bf16_flops_measured: float | None = None
    sm_clock_sustained_hz: float | None = None
    sources: Mapping[str, str]

    @property
    def ridge_flops_per_byte(self) -> float:
        """The bf16 roofline ridge: datasheet peak flops over datasheet HBM bandwidth."""
        return self.peak_bf16_flops / self.hbm_bytes_per_s


_INTEGER = {
    "sms",
    "smem_per_sm_bytes",
    "smem_per_block_bytes",
    "smem_reserved_per_block_bytes",
    "registers_per_sm",
    "max_registers_per_thread",
    "max_threads_per_sm",
    "max_blocks_per_sm",
    "max_cluster_size",
    "llc_bytes",
}
_OPTIONAL = {"hbm_bytes_per_s_measured", "peak_bf16_flops_measured", "sm_clock_sustained_hz"}
_VALUE_KEYS = tuple(
    f.name for f in fields(Hardware) if f.name not in ("name", "description", "sources")
)


# Found from the package file rather than through importlib.resources: a tests/evaluation
# folder on sys.path can shadow the package as a namespace package under an editable install.
SHIPPED = DATA_DIR / "hardware"


def available_hardware() -> list[str]:
    """Names of the descriptors shipped with the package (``h200``, ``gh200`` ...)."""
    return sorted(p.stem for p in SHIPPED.glob("*.json"))


def _value(origin: str, key: str, entry: Any) -> int | float:
    where = f"{origin}: {json_path('values', key)}"
    if not isinstance(entry, dict) or set(entry) != {"value", "source"}:
        raise HardwareError(f"{where}: {entry!r} must be an object with 'value' and 'source' only")
    value, source = entry["value"], entry["source"]
    if not isinstance(source, str) or not source.strip():
        raise HardwareError(f"{where}.source: {source!r} must name where the value comes from")
    if key in _INTEGER:
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise HardwareError(f"{where}.value: {value!r} must be a positive integer")
        return value
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise HardwareError(f"{where}.value: {value!r} must be a positive number")
    return float(value)


def parse_hardware(data: Any, origin: str) -> Hardware:
    """A :class:`Hardware` from the decoded JSON of a descriptor; ``origin`` names it in errors."""
    if not isinstance(data, dict):
        raise HardwareError(f"{origin}: $: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise HardwareError(f"{origin}: $.format: {data.get('format')!r} must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise HardwareError(
            f"{origin}: $.version: {data.get('version')!r} is not supported; this version reads "
            f"{VERSION}"
        )
    unknown = set(data) - {"format", "version", "name", "description", "values"}
    if unknown:
        raise HardwareError(f"{origin}: $: unknown key(s) {sorted(unknown)}; remove them")
    for key in ("name", "description"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise HardwareError(f"{origin}: {json_path(key)}: {data.get(key)!r} must be a string")
    values = data.get("values")
    if not isinstance(values, dict):
        raise HardwareError(f"{origin}: $.values: {values!r} must be an object")
    unknown = set(values) - set(_VALUE_KEYS)
    if unknown:
        raise HardwareError(
            f"{origin}: $.values: unknown key(s) {sorted(unknown)}; known: {', '.join(_VALUE_KEYS)}"
        )
    missing = [k for k in _VALUE_KEYS if k not in values and k not in _OPTIONAL]
    if missing:
        raise HardwareError(
            f"{origin}: $.values: missing {', '.join(missing)}; add each with a source"
        )
    parsed = {k: _value(origin, k, v) for k, v in values.items()}
    return Hardware(
        name=data["name"],
        description=data["description"],
        sources={k: values[k]["source"] for k in sorted(values)},
        **parsed,  # type: ignore[arg-type]
    )


def load_hardware(name_or_path: str | Path) -> Hardware:
    """The descriptor named ``h200``/``gh200`` (shipped) or stored at a path."""
    text = str(name_or_path)
    if text in available_hardware():
        origin = f"evaluation/data/hardware/{text}.json"
        raw = read_text(SHIPPED / f"{text}.json", error=HardwareError, kind="hardware descriptor")
    else:
        path = Path(text)
        if not path.is_file():
            raise HardwareError(
                f"{text}: no such hardware descriptor; use one of "
                f"{', '.join(available_hardware())} or a path to a descriptor JSON file"
            )
        origin, raw = str(path), read_text(path, error=HardwareError, kind="hardware descriptor")
    data = parse_json(raw, origin, error=HardwareError, kind="hardware descriptor")
    return parse_hardware(data, origin)
