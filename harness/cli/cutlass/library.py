"""Write a CMake project that builds a GEMM header's dispatch into a callable library.

``benchspace cutlass library --header H --out DIR`` instantiates exactly the header's CUTLASS
kernels (as ``cutlass build`` emits them) and exposes ``benchspace::gemm::run(m, n, k, A, B, D,
workspace, workspace_bytes, stream)`` (bf16, A row-major, B and D column-major, fp32
accumulation), which runs the header's choice: a CUTLASS kernel, a pinned cuBLASLt
configuration, or the cuBLASLt heuristic. Nothing is compiled here: build DIR with CMake.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchspace.harness.errors import UsageError
from benchspace.harness.files import FileError, guard_output, read_text

DEFAULT_HEADER = "include/benchspace/gemm_kernels.hh"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--header``, ``--out``, ``--per-tu``, ``--cutlass-dir`` and ``--cublaslt-root``."""
    parser.add_argument(
        "--header",
        type=Path,
        default=Path(DEFAULT_HEADER),
        help=f"the generated GEMM header (default: {DEFAULT_HEADER})",
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write the project to")
    parser.add_argument(
        "--per-tu",
        type=int,
        default=4,
        help="CUTLASS kernels per source file, so that the build parallelises (default: 4)",
    )
    parser.add_argument(
        "--cutlass-dir",
        default=None,
        help="CMake's default CUTLASS_DIR (default: the installed nvidia-cutlass wheel's "
        "cutlass_library.source_path)",
    )
    parser.add_argument(
        "--cublaslt-root",
        default=None,
        help="CMake's default CUBLASLT_ROOT, a folder with include/cublasLt.h and lib/ "
        "(default: the installed nvidia-cublas wheel's, else empty: the CUDA toolkit's)",
    )


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise FileError(f"--out {out}: is a file; give a folder for the project")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileError(
            f"--out {out}: cannot be made ({exc.strerror or type(exc).__name__}); choose another "
            "folder"
        ) from None


def _operations(names: tuple[str, ...]) -> dict[str, Any]:
    """cutlass_library's operation of each name: the default catalogue (quick), then max, then
    the wide-tile level for what neither has."""
    from benchspace.evaluation.cutlass.catalogue import WIDE_LEVEL, operations_by_name

    return operations_by_name(names, level=("default", "max", WIDE_LEVEL))


def run(args: argparse.Namespace) -> int:
    """Parse the header, emit its kernels and the dispatch, write DIR; print what and how."""
    from benchspace.evaluation.cutlass.library.emit import (
        default_cublaslt_root,
        render_library,
        write_library,
    )
    from benchspace.evaluation.cutlass.library.header_read import parse_header
    from benchspace.evaluation.cutlass.nvcc import cutlass_include_dirs, cutlass_version

    if args.per_tu < 1:
        raise UsageError(f"--per-tu {args.per_tu}: must be at least 1")
    text = read_text(args.header, kind="GEMM header")
    header = parse_header(text, str(args.header))
    if args.out.exists() and not args.out.is_dir():
        raise FileError(f"--out {args.out}: is a file; give a folder for the project")
    cutlass_dir = args.cutlass_dir or str(cutlass_include_dirs()[0].parent)
    operations = _operations(header.cutlass) if header.cutlass else {}
    project = render_library(
        header,
        text,
        operations,
        cutlass_dir=cutlass_dir,
        cutlass_version=cutlass_version(),
        cublaslt_root=default_cublaslt_root() if args.cublaslt_root is None else args.cublaslt_root,
        per_tu=args.per_tu,
    )
    for rel in project.files:  # the header read may sit where the project writes
        guard_output(args.out / rel, option="--out", inputs=[(args.header, "the header")])
    _check_out(args.out)
    written = write_library(project, args.out)
    print(
        f"{args.header}: {len(header.cutlass)} CUTLASS kernels in {len(project.sources)} "
        f"sources, {len(header.pinned)} pinned cuBLASLt configurations, then cublas "
        f"(CUTLASS {project.cutlass_version}, CUTLASS_DIR {cutlass_dir})"
    )
    print(f"wrote {len(written)} files under {args.out}; build it with")
    print(f"  cmake -S {args.out} -B {args.out}/build && cmake --build {args.out}/build -j16")
    print(f"  {args.out}/build/verify_and_time SHAPES   # M N K a line; on an SM90a GPU")
    return 0
