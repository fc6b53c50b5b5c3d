"""Build kernel batches into shared libraries (``libcb_<hash>.so``) and the driver.

Skips what is built: a batch whose library and ptxas report exist is ``cached``; the driver
is rebuilt only when older than its sources. Needs nvcc (CUDA 13) and, for the static info
read back from a library, a loadable libcudart.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchspace.evaluation.cutlass.batch_index import (
    BuildResult,
    load_index,
    merge_index,
    record_result,
    write_index,
)
from benchspace.evaluation.cutlass.batch_source import emit_batch
from benchspace.evaluation.cutlass.batches import GLUE_VERSION, KernelBatch
from benchspace.evaluation.cutlass.nvcc import (
    DRIVER_FLAGS,
    NVCC_FLAGS,
    SOURCE_DIR,
    compile_command,
    cudart_path,
    cutlass_version,
    find_nvcc,
)
from benchspace.evaluation.cutlass.ptxas import parse_ptxas, usage_by_kernel
from benchspace.harness.errors import BenchspaceError
from benchspace.harness.execute import reaper
from benchspace.harness.files import read_text
from benchspace.harness.jsonio import write_text_atomic

DRIVER_NAME = "cutlass_bench"


_INFO_FIELDS = (
    "smem_bytes",
    "stages",
    "threads",
    "tile_m",
    "tile_n",
    "tile_k",
    "cluster_m",
    "cluster_n",
    "has_raster",
    "has_swizzle",
    "has_splits",
    "has_decomposition",
    "regs",
    "local_bytes",
)


class _CbInfo(ctypes.Structure):
    """``cb_info_t`` of benchmarks/cutlass/cb_abi.h."""

    _fields_ = [(name, ctypes.c_int) for name in _INFO_FIELDS]


def library_static_info(library: Path) -> dict[str, dict[str, int]]:
    """Per kernel: shared memory, stages, threads, tile, cluster and knobs, read from a built
    library through its C interface (no GPU needed; regs/local_bytes need one and are left out).
    """
    lib = ctypes.CDLL(str(library.resolve()), mode=os.RTLD_LOCAL)
    lib.cb_kernel_name.restype = ctypes.c_char_p
    info: dict[str, dict[str, int]] = {}
    for index in range(lib.cb_num_kernels()):
        out = _CbInfo()
        lib.cb_info(index, ctypes.byref(out))
        name = lib.cb_kernel_name(index).decode()
        info[name] = {f: int(getattr(out, f)) for f in _INFO_FIELDS[:-2]}
    return info


def build_one(
    batch: KernelBatch, build_dir: Path, operations: dict[str, Any], nvcc: str
) -> BuildResult:
    """Emit and compile one batch unless its library exists; the ptxas report is kept."""
    library = build_dir / batch.library
    report = build_dir / "src" / f"cb_{batch.batch_id}.ptxas.txt"
    if library.exists() and report.exists():
        return BuildResult(
            batch=batch,
            status="cached",
            seconds=0.0,
            kernels=kernel_records(batch, read_text(report, kind="ptxas report"), library),
        )
    source = emit_batch(batch, build_dir / "src", operations)
    partial = build_dir / f".{batch.library}.partial"
    started = time.monotonic()
    command = compile_command(nvcc, source, partial)
    # Registered with the reaper: a stop signal kills the compile's process group, and no new
    # compile starts once benchspace is stopping.
    try:
        proc = reaper.spawn(
            lambda: subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
            )
        )
    except reaper.Stopping:
        return BuildResult(batch=batch, status="stopped", seconds=0.0, kernels={})
    try:
        out_b, err_b = proc.communicate()
    finally:
        reaper.release(proc.pid)
    out, err = out_b.decode(errors="replace"), err_b.decode(errors="replace")
    seconds = time.monotonic() - started
    if proc.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        if proc.returncode is not None and proc.returncode < 0:  # killed: not a failed batch
            return BuildResult(batch=batch, status="stopped", seconds=seconds, kernels={})
        tail = (err or out)[-4000:]
        return BuildResult(batch=batch, status="failed", seconds=seconds, kernels={}, error=tail)
    write_text_atomic(report, err + out)
    os.replace(partial, library)
    return BuildResult(
        batch=batch,
        status="built",
        seconds=seconds,
        kernels=kernel_records(batch, err + out, library),
    )


def kernel_records(
    batch: KernelBatch, ptxas_text: str, library: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Index entries of a built batch: library, index, ptxas usage (None when not found) and,
    when the library loads here, its static info."""
    usage = usage_by_kernel(parse_ptxas(ptxas_text), batch.names)
    static: dict[str, dict[str, int]] = {}
    if library is not None:
        try:
            static = library_static_info(library)
        except (OSError, AttributeError):
            static = {}  # no loadable libcudart here: the driver's --list reports it later
    records: dict[str, dict[str, Any]] = {}
    for index, name in enumerate(batch.names):
        found = usage.get(name)
        records[name] = {
            **static.get(name, {}),
            "library": batch.library,
            "index": index,
            "registers": found.registers if found else None,
            "stack_frame": found.stack_frame if found else None,
            "spill_stores": found.spill_stores if found else None,
            "spill_loads": found.spill_loads if found else None,
            "smem_static": found.smem_static if found else None,
        }
    return records


def build_batches(
    batches: Sequence[KernelBatch],
    build_dir: Path,
    jobs: int = 1,
    progress: Callable[[BuildResult], None] | None = None,
) -> list[BuildResult]:
    """Build the batches (``jobs`` nvcc at a time), updating batches.json after each one."""
    from benchspace.evaluation.cutlass.catalogue import WIDE_LEVEL, operations_by_name

    build_dir.mkdir(parents=True, exist_ok=True)
    nvcc = find_nvcc()
    shutil.copy2(cudart_path(nvcc), build_dir / "libcudart.so.13")
    index = load_index(build_dir)
    index.update(
        cutlass_version=cutlass_version(), flags=list(NVCC_FLAGS), glue_version=GLUE_VERSION
    )
    names = [name for batch in batches for name in batch.names]
    operations = operations_by_name(names, level=("max", WIDE_LEVEL)) if names else {}
    results: list[BuildResult] = []
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [pool.submit(build_one, b, build_dir, operations, nvcc) for b in batches]
        for future in futures:
            result = future.result()
            if result.status == "stopped":
                continue  # killed by a stop signal: neither built nor failed
            record_result(index, result, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
            write_index(build_dir, index)
            results.append(result)
            if progress is not None:
                progress(result)
    finally:
        # On a stop signal the queued batches never start and the running compiles are
        # killed by the reaper; wait only for those threads to return.
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def merge_build_dir(build_dir: Path, other: Path) -> int:
    """Take another build directory's built batches (libraries, ptxas reports, index entries)
    into build_dir, e.g. batches compiled on another machine; how many batches it added."""
    if not (other / "batches.json").is_file():
        raise BenchspaceError(f"{other}: no batches.json; name a build directory to merge")
    index = load_index(build_dir)
    theirs = load_index(other)
    added = []
    for batch_id in merge_index(index, theirs, str(other / "batches.json")):
        entry = theirs["batches"][batch_id]
        library, report = other / entry["library"], other / "src" / f"cb_{batch_id}.ptxas.txt"
        if entry["status"] == "built" and not (library.is_file() and report.is_file()):
            index["batches"].pop(batch_id)  # listed but not there: it is built again here
            for name in entry["kernels"]:
                index["kernels"].pop(name, None)
            continue
        added.append(batch_id)
        if entry["status"] == "built":
            (build_dir / "src").mkdir(parents=True, exist_ok=True)
            shutil.copy2(library, build_dir / entry["library"])
            shutil.copy2(report, build_dir / "src" / report.name)
    build_dir.mkdir(parents=True, exist_ok=True)
    write_index(build_dir, index)
    return len(added)


def build_driver(build_dir: Path) -> Path:
    """Compile cutlass_bench into build_dir (skipped when newer than its sources)."""
    build_dir.mkdir(parents=True, exist_ok=True)
    nvcc = find_nvcc()
    shutil.copy2(cudart_path(nvcc), build_dir / "libcudart.so.13")
    exe = build_dir / DRIVER_NAME
    sources = [SOURCE_DIR / "cutlass_bench.cu", SOURCE_DIR / "cb_abi.h"]
    if exe.exists() and all(exe.stat().st_mtime >= s.stat().st_mtime for s in sources):
        return exe
    partial = build_dir / f".{DRIVER_NAME}.partial"
    cmd = [nvcc, *DRIVER_FLAGS[:3], f"-I{SOURCE_DIR}", str(sources[0]), "-o", str(partial)]
    proc = subprocess.run([*cmd, *DRIVER_FLAGS[3:]], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BenchspaceError(f"{sources[0]}: nvcc failed: {proc.stderr.strip()[-2000:]}")
    os.replace(partial, exe)
    return exe
