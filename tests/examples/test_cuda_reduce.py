"""The H200 CUDA example: its space, its source under nvcc, and its flow through the harness.

No test needs a GPU: nvcc (when installed) only compiles reduce.cu; the end-to-end test runs
the space's own build command against a stand-in ``nvcc`` whose executables print the table
reduce.cu prints, so tune, generate and the speed-up script see the real space.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.spaces.load import load_space

ROOT = Path(__file__).resolve().parents[2]
SPACE = ROOT / "spaces" / "h200_reduce.json"
SOURCE = ROOT / "examples" / "cuda_reduce" / "reduce.cu"
NVCC = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None
)

# Writes, for -o EXE, a shell script printing reduce.cu's table; its time is a smooth function
# of n, BLOCK_SIZE and ITEMS_PER_THREAD with its minimum at 512 x 8.
STAND_IN = r"""#!/bin/sh
[ "$1" = "--version" ] && { echo "stand-in nvcc 0"; exit 0; }
bs=; ipt=; out=
while [ $# -gt 0 ]; do
  case "$1" in
    -DBLOCK_SIZE=*) bs=${1#*=};; -DITEMS_PER_THREAD=*) ipt=${1#*=};; -o) shift; out=$1;;
  esac
  shift
done
cat > "$out" <<EOS
#!/bin/sh
awk -v n="\$1" -v bs=$bs -v ipt=$ipt 'BEGIN {
  d = bs - 512; if (d < 0) d = -d; e = ipt - 8; if (e < 0) e = -e
  t = 3 + n * 4 / 3.5e6 * (1 + d / 2048 + e / 32)
  print "name,gpu_time_us,gb_per_s,blocks,rel_error"
  printf "reduce/%d,%.4f,%.2f,%d,0\n", n, t, n * 4 / t / 1e3, 132 }'
EOS
chmod +x "$out"
"""


def test_the_space_has_25_variants_and_the_default_in_every_grid() -> None:
    space = load_space(SPACE)
    bench = space.bench("cuda_reduce")
    assert bench.compile == ("BLOCK_SIZE", "ITEMS_PER_THREAD")
    assert bench.build is not None and bench.build.overlap
    assert "arch=compute_90a,code=sm_90a" in bench.build.command
    variants = {
        (b, i)
        for case in bench.cases
        for b in case.tune["BLOCK_SIZE"]
        for i in case.tune["ITEMS_PER_THREAD"]
    }
    assert len(variants) == 25
    assert all((256, 4) in {(b, i) for b, i in variants} for _ in bench.cases)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_reduce_cu_compiles_for_sm90a_and_refuses_a_bad_block_size(tmp_path: Path) -> None:
    assert NVCC is not None
    flags = ["-O3", "-std=c++17", "-gencode", "arch=compute_90a,code=sm_90a", "-c"]
    ok = subprocess.run(
        [NVCC, *flags, "-DBLOCK_SIZE=128", "-DITEMS_PER_THREAD=8", str(SOURCE), "-o",
         str(tmp_path / "ok.o")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        [NVCC, *flags, "-DBLOCK_SIZE=100", "-DITEMS_PER_THREAD=8", str(SOURCE), "-o",
         str(tmp_path / "bad.o")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode != 0
    assert "BLOCK_SIZE must be a multiple of 32" in bad.stderr


def test_the_space_tunes_generates_and_prints_the_speedup_over_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"  # the space's {source_dir}: a project of its own
    (project / "examples" / "cuda_reduce").mkdir(parents=True)
    (project / "spaces").mkdir()
    (project / "pyproject.toml").write_text("")
    shutil.copy(SOURCE, project / "examples" / "cuda_reduce" / "reduce.cu")
    data = json.loads(SPACE.read_text())
    bench = data["spaces"][0]
    bench["repeats"] = 1
    grid = {"BLOCK_SIZE": [256, 512], "ITEMS_PER_THREAD": [4, 8]}
    bench["cases"] = [{"fixed": {"n": n}, "tune": grid} for n in (1048576, 268435456)]
    space = project / "spaces" / "h200_reduce.json"
    space.write_text(json.dumps(data))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvcc").write_text(STAND_IN)
    (bin_dir / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    build, profile = tmp_path / "build", tmp_path / "profile.json"
    tune = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(profile)]
    assert main([*tune, "--quiet", "--build-jobs", "2"]) == 0
    assert "4 variants built, 0 from the store" in capsys.readouterr().out
    header = tmp_path / "cuda_reduce_params.hh"
    assert main(["generate", "--profile", str(profile), "--space", str(space), "--out",
                 str(header)]) == 0  # fmt: skip
    text = header.read_text()
    assert "BLOCK_SIZE_L2 = 512;" in text and "ITEMS_PER_THREAD_HBM = 8;" in text
    out_json = tmp_path / "speedup.json"
    script = ROOT / "examples" / "cuda_reduce" / "speedup.py"
    run = subprocess.run(
        [sys.executable, str(script), "--profile", str(profile), "--space", str(space),
         "--json", str(out_json)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "(BLOCK_SIZE=256 ITEMS_PER_THREAD=4)" in lines[0]
    assert "best 4.198 (BLOCK_SIZE=512 ITEMS_PER_THREAD=8)" in lines[1]
    ups = [c["speedup"] for c in json.loads(out_json.read_text())[0]["cases"]]
    # the stand-in's times: 256x4 pays 1 + 256/2048 + 4/32 = 1.25 on the size-bound part
    assert ups[1] == pytest.approx((3 + 306.783 * 1.25) / (3 + 306.783), rel=1e-3)
    bad = subprocess.run(
        [sys.executable, str(script), "--profile", str(tmp_path / "none.json"), "--space",
         str(space)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert (
        bad.returncode == 1 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
    )
