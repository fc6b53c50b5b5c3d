"""The CUDA toolchain of the batch build: nvcc, its flags, libcudart and the CUTLASS headers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.files import read_text

_PACKAGED = Path(__file__).resolve().parent / "driver"
_CHECKOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "cutlass"
SOURCE_DIR = _PACKAGED if (_PACKAGED / "cutlass_bench.cu").is_file() else _CHECKOUT
"""The hand-written C++: driver, per-kernel glue, ABI header and the batch template (copied
into the package by setup.py's build step; read in place in a checkout)."""

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
    # Without its symbol table: nvcc names its host temporary after its process id
    # (tmpxft_<pid>_...), the symbol table keeps that name, and two builds of one source would
    # hash apart, so a store's attempts would not be found again by a rebuilt driver.
    "-Xlinker",
    "-s",
)


def cutlass_include_dirs() -> list[Path]:
    """CUTLASS/CuTe headers and the CUTLASS utilities, from the wheel's ``source_path``."""
    import cutlass_library

    root = Path(cutlass_library.source_path)
    return [root / "include", root / "tools" / "util" / "include"]


def cutlass_version() -> str:
    """The CUTLASS version of the headers in the installed ``nvidia-cutlass`` wheel."""
    text = read_text(cutlass_include_dirs()[0] / "cutlass" / "version.h", kind="CUTLASS header")
    parts = [
        re.search(rf"#define CUTLASS_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "PATCH")
    ]
    return ".".join(m.group(1) if m else "?" for m in parts)


def find_nvcc() -> str:
    """The nvcc to use: ``$NVCC`` or the first on PATH."""
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nvcc:
        raise BenchspaceError("nvcc not found on PATH; install CUDA 13 or set NVCC=/path/to/nvcc")
    return nvcc


def cudart_path(nvcc: str) -> Path:
    """libcudart.so.13 of the toolkit behind nvcc (found through ``nvcc -dryrun``)."""
    try:
        probe = subprocess.run(
            [nvcc, "-dryrun", "-c", "cb_probe.cu"], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise BenchspaceError(
            f"{nvcc}: cannot run nvcc ({exc.strerror}); set NVCC to a CUDA 13 toolkit's nvcc"
        ) from exc
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
