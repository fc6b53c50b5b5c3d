"""The C++ translation unit of a kernel batch, rendered from ``benchmarks/cutlass/batch.cu.j2``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from benchspace.evaluation.cutlass.batches import KernelBatch
from benchspace.evaluation.cutlass.nvcc import SOURCE_DIR, cutlass_version
from benchspace.harness.errors import UsageError
from benchspace.harness.jsonio import write_text_atomic


def render_batch(batch: KernelBatch, operations: dict[str, Any]) -> str:
    """The C++ translation unit of a batch: the emitted kernels and their function table."""
    from cutlass_library.gemm_operation import EmitGemmUniversal3xInstance

    emitter = EmitGemmUniversal3xInstance()
    kernels = []
    for name in batch.names:
        if not name.isidentifier() or not name.isascii():
            raise UsageError(f"kernel name {name!r} is not a C++ identifier; fix the kernel list")
        kernels.append({"name": name, "code": emitter.emit(operations[name]).strip()})
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(SOURCE_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env.get_template("batch.cu.j2").render(
        batch_id=batch.batch_id,
        kernels=kernels,
        includes=list(emitter.includes),
        cutlass_version=cutlass_version(),
    )


def emit_batch(batch: KernelBatch, out_dir: Path, operations: dict[str, Any]) -> Path:
    """Write the batch's translation unit under out_dir (atomically) and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / batch.source
    write_text_atomic(path, render_batch(batch, operations))
    return path
