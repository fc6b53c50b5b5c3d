"""scripts/device/measure_passes.py's passes, driven by a small stand-in for cutlass_bench."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "device" / "measure_passes.py"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
# Stand-in driver: --configs FILE, --rounds N, --rounds-csv PATH, M N K; a kernel's time is
# its position in the name list (k00 fastest), cuBLAS 2.5; it logs each invocation's argv.
FAKE = r"""
import csv, json, os, sys
argv = sys.argv[1:]
opt = {argv[i]: argv[i + 1] for i in range(0, len(argv) - 3, 2)}
m, n, k = argv[-3:]
configs = open(opt["--configs"]).read().split()
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({"rounds": opt["--rounds"], "configs": configs}) + "\n")
def ms(c):
    name = c.split(":")[0]
    return 2.5 if name == "cublas" else 1.0 + int(name[-2:]) / 10 + 0.01 * c.count(":")
print("config,name,status,ms_median")
with open(opt["--rounds-csv"], "w") as out:
    w = csv.writer(out)
    w.writerow(["config", "M", "N", "K", "round", "seq", "ms", "sm_clock_mhz", "power_w", "t_s"])
    t = 0.0
    for r in range(int(opt["--rounds"])):
        for s, c in enumerate(configs):
            t += 0.001
            w.writerow([c, m, n, k, r, s, ms(c), 1980, 600, round(t, 4)])
for c in configs:
    print(f"{c},{c.split(':')[0] if not c.startswith('cublas') else 'cublas'},ok,{ms(c)}")
"""


def _kernels(count: int) -> list[str]:
    return [f"{PREFIX}t{i:02d}" for i in range(count)]


def _run(tmp_path: Path, *extra: str, split: str = "eval") -> tuple[list[dict[str, object]], str]:
    build = tmp_path / "build"
    build.mkdir(exist_ok=True)
    index = {"kernels": {n: {"library": "libcb_a.so"} for n in _kernels(6)}}
    (build / "batches.json").write_text(json.dumps(index))
    (build / "libcb_a.so").write_bytes(b"")
    bench = tmp_path / "bench"
    bench.write_text(f"#!{sys.executable}\n{FAKE}")
    bench.chmod(0o755)
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps({split: [{"M": 64, "N": 128, "K": 256}]}))
    log = tmp_path / "log.jsonl"
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--bench", str(bench), "--build-dir", str(build),
         "--shapes", str(shapes), "--split", split, "--out", str(out), "--top", "2",
         "--cublas-algos", "1", "--heat-s", "0", *extra],
        capture_output=True, text=True, env={"FAKE_LOG": str(log), "PATH": "/usr/bin:/bin"},
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    if not calls:
        return calls, ""
    with gzip.open(out / f"v2_{split}_rows.csv.gz", "rt") as handle:
        return calls, handle.read()


def test_an_eval_shape_gets_x_then_k_with_the_extra_configs(tmp_path: Path) -> None:
    extra = tmp_path / "extra.json"
    picked = f"{PREFIX}t05:N:4"
    extra.write_text(json.dumps({"64x128x256": [picked]}))
    calls, rows = _run(tmp_path, "--extra", str(extra), "--rounds-x", "2", "--rounds", "4")
    assert [c["rounds"] for c in calls] == ["2", "4"]
    x, k = (set(c["configs"]) for c in calls)
    assert x == {*_kernels(6), "cublas:heuristic", "cublas:algo0"}
    assert picked in k and f"{PREFIX}t00:M:2" in k and "cublas:heuristic" in k
    assert not any(c.startswith(f"{PREFIX}t02") for c in k)  # only the best 2 are swept
    assert "eval-64x128x256-x" in rows and "eval-64x128x256-k" in rows


def test_a_topup_retimes_the_earlier_best_sweep_beside_the_new_kernels(tmp_path: Path) -> None:
    topup, extra = tmp_path / "topup.json", tmp_path / "extra.json"
    measured = _kernels(6)[3:]  # t03..t05 measured before; t00..t02 are new
    topup.write_text(json.dumps({"64x128x256": {"measured": measured, "top": [measured[0]]}}))
    extra.write_text(json.dumps({"64x128x256": [f"{PREFIX}t04:M:2", f"{PREFIX}t00"]}))
    calls, rows = _run(tmp_path, "--topup", str(topup), "--extra", str(extra), "--rounds", "3")
    assert len(calls) == 1 and calls[0]["rounds"] == "3"
    grid = [f"{PREFIX}t03:{r}:{w}" for r in "HMN" for w in (1, 2, 4, 8)][1:]
    expected = [*_kernels(3), f"{PREFIX}t03", *grid, f"{PREFIX}t04:M:2"]
    assert sorted(calls[0]["configs"]) == sorted([*expected, "cublas:heuristic", "cublas:algo0"])
    assert "eval-64x128x256-y" in rows


def test_a_topup_without_new_kernels_measures_nothing(tmp_path: Path) -> None:
    topup = tmp_path / "topup.json"
    topup.write_text(json.dumps({"64x128x256": {"measured": _kernels(6), "top": []}}))
    calls, _ = _run(tmp_path, "--topup", str(topup))
    assert calls == []


def test_exhaustive_first_counts_the_shapes_this_run_measures(tmp_path: Path) -> None:
    calls, _ = _run(tmp_path, "--exhaustive-first", "1", "--train-kernels", "2", split="train")
    assert set(_kernels(6)) <= set(calls[0]["configs"])
