#!/usr/bin/env python3
"""What to time to confirm a GEMM header on the GPU: per shape, the header's choice beside
cuBLAS, as ``cutlass_bench`` CONFIG words.

The header is compiled with g++ (as a user's code would include it) and its chooser
``gemm_kernel_for`` (no override: BENCHSPACE_GEMM_KERNEL is cleared) called at each shape.
Per shape one line ``M N K CONFIG...``: the header's choice (a CUTLASS kernel as the driver's
canonical word ``name[:raster[:swizzle]]``, a pinned cuBLASLt entry as its
``cublaslt:id=..;...`` key, which driver v4 replays; ``cublas`` is ``cublas:heuristic``
itself), then ``cublas:heuristic`` and ``cublas:algo0`` .. ``cublas:algo<N-1>``. The first
column after K says what the header runs; the line's end says which kind it is.

    python3 scripts/device/shipped_header_configs.py \\
        [--header include/benchspace/gemm_kernels.hh] \\
        [--shapes evaluation/data/shapes/h200_v2_eval.txt] [--algos 8] \\
        [--namespace benchspace::gemm]

Then per line: ``cutlass_bench --csv OUT --cublas-algos 8 M N K CONFIG...`` (the driver times
the configurations in one process, interleaved; quote the words: a key holds ``;``), and the
header's ratio to the heuristic is ``T(heuristic) / T(first CONFIG)`` in that run. Standard
library and g++ only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEURISTIC = "cublas:heuristic"

PROGRAM = """#include <cstdio>
#include "{header}"
namespace g = {namespace};
int main() {{
    long long m, n, k;
    while (std::scanf("%lld %lld %lld", &m, &n, &k) == 3) {{
        const g::GemmChoice c = g::gemm_kernel_for(m, n, k);
        const char kind = g::gemm_pinned_config(c.kernel) != nullptr ? 'p'
            : c.kernel == g::GemmKernel::cublas ? 'c' : 'k';
        std::printf("%lld %lld %lld %c %s %c %d\\n", m, n, k, kind,
                    g::gemm_kernel_name(c.kernel), c.raster, static_cast<int>(c.swizzle));
    }}
    return 0;
}}
"""


def read_shapes(path: Path) -> list[tuple[int, int, int]]:
    """'M N K' lines ('#' comments and blank lines skipped)."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        words = text.replace("x", " ").split()
        if len(words) != 3 or not all(w.isdigit() and int(w) > 0 for w in words):
            sys.exit(f"{path}:{number}: {line!r} is not 'M N K' (three positive integers)")
        out.append((int(words[0]), int(words[1]), int(words[2])))
    if not out:
        sys.exit(f"{path}: no shapes")
    return out


def config_word(name: str, raster: str, swizzle: int) -> str:
    """The driver's canonical CONFIG word (defaults left out, as driver_csv writes it)."""
    if swizzle != 1:
        return f"{name}:{raster}:{swizzle}"
    return name if raster == "H" else f"{name}:{raster}"


def choices(header: Path, namespace: str, shapes: list[tuple[int, int, int]]) -> list[str]:
    """The chooser's output line per shape (see PROGRAM)."""
    gxx = shutil.which("g++")
    if gxx is None:
        sys.exit("g++ is not installed: it compiles the header to call its chooser")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "choose.cc"
        source.write_text(PROGRAM.format(header=header.resolve(), namespace=namespace))
        exe = Path(tmp) / "choose"
        argv = [
            gxx,
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            str(source),
            "-o",
            str(exe),
        ]
        built = subprocess.run(argv, capture_output=True, text=True, check=False)
        if built.returncode != 0:
            sys.exit(f"{header}: does not compile with g++ -Werror:\n{built.stderr}")
        env = {k: v for k, v in os.environ.items() if not k.endswith("GEMM_KERNEL")}
        text = "".join(f"{m} {n} {k}\n" for m, n, k in shapes)
        ran = subprocess.run(
            [str(exe)], input=text, env=env, capture_output=True, text=True, check=True
        )
    return ran.stdout.splitlines()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--header", type=Path, default=ROOT / "include/benchspace/gemm_kernels.hh")
    parser.add_argument(
        "--shapes", type=Path, default=ROOT / "evaluation/data/shapes/h200_v2_eval.txt"
    )
    parser.add_argument("--algos", type=int, default=8, help="cublas:algo0..N-1 (default: 8)")
    parser.add_argument("--namespace", default="benchspace::gemm")
    args = parser.parse_args()
    if not args.header.is_file():
        sys.exit(f"--header {args.header}: no such file")
    shapes = read_shapes(args.shapes)
    cublas = [HEURISTIC, *(f"cublas:algo{i}" for i in range(max(args.algos, 0)))]
    print(f"# {args.header} at the {len(shapes)} shapes of {args.shapes}")
    print("# format: M N K CONFIG... (first CONFIG: the header's choice) # kind")
    kinds = {"k": "cutlass", "p": "pinned", "c": "cublas"}
    counts = dict.fromkeys(kinds.values(), 0)
    for line in choices(args.header, args.namespace, shapes):
        m, n, k, kind, name, raster, swizzle = line.split()
        if kind == "k":
            first = [config_word(name, raster, int(swizzle))]
        elif kind == "p":
            first = [name]  # the pinned entry's name is its cublaslt: key
        else:
            first = []  # the heuristic itself, timed below
        counts[kinds[kind]] += 1
        print(" ".join([m, n, k, *first, *cublas]) + f"  # {kinds[kind]}")
    print("# " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
