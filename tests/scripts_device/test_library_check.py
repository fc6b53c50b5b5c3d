"""scripts/device/library_check.sh end to end, with stand-ins for nvidia-smi, nvcc, cmake and
the built verify_and_time (the real `benchspace cutlass library` runs): what comes back."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "device" / "library_check.sh"
sys.path.insert(0, str(ROOT / "tests" / "evaluation" / "cutlass" / "library"))
from library_headers import small_header  # noqa: E402

FAKES = {
    "nvidia-smi": r"""#!/usr/bin/env bash
case "$*" in
  *-lms*) while true; do echo "2026/12/02 01:00:00.000, 1980, 3201, 650.5, 45"; sleep 0.1; done ;;
  *name*) echo "NVIDIA H200" ;;
  *driver_version*) echo "580.159.04" ;;
esac
""",
    "nvcc": """#!/usr/bin/env bash
echo 'nvcc: NVIDIA (R) Cuda compiler driver'
echo 'Cuda compilation tools, release 13.0, V13.0.88'
echo 'Build cuda_13.0'
""",
    "cmake": r"""#!/usr/bin/env bash
if [ "$1" = "--build" ]; then
  [ -f "$2/configured" ] || exit 1
  cat > "$2/verify_and_time" <<'PY'
#!/usr/bin/env python3
import sys
args = sys.argv[1:]
csv_path = args[args.index("--csv") + 1]
print("# device NVIDIA H200, 132 SMs, L2 62914560 bytes; cuBLASLt 131000 (header pinned: 0)",
      file=sys.stderr)
with open(csv_path, "w") as out:
    out.write("m,n,k,header_choice,raster,swizzle,choice,ok,rel_err,nonfinite,rel_err_heuristic,"
              "ms,ms_heuristic,speedup,iters,rounds,workspace_bytes,error\n")
    for i, line in enumerate(l for l in open(args[0]) if l.strip() and not l.startswith("#")):
        m, n, k = line.split()
        choice = "cublas" if i % 2 else "kernel_a"
        out.write(f"{m},{n},{k},kernel_a,M,2,{choice},1,2.1e-03,0,2.2e-03,0.010000,"
                  f"{0.011 if i % 2 else 0.009:.6f},{1.1 if i % 2 else 0.9},200,15,0,\n")
PY
  chmod +x "$2/verify_and_time"
  echo "built"
  exit 0
fi
while [ $# -gt 0 ]; do [ "$1" = "-B" ] && { mkdir -p "$2"; touch "$2/configured"; }; shift; done
echo "configured"
""",
}


@pytest.mark.skipif(sys.platform != "linux", reason="bash script for the Linux GPU machine")
def test_library_check_brings_back_the_csv_and_provenance(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in FAKES.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    # A wrapper, not a link: the virtual environment is found from the interpreter's path.
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    header = tmp_path / "gemm_kernels.hh"
    header.write_text(small_header())
    shapes = tmp_path / "shapes.txt"
    shapes.write_text("# M N K\n128 256 512\n4096 4096 64\n64 64 64\n")
    out = tmp_path / "out"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "OUT": str(out),
        "HEADER": str(header),
        "SHAPES": str(shapes),
        "LIB": str(tmp_path / "lib"),
        "COMMIT": "0123abc",
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = list(
        csv.DictReader(
            io.StringIO(gzip.decompress((out / "library_check.csv.gz").read_bytes()).decode())
        )
    )
    assert [(r["m"], r["n"], r["k"]) for r in rows] == [
        ("128", "256", "512"),
        ("4096", "4096", "64"),
        ("64", "64", "64"),
    ]
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["gpu"] == "NVIDIA H200" and prov["driver"] == "580.159.04"
    assert prov["nvcc"].startswith("Cuda compilation tools, release 13.0")
    assert prov["commit"] == "0123abc" and prov["cublaslt_version"] == 131000
    assert prov["cutlass_version"].count(".") == 2
    assert prov["sm_clock_mhz_median"] == 1980 and prov["power_w_median"] == 650.5
    summary = prov["summary"]
    assert summary["shapes"] == 3 and summary["ok"] == 3 and summary["fallbacks"] == 1
    assert summary["geomean_speedup_vs_heuristic"] == pytest.approx((0.9 * 1.1 * 0.9) ** (1 / 3))
    assert sorted(p.name for p in out.iterdir()) == [
        "build.log",
        "clocks.csv.gz",
        "device.json",
        "library.log",
        "library_check.csv.gz",
        "provenance.json",
        "verify.log",
    ]
