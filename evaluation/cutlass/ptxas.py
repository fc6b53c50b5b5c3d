"""Per-kernel resource usage read from the ``nvcc -Xptxas=-v`` report of a batch compile."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_ENTRY = re.compile(r"ptxas info\s*: Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"ptxas info\s*: Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas info\s*: Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


@dataclass(frozen=True, kw_only=True, slots=True)
class PtxasUsage:
    """What ptxas reported for one entry function (a ``device_kernel<...>`` instantiation)."""

    registers: int
    stack_frame: int
    spill_stores: int
    spill_loads: int
    smem_static: int
    """Static shared memory only: CUTLASS kernels take their storage dynamically."""

    @property
    def spills(self) -> bool:
        """True when ptxas moved registers to local memory."""
        return self.spill_stores > 0 or self.spill_loads > 0


def parse_ptxas(text: str) -> dict[str, PtxasUsage]:
    """Usage per mangled entry function name, from the text ptxas printed (stderr of nvcc)."""
    frames: dict[str, tuple[int, int, int]] = {}
    used: dict[str, tuple[int, int]] = {}
    order: list[str] = []
    current: str | None = None
    for line in text.splitlines():
        if (match := _ENTRY.search(line)) or (match := _PROPERTIES.search(line)):
            current = match.group(1)
            if current not in order:
                order.append(current)
        elif current is not None and (match := _FRAME.search(line)):
            frames[current] = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        elif current is not None and (match := _USED.search(line)):
            smem = _SMEM.search(line)
            used[current] = (int(match.group(1)), int(smem.group(1)) if smem else 0)
    usage = {}
    for entry in order:
        if entry not in used:
            continue  # a device function's properties, not a kernel's
        stack, stores, loads = frames.get(entry, (0, 0, 0))
        registers, smem_static = used[entry]
        usage[entry] = PtxasUsage(
            registers=registers,
            stack_frame=stack,
            spill_stores=stores,
            spill_loads=loads,
            smem_static=smem_static,
        )
    return usage


def usage_by_kernel(usage: dict[str, PtxasUsage], names: Iterable[str]) -> dict[str, PtxasUsage]:
    """Attribute mangled entries to kernel names (the Itanium ABI writes ``<len><name>``)."""
    found: dict[str, PtxasUsage] = {}
    for name in names:
        token = f"{len(name)}{name}"
        hits = [entry for entry in usage if token in entry]
        if len(hits) == 1:
            found[name] = usage[hits[0]]
    return found
