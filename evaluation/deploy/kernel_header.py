"""The deployment header ``include/benchspace/gemm_kernels.hh``: shape buckets -> chosen kernel.

Buckets: one set of inclusive upper edges applies to each of M, N and K, so a problem falls
in the cell ``[bucket(M)][bucket(N)][bucket(K)]`` of a cube of ``len(buckets)^3`` cells. The
default edges are powers of four, 128, 512, 2048, 8192 (log2 ranges of width 2, about the
granularity at which the study's preferred tile and schedule change) with an open top bucket.
A space file's ``header`` section can declare other edges (``buckets``), the namespace, the
include guard and the override variable (``env_prefix`` + ``GEMM_KERNEL``).

Each cell gets the selector's argmax at the cell's representative shape: per dimension the
geometric centre of the bucket's range (the lowest bucket starts at 32, the open top bucket
ends at twice its lower edge), rounded to a multiple of 32. Nothing is measured here; the
header says which selector chose it.

Rendering goes through the generators' strict Jinja environment and identifier checks
(:mod:`generators.render`, :mod:`harness.cxx_types`); the template only loops and substitutes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from evaluation.cutlass.driver_csv import RASTERS
from evaluation.deploy.select import rank_shapes
from evaluation.selector.model_file import DeployedSelector
from generators.render import comment_text, environment
from harness import __version__
from harness.cxx_types import check_env_name, check_identifier, check_namespace
from harness.errors import HeaderError
from harness.spaces.model import Space

TEMPLATE = "gemm_kernels.hh.j2"
DEFAULT_PATH = "include/benchspace/gemm_kernels.hh"
DEFAULT_BUCKETS: tuple[tuple[str, int | None], ...] = (
    ("TINY", 128),
    ("SMALL", 512),
    ("MEDIUM", 2048),
    ("LARGE", 8192),
    ("HUGE", None),
)
LOWEST = 32
"""Smallest dimension of the anchor grid; the lowest bucket's range starts here."""
ENV_SUFFIX = "GEMM_KERNEL"
_BUCKET_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmHeaderSpec:
    """Where the header goes and how it is bucketed and overridden."""

    path: str = DEFAULT_PATH
    namespace: str = "benchspace::gemm"
    env_var: str = "BENCHSPACE_" + ENV_SUFFIX
    buckets: tuple[tuple[str, int | None], ...] = DEFAULT_BUCKETS
    guard: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmCell:
    """One cell of the table: its bucket names, the shape it was decided at, the choice."""

    buckets: tuple[str, str, str]
    shape: tuple[int, int, int]
    kernel: str
    raster: str
    swizzle: int


@dataclass(frozen=True, kw_only=True, slots=True)
class GemmTable:
    """Every cell's choice, in M-major order, and the kernels the table names."""

    spec: GemmHeaderSpec
    cells: tuple[GemmCell, ...]
    kernels: tuple[str, ...]
    """Sorted; the enum's order. Includes runners-up offered for the override."""
    origin: str
    """What chose the table (selector name, file hash, training data), for the banner."""


def spec_from_space(space: Space) -> GemmHeaderSpec:
    """The header spec declared by a space file's ``header`` section (defaults otherwise)."""
    header = space.header
    if header is None:
        return GemmHeaderSpec()
    return GemmHeaderSpec(
        path=header.path,
        namespace=header.namespace,
        env_var=header.env_prefix + ENV_SUFFIX,
        buckets=tuple(header.buckets),
        guard=header.guard,
    )


def _snap(x: float) -> int:
    return max(LOWEST, round(x / LOWEST) * LOWEST)


def representatives(buckets: Sequence[tuple[str, int | None]]) -> list[int]:
    """The representative size of each bucket: the geometric centre of its range."""
    out, low = [], LOWEST
    for _, edge in buckets:
        high = edge if edge is not None else 2 * max(low, LOWEST)
        out.append(_snap(math.sqrt(max(low, LOWEST) * max(high, LOWEST))))
        low = (edge or high) + 1
    return out


def _check_buckets(buckets: Sequence[tuple[str, int | None]]) -> None:
    edges = [e for _, e in buckets]
    if not buckets or edges[-1] is not None or any(e is None for e in edges[:-1]):
        raise HeaderError(
            f"buckets {list(buckets)!r}: every bucket but the last needs an upper edge, the "
            "last none"
        )
    finite = [int(e) for e in edges[:-1] if e is not None]
    if finite != sorted(set(finite)) or (finite and finite[0] < 1):
        raise HeaderError(f"bucket edges {finite} must be positive and strictly increasing")


def choose_table(
    selector: DeployedSelector,
    spec: GemmHeaderSpec | None = None,
    layout: str | None = None,
    runners_up: int = 0,
) -> GemmTable:
    """Rank the candidates at every cell's representative shape and keep each argmax.

    ``runners_up`` more kernels per cell (the next best) join the enum, so that an A/B test
    through the override can name them, without being chosen for any cell.
    """
    spec = spec or GemmHeaderSpec()
    _check_buckets(spec.buckets)
    sizes = representatives(spec.buckets)
    names = [name for name, _ in spec.buckets]
    index = [
        (i, j, k) for i in range(len(sizes)) for j in range(len(sizes)) for k in range(len(sizes))
    ]
    shapes = [(sizes[i], sizes[j], sizes[k]) for i, j, k in index]
    ranked = rank_shapes(selector, shapes, layout)
    cells: list[GemmCell] = []
    kernels: set[str] = set()
    for _, group in ranked.groupby("shape", sort=True):
        best = group.iloc[0]
        shape_index = int(best["shape"])
        i, j, k = index[shape_index]
        cells.append(
            GemmCell(
                buckets=(names[i], names[j], names[k]),
                shape=shapes[shape_index],
                kernel=str(best["kernel"]),
                raster=str(best["raster"]),
                swizzle=int(best["swizzle"]),
            )
        )
        kernels.update(str(x) for x in group["kernel"].drop_duplicates().iloc[: 1 + runners_up])
    trained = selector.trained_on
    origin = (
        f"selector {selector.name!r} ({Path(selector.source).name or 'in memory'} "
        f"{selector.sha256[:12] or '-'}), trained on {trained.get('dataset', '?')} "
        f"({trained.get('gpu', '?')}, {trained.get('date', '?')})"
    )
    return GemmTable(spec=spec, cells=tuple(cells), kernels=tuple(sorted(kernels)), origin=origin)


def _wrap(text: str) -> list[str]:
    import textwrap

    return [f"// {line}" for line in textwrap.wrap(text, width=85, break_long_words=False)]


def header_view(table: GemmTable) -> dict[str, Any]:
    """The checked values the template substitutes."""
    spec = table.spec
    try:
        namespace = check_namespace(spec.namespace)
        env = check_env_name(spec.env_var)
        guard = check_identifier(spec.guard, "include guard") if spec.guard else None
        for kernel in table.kernels:
            check_identifier(kernel, "kernel name")
        for cell in table.cells:
            if cell.raster not in RASTERS:
                raise ValueError(f"raster {cell.raster!r} is not one of {', '.join(RASTERS)}")
    except ValueError as exc:
        raise HeaderError(f"{spec.path}: cannot generate: {exc}") from None
    _check_buckets(spec.buckets)
    for name, _ in spec.buckets:
        # Bucket names are written into comments: a newline would let text out of one.
        if not _BUCKET_NAME.fullmatch(name):
            raise HeaderError(
                f"{spec.path}: cannot generate: bucket name {name!r} is not upper-case letters, "
                "digits and '_'; rename it"
            )
    code = {k: i for i, k in enumerate(table.kernels)}
    names = [n for n, _ in spec.buckets]
    size = len(names)
    if len(table.cells) != size**3:
        raise HeaderError(
            f"{spec.path}: {len(table.cells)} cells for {size} buckets; need {size**3}"
        )
    planes = []
    for i, m_name in enumerate(names):
        rows = []
        for j, n_name in enumerate(names):
            cells = table.cells[(i * size + j) * size : (i * size + j + 1) * size]
            rows.append(
                {
                    "name": n_name,
                    "cells": [
                        {
                            "kernel": c.kernel,
                            "raster": c.raster,
                            "swizzle": c.swizzle,
                            "name": c.buckets[2],
                            "shape": "x".join(map(str, c.shape)),
                        }
                        for c in cells
                    ],
                }
            )
        planes.append({"name": m_name, "rows": rows})
    bucket_text = ", ".join(
        f"{name} (<= {edge})" if edge is not None else f"{name} (above)"
        for name, edge in spec.buckets
    )
    banner = _wrap(
        " ".join(
            comment_text(
                f"Generated by benchspace {__version__} from {table.origin}; do not edit by hand, "
                "regenerate with `benchspace cutlass header`.",
                "the header origin",
            )
        )
    )
    overview = (
        "Problems are bucketed by M, N and K separately with the same edges; each cell holds the "
        "selector's argmax among the compiled candidates at the cell's representative shape "
        "(geometric centre of each range). Nothing in this table was measured at that shape. "
        f"Override: {env}=<kernel name> selects that kernel of this table for every shape; "
        "anything else keeps the compiled choice."
    )
    return {
        "guard": guard,
        "banner": banner,
        "overview": _wrap(overview),
        "namespace": namespace,
        "env": env,
        "kernels": [{"name": k, "code": code[k]} for k in table.kernels],
        "buckets": [
            {"name": name, "edge": edge, "code": i} for i, (name, edge) in enumerate(spec.buckets)
        ],
        "bucket_text": bucket_text,
        "table": planes,
    }


def render_gemm_header(table: GemmTable) -> str:
    """The header's text (deterministic for a table)."""
    template = environment().get_template(TEMPLATE)
    try:
        return template.render(**header_view(table))
    except jinja2.UndefinedError as exc:  # a template/view mismatch: a bug, not user input
        raise RuntimeError(f"{TEMPLATE}: {exc}") from exc
