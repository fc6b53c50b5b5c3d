"""The shape-set file (``benchspace-cutlass-shapes`` version 1): JSON form, reader and writer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.shapes import Shape, ShapeError, ShapeSets
from benchspace.harness.errors import json_path
from benchspace.harness.files import read_json
from benchspace.harness.jsonio import write_text_atomic

FORMAT = "benchspace-cutlass-shapes"
VERSION = 1
SHIPPED = DATA_DIR / "shapes"
"""The shape sets the study measured (``h200.json``)."""


def shape_cases(shapes: Sequence[Shape]) -> list[dict[str, Any]]:
    """Space-file cases (``{"fixed": {"M": .., "N": .., "K": ..}}``) for the shapes."""
    return [{"fixed": {"M": s.M, "N": s.N, "K": s.K}} for s in shapes]


def shape_sets_to_json(sets: ShapeSets) -> dict[str, Any]:
    """The JSON document of a shape-set file."""

    def entry(s: Shape) -> dict[str, Any]:
        return {"M": s.M, "N": s.N, "K": s.K, "classes": list(s.classes)}

    return {
        "format": FORMAT,
        "version": VERSION,
        "gpu": sets.gpu,
        "seed": sets.seed,
        "ridge_flops_per_byte": sets.ridge_flops_per_byte,
        "llc_bytes": sets.llc_bytes,
        "max_volume": sets.max_volume,
        "train": [entry(s) for s in sets.train],
        "eval": [entry(s) for s in sets.eval],
    }


def _shape(origin: str, part: str, i: int, item: Any) -> Shape:
    where = f"{origin}: {json_path(part, i)}"
    if not isinstance(item, dict) or set(item) != {"M", "N", "K", "classes"}:
        raise ShapeError(f"{where}: {item!r} must have exactly M, N, K and classes")
    for key in ("M", "N", "K"):
        value = item[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ShapeError(f"{where}.{key}: {value!r} must be a positive integer")
    classes = item["classes"]
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise ShapeError(f"{where}.classes: {classes!r} must be a list of strings")
    return Shape(M=item["M"], N=item["N"], K=item["K"], classes=tuple(classes))


def parse_shape_sets(data: Any, origin: str) -> ShapeSets:
    """A :class:`ShapeSets` from a decoded shape-set file."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ShapeError(f"{origin}: $.format: expected {FORMAT!r}; is this a shape-set file?")
    if data.get("version") != VERSION:
        raise ShapeError(
            f"{origin}: $.version: {data.get('version')!r} is not supported; "
            f"this version reads {VERSION}"
        )
    keys = {
        "format",
        "version",
        "gpu",
        "seed",
        "ridge_flops_per_byte",
        "llc_bytes",
        "max_volume",
        "train",
        "eval",
    }
    if set(data) != keys:
        raise ShapeError(f"{origin}: $: keys {sorted(set(data) ^ keys)} are unknown or missing")
    parts = {}
    for part in ("train", "eval"):
        if not isinstance(data[part], list):
            raise ShapeError(f"{origin}: {json_path(part)}: must be a list of shapes")
        parts[part] = tuple(_shape(origin, part, i, item) for i, item in enumerate(data[part]))
    return ShapeSets(
        gpu=str(data["gpu"]),
        seed=int(data["seed"]),
        ridge_flops_per_byte=float(data["ridge_flops_per_byte"]),
        llc_bytes=int(data["llc_bytes"]),
        max_volume=int(data["max_volume"]),
        train=parts["train"],
        eval=parts["eval"],
    )


def load_shape_sets(path: str | Path) -> ShapeSets:
    """Read a shape-set file."""
    data = read_json(path, error=ShapeError, kind="shape-set file")
    return parse_shape_sets(data, str(path))


def write_shape_sets(path: str | Path, sets: ShapeSets) -> None:
    """Write a shape-set file deterministically (sorted keys, indent 2) and atomically."""
    text = json.dumps(shape_sets_to_json(sets), indent=2, sort_keys=True) + "\n"
    write_text_atomic(path, text)


Classes = dict[tuple[int, int, int], tuple[str, ...]]


def load_shape_classes(path: str | Path) -> Classes:
    """``(M, N, K) -> classes`` of every shape in a shape-set file's ``train`` and ``eval``."""
    data = read_json(path, error=ShapeError, kind="shape-set file")
    parts = [data.get(part) for part in ("train", "eval")] if isinstance(data, dict) else []
    if not parts or not all(isinstance(p, list | None) for p in parts):
        raise ShapeError(f"{path}: $.train/$.eval: expected lists of shapes; is this a shape-set "
                         "file (benchspace cutlass shapes --out)?")  # fmt: skip
    out: Classes = {}
    for part, shapes in zip(("train", "eval"), parts, strict=True):
        for i, s in enumerate(shapes or []):
            try:
                out[(int(s["M"]), int(s["N"]), int(s["K"]))] = tuple(map(str, s["classes"]))
            except (TypeError, KeyError, ValueError):
                raise ShapeError(
                    f"{path}: {json_path(part, i)}: {s!r} must have M, N, K and classes"
                ) from None
    return out
