"""On recorded H200 data: ``header --from-profile`` dispatches every measured shape's
confirmed winner.

The profile and store of evaluation/data/h200/tune_shapes/llm (48 LLM projection shapes, 8
CUTLASS candidates + cublas:heuristic + cublas:algo0..7 each, every configuration re-timed by
``tune --confirm``). The expected winners are read here straight from the profile's JSON (the
confirmation figures) and the store's rows, the header compiled with g++ and its chooser called
at every shape.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from benchspace.harness.cli import main

RUN = Path(__file__).parents[3] / "evaluation" / "data" / "h200" / "tune_shapes" / "llm"
FIELDS = 9  # of cublas_algo, the pinned key's attributes


def _store_keys() -> dict[tuple[int, int, int, str], str]:
    data = bytearray(gzip.decompress((RUN / "store.sqlite.gz").read_bytes()))
    data[18:20] = b"\x01\x01"
    db = sqlite3.connect(":memory:")
    db.deserialize(bytes(data))
    out = {}
    for params, extra in db.execute("SELECT params, extra FROM attempts WHERE status = 'ok'"):
        config, row = json.loads(params)["kernel"], json.loads(extra)
        if config.startswith("cublas:") and row.get("cublas_algo"):
            key = "cublaslt:" + ";".join(row["cublas_algo"].split(";")[:FIELDS])
            out[int(row["M"]), int(row["N"]), int(row["K"]), config] = key
    return out


def _expected() -> dict[tuple[int, int, int], str]:
    """Per shape the name the header's chooser must return."""
    keys = _store_keys()
    (result,) = json.loads((RUN / "profile.json").read_text())["results"]
    best: dict[tuple[int, int, int], tuple[float, str]] = {}
    for row in result["measurements"]:
        assert row["confirmed"] is True  # every figure from the confirmation rounds
        f, config = row["fixed"], row["params"]["kernel"]
        shape = (f["M"], f["N"], f["K"])
        if config.startswith("cublas:algo"):
            if keys[(*shape, config)] == keys[(*shape, "cublas:heuristic")]:
                continue  # the heuristic's own algorithm, listed again
            name = keys[(*shape, config)]
        else:
            name = "cublas" if config == "cublas:heuristic" else config
        if shape not in best or row["value"] > best[shape][0]:
            best[shape] = (row["value"], name)
    return {s: name for s, (_, name) in best.items()}


def test_every_measured_shape_dispatches_its_winner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "gemm_kernels.hh"
    argv = ["cutlass", "header", "--from-profile", str(RUN / "profile.json"), "--out", str(header)]
    assert main(argv) == 0
    expected = _expected()
    assert len(expected) == 48
    printed = capsys.readouterr().out
    assert f"{len(expected)} of {len(expected)} measured shapes dispatch their winner" in printed
    assert "winners judged on the confirmation rounds for 48 of 48 shapes" in printed
    assert "picked on the selection rounds and timed in the confirmation rounds" in printed
    text = header.read_text()
    assert "kCublasLtVersion = 130100;" in text  # cublas.json beside the profile
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    shapes = sorted(expected)
    calls = "\n".join(
        f'    std::printf("%s\\n", g::gemm_kernel_name(g::gemm_kernel_for({m}, {n}, {k}).kernel));'
        for m, n, k in shapes
    )
    (tmp_path / "main.cc").write_text(
        '#include <cstdio>\n#include "gemm_kernels.hh"\nnamespace g = benchspace::gemm;\n'
        f"int main() {{\n{calls}\n    return 0;\n}}\n"
    )
    exe = tmp_path / "main"
    compile_argv = [gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}",
                    str(tmp_path / "main.cc"), "-o", str(exe)]  # fmt: skip
    proc = subprocess.run(compile_argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    env = {"PATH": "/usr/bin:/bin"}  # no BENCHSPACE_GEMM_KERNEL override
    ran = subprocess.run([str(exe)], env=env, capture_output=True, text=True, check=True)
    got = ran.stdout.splitlines()
    assert got == [expected[s] for s in shapes]
    assert sum(name.startswith("cublaslt:") for name in got) >= 1  # pinned entries dispatched
