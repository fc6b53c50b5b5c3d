"""Regenerate cutlass_smem_nvcc.csv: compile CUTLASS's own stage and shared-memory figures.

Usage: python tests/evaluation/data/cutlass_smem_nvcc.py [--level max] [--nvcc nvcc]
Needs nvcc (no GPU): one host-only translation unit instantiates the collective builders of
one kernel per distinct (tile, schedules, C type, tile scheduler) and prints their figures.
Takes about 3 minutes and 3 GB of memory at the ``max`` level.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import cutlass_library
from cutlass_library.gemm_operation import EmitGemmUniversal3xInstance

from benchspace.evaluation.cutlass.catalogue import enumerate_operations, operation_record

HEADER = """\
# CUTLASS 4.2.0 (nvidia-cutlass 4.2.0.0 wheel) compiled by nvcc 13.0.88 for sm_90a: one kernel
# per distinct (tile, kernel schedule, epilogue schedule, C type, tile scheduler) of the max-level
# tnn catalogue. stages = CollectiveMainloop::DispatchPolicy::Stages,
# epilogue_bytes = sizeof(CollectiveEpilogue::SharedStorage),
# smem_bytes = GemmKernel::SharedStorageSize. Regenerate with cutlass_smem_nvcc.py in this folder.
name,stages,epilogue_bytes,smem_bytes
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="max")
    parser.add_argument("--nvcc", default="nvcc")
    args = parser.parse_args()
    chosen = {}
    for op in enumerate_operations(args.level, layouts=["tnn"]):
        r = operation_record(op)
        key = (r.tm, r.tn, r.tk, r.kernel_schedule, r.epilogue_schedule, r.c_type, r.tile_scheduler)
        if key not in chosen and (r.cm, r.cn) in ((1, 1), (1, 2), (2, 1)):
            chosen[key] = op
    emitter = EmitGemmUniversal3xInstance()
    body, prints = [], []
    for op in chosen.values():
        name = op.procedural_name()
        body.append(emitter.emit(op))
        prints.append(
            f'  std::printf("%s,%d,%d,%d\\n", "{name}", '
            f"(int){name}_mainloop::DispatchPolicy::Stages, "
            f"(int)sizeof(typename {name}_epilogue::SharedStorage), "
            f"(int){name}::SharedStorageSize);"
        )
    includes = "".join(f'#include "{i}"\n' for i in emitter.includes)
    source = "#include <cstdio>\n" + includes + "\n".join(body)
    source += "\nint main() {\n" + "\n".join(prints) + "\n}\n"
    include = Path(cutlass_library.__file__).parent / "source" / "include"
    with tempfile.TemporaryDirectory() as tmp:
        cu, exe = Path(tmp) / "smem.cu", Path(tmp) / "smem"
        cu.write_text(source)
        subprocess.run(
            [args.nvcc, "-std=c++17", "-O0", "-gencode=arch=compute_90a,code=sm_90a",
             "--expt-relaxed-constexpr", "-DNDEBUG", f"-I{include}", str(cu), "-o", str(exe)],
            check=True,
        )  # fmt: skip
        rows = sorted(subprocess.run([str(exe)], check=True, capture_output=True, text=True)
                      .stdout.splitlines())  # fmt: skip
    out = Path(__file__).with_name("cutlass_smem_nvcc.csv")
    out.write_text(HEADER + "".join(f"{row}\n" for row in rows))
    print(f"{out}: {len(rows)} kernels", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
