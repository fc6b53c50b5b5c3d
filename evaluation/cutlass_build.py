"""Emit catalogue kernels as batched shared libraries (``libcb_<hash>.so``) and build the driver."""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from evaluation.cutlass_ptxas import parse_ptxas, usage_by_kernel
from harness.errors import BenchspaceError, UsageError

SOURCE_DIR = Path(__file__).resolve().parent.parent / "benchmarks" / "cutlass"
"""The hand-written C++: driver, per-kernel glue, ABI header and the batch template."""

NVCC_FLAGS: tuple[str, ...] = (
    "-std=c++17",
    "-O3",
    "-gencode=arch=compute_90a,code=sm_90a",
    "--expt-relaxed-constexpr",
    "-DNDEBUG",
    "-Xcompiler=-fPIC",
    "-Xptxas=-v",
)
# Libraries find libcudart.so.13 (copied beside them) without LD_LIBRARY_PATH.
LINK_FLAGS: tuple[str, ...] = ("-shared", "-cudart", "shared", "-Xlinker", "-rpath=$ORIGIN")
DRIVER_FLAGS: tuple[str, ...] = (
    "-std=c++17",
    "-O2",
    "-gencode=arch=compute_90a,code=sm_90a",
    "-cudart",
    "shared",
    "-Xlinker",
    "-rpath=$ORIGIN",
    "-ldl",
    "-lpthread",
)
GLUE_VERSION = 2
"""Bump when cb_kernel.hpp or batch.cu.j2 change what a library does: every batch rebuilds."""

INDEX_FORMAT = "benchspace-cutlass-batches"
INDEX_VERSION = 1
INDEX_NAME = "batches.json"
DRIVER_NAME = "cutlass_bench"


@dataclass(frozen=True, kw_only=True, slots=True)
class Batch:
    """Kernels compiled together into one translation unit and one shared library."""

    batch_id: str
    """First 12 hex digits of the sha256 of the sorted names, flags and glue version."""
    names: tuple[str, ...]
    """Sorted: a kernel's index in the library is its position here."""

    @property
    def library(self) -> str:
        """File name of the shared library."""
        return f"libcb_{self.batch_id}.so"

    @property
    def source(self) -> str:
        """File name of the generated translation unit."""
        return f"cb_{self.batch_id}.cu"


@dataclass(frozen=True, kw_only=True, slots=True)
class BuildResult:
    """How one batch's build ended."""

    batch: Batch
    status: str
    """``built``, ``cached`` (library already there) or ``failed``."""
    seconds: float
    kernels: dict[str, dict[str, Any]]
    """Per kernel: library, index, ptxas usage and static info (empty when failed)."""
    error: str = ""


def batch_id(names: Iterable[str], flags: Sequence[str] = NVCC_FLAGS) -> str:
    """The stable id of a set of kernels built with these flags."""
    key = json.dumps(
        {"names": sorted(names), "flags": list(flags), "glue": GLUE_VERSION}, sort_keys=True
    )
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def plan_batches(names: Sequence[str], per_tu: int = 8) -> list[Batch]:
    """Chunk names (duplicates dropped, order kept: earlier names build first) into batches."""
    if per_tu < 1:
        raise UsageError(f"--per-tu {per_tu} is not valid; use a positive count such as 8")
    unique = list(dict.fromkeys(names))
    chunks = [unique[i : i + per_tu] for i in range(0, len(unique), per_tu)]
    return [Batch(batch_id=batch_id(chunk), names=tuple(sorted(chunk))) for chunk in chunks]


def render_batch(batch: Batch, operations: dict[str, Any]) -> str:
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


def emit_batch(batch: Batch, out_dir: Path, operations: dict[str, Any]) -> Path:
    """Write the batch's translation unit under out_dir (atomically) and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / batch.source
    _write_atomic(path, render_batch(batch, operations))
    return path


def cutlass_version() -> str:
    """The CUTLASS version of the headers in the installed ``nvidia-cutlass`` wheel."""
    import re

    text = (cutlass_include_dirs()[0] / "cutlass" / "version.h").read_text()
    parts = [
        re.search(rf"#define CUTLASS_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "PATCH")
    ]
    return ".".join(m.group(1) if m else "?" for m in parts)


def cutlass_include_dirs() -> list[Path]:
    """CUTLASS/CuTe headers and the CUTLASS utilities, from the wheel's ``source_path``."""
    import cutlass_library

    root = Path(cutlass_library.source_path)
    return [root / "include", root / "tools" / "util" / "include"]


def find_nvcc() -> str:
    """The nvcc to use: ``$NVCC`` or the first on PATH."""
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nvcc:
        raise BenchspaceError("nvcc not found on PATH; install CUDA 13 or set NVCC=/path/to/nvcc")
    return nvcc


def cudart_path(nvcc: str) -> Path:
    """libcudart.so.13 of the toolkit behind nvcc (found through ``nvcc -dryrun``)."""
    probe = subprocess.run(
        [nvcc, "-dryrun", "-c", "cb_probe.cu"], capture_output=True, text=True, check=False
    )
    roots = [
        Path(line.split("=", 1)[1].strip()).parent
        for line in (probe.stdout + probe.stderr).splitlines()
        if line.startswith("#$ _HERE_=")
    ]
    roots.append(Path(nvcc).resolve().parent.parent)
    for root in roots:
        for sub in ("lib", "lib64", "targets/x86_64-linux/lib"):
            candidate = root / sub / "libcudart.so.13"
            if candidate.exists():
                return candidate
    raise BenchspaceError(
        f"libcudart.so.13 not found beside {nvcc}; set NVCC to a CUDA 13 toolkit's nvcc"
    )


def compile_command(nvcc: str, source: Path, output: Path, link: bool = True) -> list[str]:
    """The nvcc command line that builds one batch into a shared library (or an object)."""
    includes = [f"-I{d}" for d in [SOURCE_DIR, *cutlass_include_dirs()]]
    mode = list(LINK_FLAGS) if link else ["-c"]
    return [nvcc, *NVCC_FLAGS, *includes, *mode, str(source), "-o", str(output)]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


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


def build_one(batch: Batch, build_dir: Path, operations: dict[str, Any], nvcc: str) -> BuildResult:
    """Emit and compile one batch unless its library exists; the ptxas report is kept."""
    library = build_dir / batch.library
    report = build_dir / "src" / f"cb_{batch.batch_id}.ptxas.txt"
    if library.exists() and report.exists():
        return BuildResult(
            batch=batch,
            status="cached",
            seconds=0.0,
            kernels=kernel_records(batch, report.read_text(), library),
        )
    source = emit_batch(batch, build_dir / "src", operations)
    partial = build_dir / f".{batch.library}.partial"
    started = time.monotonic()
    proc = subprocess.run(
        compile_command(nvcc, source, partial), capture_output=True, text=True, check=False
    )
    seconds = time.monotonic() - started
    if proc.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        tail = (proc.stderr or proc.stdout)[-4000:]
        return BuildResult(batch=batch, status="failed", seconds=seconds, kernels={}, error=tail)
    _write_atomic(report, proc.stderr + proc.stdout)
    os.replace(partial, library)
    return BuildResult(
        batch=batch,
        status="built",
        seconds=seconds,
        kernels=kernel_records(batch, proc.stderr + proc.stdout, library),
    )


def kernel_records(
    batch: Batch, ptxas_text: str, library: Path | None = None
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


def load_index(build_dir: Path) -> dict[str, Any]:
    """The build directory's batches.json, or an empty index when there is none."""
    path = build_dir / INDEX_NAME
    if not path.exists():
        return {"format": INDEX_FORMAT, "version": INDEX_VERSION, "batches": {}, "kernels": {}}
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise BenchspaceError(f"{path}: not JSON ({exc}); delete it to rebuild the index") from exc
    if data.get("format") != INDEX_FORMAT or data.get("version") != INDEX_VERSION:
        raise BenchspaceError(
            f"{path}: $.format/$.version is {data.get('format')!r}/{data.get('version')!r}, "
            f"expected {INDEX_FORMAT!r}/{INDEX_VERSION}; delete it to rebuild the index"
        )
    return data


def record_result(index: dict[str, Any], result: BuildResult, when: str) -> None:
    """Fold one build result into the index (in place)."""
    entry: dict[str, Any] = {
        "library": result.batch.library,
        "kernels": list(result.batch.names),
        "status": "failed" if result.status == "failed" else "built",
        "seconds": round(result.seconds, 1),
    }
    if result.status == "failed":
        entry["error"] = result.error
    old = index["batches"].get(result.batch.batch_id, {})
    entry["finished_at"] = old.get("finished_at", when) if result.status == "cached" else when
    if result.status == "cached" and "seconds" in old:
        entry["seconds"] = old["seconds"]
    index["batches"][result.batch.batch_id] = entry
    for name, record in result.kernels.items():
        index["kernels"][name] = record


def write_index(build_dir: Path, index: dict[str, Any]) -> None:
    """Write batches.json deterministically and atomically."""
    _write_atomic(build_dir / INDEX_NAME, json.dumps(index, indent=2, sort_keys=True) + "\n")


def build_batches(
    batches: Sequence[Batch],
    build_dir: Path,
    jobs: int = 1,
    progress: Callable[[BuildResult], None] | None = None,
) -> list[BuildResult]:
    """Build the batches (``jobs`` nvcc at a time), updating batches.json after each one."""
    from evaluation.catalogue import operations_by_name

    build_dir.mkdir(parents=True, exist_ok=True)
    nvcc = find_nvcc()
    shutil.copy2(cudart_path(nvcc), build_dir / "libcudart.so.13")
    index = load_index(build_dir)
    index.update(
        cutlass_version=cutlass_version(), flags=list(NVCC_FLAGS), glue_version=GLUE_VERSION
    )
    names = [name for batch in batches for name in batch.names]
    operations = operations_by_name(names, level="max") if names else {}
    results: list[BuildResult] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(build_one, b, build_dir, operations, nvcc) for b in batches]
        for future in futures:
            result = future.result()
            record_result(index, result, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
            write_index(build_dir, index)
            results.append(result)
            if progress is not None:
                progress(result)
    return results


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


def read_kernel_list(path: Path) -> list[str]:
    """Kernel names, one a line; blank lines and ``#`` comments ignored."""
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the kernel list ({exc.strerror})") from exc
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def pending_names(names: Sequence[str], index: dict[str, Any], build_dir: Path) -> list[str]:
    """Names without a built library (failed batches are not retried: their names drop out)."""
    failed = {
        name
        for entry in index["batches"].values()
        if entry["status"] == "failed"
        for name in entry["kernels"]
    }
    done = {
        name
        for name, record in index["kernels"].items()
        if (build_dir / record["library"]).exists()
    }
    return [name for name in names if name not in done and name not in failed]


def main(argv: Sequence[str] | None = None) -> int:
    """Build the kernel libraries of a kernel list and the driver; prints progress."""
    parser = argparse.ArgumentParser(prog="python -m evaluation.cutlass_build", description=__doc__)
    parser.add_argument("--kernels", type=Path, required=True, help="kernel names, one a line")
    parser.add_argument("--build-dir", type=Path, default=Path("build/cutlass"))
    parser.add_argument("--per-tu", type=int, default=8, help="kernels per translation unit")
    parser.add_argument("--jobs", type=int, default=1, help="nvcc processes at a time")
    parser.add_argument("--limit", type=int, default=None, help="build at most N batches")
    parser.add_argument("--no-driver", action="store_true", help="do not build cutlass_bench")
    args = parser.parse_args(argv)
    try:
        if not args.no_driver:
            print(f"driver: {build_driver(args.build_dir)}", flush=True)
        names = read_kernel_list(args.kernels)
        index = load_index(args.build_dir)
        batches = plan_batches(pending_names(names, index, args.build_dir), args.per_tu)
        batches = batches[: args.limit] if args.limit is not None else batches
        done_before = len(names) - sum(len(b.names) for b in batches)
        print(
            f"{len(names)} kernels, {done_before} already built or failed; "
            f"{len(batches)} batches to build",
            flush=True,
        )
        started = time.monotonic()
        counts = {"built": 0, "cached": 0, "failed": 0}

        def report(result: BuildResult) -> None:
            counts[result.status] += 1
            done = sum(counts.values())
            eta = (time.monotonic() - started) / done * (len(batches) - done)
            print(
                f"[{done}/{len(batches)}] {result.batch.library} {result.status} "
                f"{result.seconds:.0f}s failures={counts['failed']} eta={eta / 60:.0f}min",
                flush=True,
            )

        build_batches(batches, args.build_dir, args.jobs, report)
    except BenchspaceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
