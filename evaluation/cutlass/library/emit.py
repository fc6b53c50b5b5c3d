"""The CMake project of a header's GEMM library: its sources, rendered, and their writing.

``render_library`` computes every file's text (no IO but reading the templates and the
kernel glue): the header's CUTLASS kernels emitted by cutlass_library's
``EmitGemmUniversal3xInstance`` as ``cutlass build`` emits them (``per_tu`` kernels per
``src/kernels_<i>.cu`` so that the build parallelises), wrapped by benchmarks/cutlass's
``cb_kernel.hpp`` (the driver's per-kernel glue, copied beside them with ``cb_abi.h``); the
dispatch ``src/dispatch.cu`` (``benchspace::gemm::run`` over the header's chooser); the public
``include/benchspace_gemm.h``; ``tools/verify_and_time.cu``; ``tools/cb_shim.cu`` (``run`` as
the driver's one-kernel library, so the driver times it in its own rounds); ``CMakeLists.txt``;
a copy of the header as ``src/gemm_kernels.hh``; and ``library.json`` (what it was made from).
``write_library`` writes them and removes kernel sources a previous run left that this one
does not list.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from benchspace.evaluation.cutlass.library.header_read import LibraryHeader
from benchspace.evaluation.cutlass.nvcc import NVCC_FLAGS, SOURCE_DIR
from benchspace.harness import __version__
from benchspace.harness.errors import UsageError
from benchspace.harness.files import read_text, write_error, write_text_atomic

TEMPLATES = Path(__file__).resolve().parent / "templates"
GLUE = ("cb_kernel.hpp", "cb_abi.h")
"""The driver's per-kernel glue, copied into src/ unchanged."""
HEURISTIC_COUNT = 8
HEURISTIC_WORKSPACE_MIB = 32
"""The driver's cuBLASLt heuristic call: its top 8, a 32 MiB workspace (--cublas-workspace-mib)."""
MAX_REL_ERR = 1e-2
"""The driver's bound on the relative Frobenius error (kMaxRelErr)."""
CUDA_FLAGS = tuple(
    f for f in NVCC_FLAGS if not f.startswith(("-gencode", "-Xptxas", "-Xcompiler", "-std"))
)
"""The batch build's nvcc flags less what CMake sets itself (architecture, PIC, standard)."""
DEFAULT_PER_TU = 4


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelSource:
    """One ``src/kernels_<index>.cu``: the CUTLASS kernels of enum codes first .. first+n-1."""

    index: int
    first: int
    names: tuple[str, ...]

    @property
    def source(self) -> str:
        return f"kernels_{self.index}.cu"


@dataclass(frozen=True, kw_only=True, slots=True)
class LibraryProject:
    """Every file of the project (path relative to its folder -> text) and its summary."""

    files: dict[str, str]
    header: LibraryHeader
    sources: tuple[KernelSource, ...]
    cutlass_dir: str
    cutlass_version: str


def split_sources(names: tuple[str, ...], per_tu: int) -> tuple[KernelSource, ...]:
    """The kernels in enum order, ``per_tu`` to a translation unit."""
    if per_tu < 1:
        raise UsageError(f"--per-tu {per_tu}: must be at least 1")
    return tuple(
        KernelSource(index=i, first=first, names=names[first : first + per_tu])
        for i, first in enumerate(range(0, len(names), per_tu))
    )


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_library(
    header: LibraryHeader,
    header_text: str,
    operations: Mapping[str, Any],
    *,
    cutlass_dir: str,
    cutlass_version: str,
    cublaslt_root: str = "",
    per_tu: int = DEFAULT_PER_TU,
) -> LibraryProject:
    """The project's files for a parsed header; ``operations`` maps each of its CUTLASS kernel
    names to its cutlass_library ``GemmOperation``."""
    from cutlass_library.gemm_operation import EmitGemmUniversal3xInstance

    for option, path in (("--cutlass-dir", cutlass_dir), ("--cublaslt-root", cublaslt_root)):
        if any(c in path for c in '"\\\n$;'):
            raise UsageError(
                f"{option} {path!r}: a CMake path may not hold quotes, backslashes, '$' or ';'"
            )
    sources = split_sources(header.cutlass, per_tu)
    emitter = EmitGemmUniversal3xInstance()
    common: dict[str, Any] = {
        "version": __version__,
        "header_name": Path(header.source).name,
        "header_sha": hashlib.sha256(header_text.encode()).hexdigest()[:12],
        "namespace": header.namespace,
        "num_cutlass": len(header.cutlass),
        "num_pinned": len(header.pinned),
        "kernel_count": header.count,
        "has_pinned": header.has_pinned_block,
        "batches": sources,
        "heuristic_count": HEURISTIC_COUNT,
        "heuristic_workspace_mib": HEURISTIC_WORKSPACE_MIB,
        "max_rel_err": MAX_REL_ERR,
        "cutlass_dir": cutlass_dir,
        "cutlass_version": cutlass_version,
        "cublaslt_root": cublaslt_root,
        "cuda_flags": CUDA_FLAGS,
    }
    env = _environment()
    files: dict[str, str] = {}
    for batch in sources:
        kernels = [{"name": n, "code": emitter.emit(operations[n]).strip()} for n in batch.names]
        files[f"src/{batch.source}"] = env.get_template("kernels.cu.j2").render(
            **common,
            index=batch.index,
            first=batch.first,
            names=batch.names,
            kernels=kernels,
            includes=list(emitter.includes),
        )
    for glue in GLUE:
        files[f"src/{glue}"] = read_text(SOURCE_DIR / glue, kind="CUTLASS glue source")
    files["src/gemm_kernels.hh"] = header_text
    files["src/entry.h"] = env.get_template("entry.h.j2").render(**common)
    files["src/dispatch.cu"] = env.get_template("dispatch.cu.j2").render(**common)
    files["include/benchspace_gemm.h"] = env.get_template("benchspace_gemm.h.j2").render(**common)
    files["tools/verify_and_time.cu"] = env.get_template("verify_and_time.cu.j2").render(**common)
    files["tools/cb_shim.cu"] = env.get_template("cb_shim.cu.j2").render(**common)
    files["CMakeLists.txt"] = env.get_template("CMakeLists.txt.j2").render(**common)
    manifest = {
        "generator": f"benchspace {__version__} cutlass library",
        "header": header.source,
        "header_sha256": hashlib.sha256(header_text.encode()).hexdigest(),
        "namespace": header.namespace,
        "cutlass_version": cutlass_version,
        "cutlass_dir": cutlass_dir,
        "cublaslt_root": cublaslt_root,
        "cutlass_kernels": list(header.cutlass),
        "pinned": [p.key for p in header.pinned],
        "cublaslt_version": header.cublaslt_version,
        "sources": {b.source: list(b.names) for b in sources},
    }
    files["library.json"] = json.dumps(manifest, indent=2) + "\n"
    return LibraryProject(
        files=files,
        header=header,
        sources=sources,
        cutlass_dir=cutlass_dir,
        cutlass_version=cutlass_version,
    )


def default_cublaslt_root() -> str:
    """The nvidia-cublas wheel's folder holding include/cublasLt.h (``nvidia/cu13`` for CUDA
    13, ``nvidia/cublas`` before), where that wheel is installed; empty otherwise (CMake then
    looks in the CUDA toolkit)."""
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return ""
    for base in map(Path, getattr(nvidia, "__path__", [])):
        for header in sorted(base.glob("*/include/cublasLt.h")):
            return str(header.parent.parent)
    return ""


def write_library(project: LibraryProject, out_dir: Path) -> list[Path]:
    """Write every file under out_dir (atomically each); remove stale ``src/kernels_*.cu``."""
    written = []
    for rel, text in project.files.items():
        path = out_dir / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_error(path.parent, exc) from None
        write_text_atomic(path, text)
        written.append(path)
    keep = {f"kernels_{b.index}.cu" for b in project.sources}
    for stale in sorted((out_dir / "src").glob("kernels_*.cu")):
        if stale.name not in keep:
            stale.unlink()
    return written
