"""The bundled CPU demo: it builds with CMake, and its executables speak what spaces/demo.json says.

Skipped when g++, cmake or Google Benchmark's CMake package (Debian ``libbenchmark-dev``) is
absent. The build goes to a temporary directory, once per module.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPACE = ROOT / "spaces" / "demo.json"
HEADER = ROOT / "include" / "benchspace_demo" / "tuning_params.hh"
EXECUTABLES = ("matmul_benchmark", "lu_benchmark", "matvec_benchmark", "sort_benchmark")
BUCKETS = (("TINY", 64), ("SMALL", 128), ("MEDIUM", 256), ("LARGE", 512), ("XLARGE", None))


def _space() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SPACE.read_text())
    return data


def _incumbents() -> dict[str, dict[str, int]]:
    """{CONSTANT: {BUCKET: value}} as compiled into the checked-in header."""
    found: dict[str, dict[str, int]] = {}
    pattern = re.compile(r"inline constexpr \w+ ([A-Z0-9_]+?)_([A-Z]+) = (\w+);")
    for name, bucket, literal in pattern.findall(HEADER.read_text()):
        value = {"true": 1, "false": 0}.get(literal)
        found.setdefault(name, {})[bucket] = int(literal) if value is None else value
    return found


def _bucket(n: int) -> str:
    return next(name for name, edge in BUCKETS if edge is None or n <= edge)


def _argv_word(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _run(
    exe: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(exe), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _run_json(
    exe: Path, tmp_path: Path, *args: str, env: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    out = tmp_path / f"{exe.name}.json"
    result = _run(
        exe,
        "--benchmark_min_time=0.01",
        f"--benchmark_out={out}",
        "--benchmark_out_format=json",
        *args,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    entries: list[dict[str, Any]] = json.loads(out.read_text())["benchmarks"]
    return entries


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Configure and build the demo once; the executables' directory."""
    for tool in ("g++", "cmake"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    build = tmp_path_factory.mktemp("demo-build")
    configure = subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
        capture_output=True,
        text=True,
        check=False,
    )
    if configure.returncode != 0 and 'provided by "benchmark"' in configure.stderr:
        pytest.skip("Google Benchmark's CMake package is not installed (libbenchmark-dev)")
    assert configure.returncode == 0, configure.stdout + configure.stderr
    # One compile job: the suite shares a small machine with other work.
    compiled = subprocess.run(
        ["cmake", "--build", str(build), "--parallel", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stdout[-4000:] + compiled.stderr[-4000:]
    return build / "benchmarks"


def test_every_executable_lands_in_build_benchmarks(bench_dir: Path) -> None:
    for name in EXECUTABLES:
        assert (bench_dir / name).is_file(), name


def test_default_list_names_the_arguments(bench_dir: Path) -> None:
    expected = {
        "matmul_benchmark": r"BM_matmul/n:\d+/block:\d+",
        "lu_benchmark": r"BM_lu/n:\d+",
        "matvec_benchmark": r"BM_matvec/n:\d+",
        "sort_benchmark": r"BM_sort_(random|runs)/n:\d+/batch:\d+/cutoff:\d+/branchless:[01]",
    }
    for name, pattern in expected.items():
        result = _run(bench_dir / name, "--benchmark_list_tests")
        assert result.returncode == 0, result.stderr
        names = result.stdout.split()
        assert names, name
        assert all(re.fullmatch(pattern, n) for n in names), names


def _case_argv(bench: Mapping[str, Any], case: Mapping[str, Any]) -> list[str]:
    values: dict[str, Any] = dict(case.get("fixed", {}))
    values.update({key: grid[0] for key, grid in case.get("tune", {}).items()})
    for phase in bench.get("pre_tune", []):
        values.update({key: grid[0] for key, grid in phase["params"].items()})
    return [_argv_word(values[name]) for name in bench["arg_spec"]]


def test_space_arguments_and_rows_match_the_executables(bench_dir: Path) -> None:
    for bench in _space()["spaces"]:
        for case in bench["cases"]:
            argv = _case_argv(bench, case)
            result = _run(bench_dir / bench["exe"], "--benchmark_list_tests", *argv)
            assert result.returncode == 0, (bench["bench"], argv, result.stderr)
            names = result.stdout.split()
            chosen = [n for n in names if bench["row"] in n]
            assert len(chosen) == 1, (bench["bench"], names)
            reported = [part.split(":")[0] for part in chosen[0].split("/")[1:]]
            assert reported == bench["arg_spec"], (bench["bench"], chosen)


def test_sort_reports_two_rows_so_row_decides(bench_dir: Path) -> None:
    names = _run(bench_dir / "sort_benchmark", "--benchmark_list_tests", "64", "8", "16", "1")
    assert names.stdout.split() == [
        "BM_sort_random/n:64/batch:8/cutoff:16/branchless:1",
        "BM_sort_runs/n:64/batch:8/cutoff:16/branchless:1",
    ]


def test_tiny_run_writes_gbench_json(bench_dir: Path, tmp_path: Path) -> None:
    (entry,) = _run_json(bench_dir / "matmul_benchmark", tmp_path, "64", "16")
    assert entry["name"] == "BM_matmul/n:64/block:16"
    assert entry["time_unit"] == "us"
    assert entry["real_time"] > 0
    assert entry["GFLOP/s"] > 0


def test_env_override_moves_the_consumer_and_bad_values_are_ignored(
    bench_dir: Path, tmp_path: Path
) -> None:
    incumbent = _incumbents()["MATMUL_BLOCK"]["TINY"]
    lu = bench_dir / "lu_benchmark"
    var = "BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK"
    (entry,) = _run_json(lu, tmp_path, "64", env={var: "16"})
    assert entry["block"] == 16
    for ignored in ("", "abc", "0", "16x", "99999"):
        (entry,) = _run_json(lu, tmp_path, "64", env={var: ignored})
        assert entry["block"] == incumbent, ignored


def test_env_only_knob_reaches_matvec(bench_dir: Path, tmp_path: Path) -> None:
    matvec = bench_dir / "matvec_benchmark"
    (entry,) = _run_json(matvec, tmp_path, "128", env={"BENCHSPACE_DEMO_TUNE_DOT_LANES": "8"})
    assert entry["lanes"] == 8
    (entry,) = _run_json(matvec, tmp_path, "128")
    assert entry["lanes"] == _incumbents()["DOT_LANES"]["SMALL"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["64"], "error: matmul_benchmark: expected 2 positional arguments, got 1"),
        (["64", "16", "3"], "error: matmul_benchmark: expected 2 positional arguments, got 3"),
        (["64", "x"], "error: matmul_benchmark: argument 'x' is not an integer"),
        (["64", "0"], "error: matmul_benchmark: block=0 is outside [1, 4096]"),
        (["--bogus", "64", "16"], "error: matmul_benchmark: unknown flag '--bogus'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    bench_dir: Path, args: Sequence[str], message: str
) -> None:
    result = _run(bench_dir / "matmul_benchmark", *args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(message + " (usage: matmul_benchmark")


def test_header_compiles_alone_with_warnings_as_errors(tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    source = tmp_path / "use_header.cc"
    source.write_text(
        "#include <benchspace_demo/tuning_params.hh>\n"
        "int main() { return benchspace_demo::tuning::matmul_block_for_n(100) > 0 ? 0 : 1; }\n"
    )
    result = subprocess.run(
        ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
         f"-I{ROOT / 'include'}", str(source), "-o", str(tmp_path / "use_header")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert subprocess.run([str(tmp_path / "use_header")], check=False).returncode == 0


def test_shipped_values_are_in_every_feeding_grid() -> None:
    space = _space()
    benches = {b["bench"]: b for b in space["spaces"]}
    incumbents = _incumbents()
    for constant in space["header"]["constants"]:
        shipped = incumbents[constant["name"]]
        assert set(shipped) == {name for name, _ in BUCKETS}, constant["name"]
        for source in constant["sources"]:
            bench = benches[source["bench"]]
            param = source["param"]
            phases = [p["params"][param] for p in bench.get("pre_tune", []) if param in p["params"]]
            # A pre-tuned parameter's grid is the phase's; otherwise each case's own.
            for case in bench["cases"]:
                value = shipped[_bucket(case["fixed"]["n"])]
                for grid in phases or [case["tune"][param]]:
                    assert value in [int(v) for v in grid], (constant["name"], case, grid)
