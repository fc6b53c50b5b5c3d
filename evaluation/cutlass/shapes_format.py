"""What a written shape-set file holds, as the lines ``benchspace cutlass shapes`` prints."""

from __future__ import annotations

from collections import Counter

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.shapes import ShapeSets


def render_shape_sets(path: str, sets: ShapeSets, hw: Hardware) -> list[str]:
    """The file and its shape counts, then per part how many shapes of each class it holds."""
    lines = [
        f"{path}: {len(sets.train)} training and {len(sets.eval)} evaluation shapes for "
        f"{hw.name} (ridge {hw.ridge_flops_per_byte:.1f} flop/byte, LLC {hw.llc_bytes} bytes)"
    ]
    for part, shapes in (("train", sets.train), ("eval", sets.eval)):
        counts = Counter(c for s in shapes for c in s.classes)
        lines.append(f"{part}: " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))
    return lines
