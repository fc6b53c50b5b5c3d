"""``benchspace cutlass library``: the project for the shipped header and for pinned entries,
one-line errors for bad input, and (where nvcc is installed) the emitted sources compiled."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from library_headers import KERNEL, legacy, small_header, with_pinned

from benchspace.harness.cli import main

ROOT = Path(__file__).resolve().parents[4]
SHIPPED = ROOT / "include" / "benchspace" / "gemm_kernels.hh"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["cutlass", "library", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shipped")
    assert main(["cutlass", "library", "--header", str(SHIPPED), "--out", str(out)]) == 0
    return out


def test_the_shipped_header_gives_every_kernel_once(shipped: Path) -> None:
    text = SHIPPED.read_text()
    kernels = [
        n
        for n in text.split("enum class GemmKernel")[1].split("};")[0].split()
        if n.startswith("cutlass3x_")
    ]
    manifest = json.loads((shipped / "library.json").read_text())
    assert manifest["cutlass_kernels"] == kernels
    sources = sorted((shipped / "src").glob("kernels_*.cu"))
    assert len(sources) == -(-len(kernels) // 4)
    emitted = []
    for source in sources:
        body = source.read_text()
        emitted += [
            line.split()[1] for line in body.splitlines() if line.startswith("struct cutlass3x_")
        ]
    assert sorted(emitted) == sorted(kernels)
    assert (shipped / "src" / "gemm_kernels.hh").read_text() == text
    for rel in (
        "src/cb_kernel.hpp",
        "src/cb_abi.h",
        "src/entry.h",
        "src/dispatch.cu",
        "tools/verify_and_time.cu",
        "tools/cb_shim.cu",
    ):
        assert (shipped / rel).is_file(), rel


def test_the_shim_is_a_driver_library_of_one_kernel(shipped: Path) -> None:
    """Every function cb_abi.h declares is defined extern "C" by the shim, which CMake builds
    as libcb_benchspace_gemm.so (the driver loads libcb_*.so from its library folders)."""
    import re

    abi = (ROOT / "benchmarks" / "cutlass" / "cb_abi.h").read_text()
    declared = set(re.findall(r"^\w[\w\s*]*?\b(cb_\w+)\(", abi, flags=re.M))
    assert "cb_run" in declared and len(declared) >= 8
    shim = (shipped / "tools" / "cb_shim.cu").read_text()
    defined = set(re.findall(r'^extern "C" [\w\s*]*?\b(cb_\w+)\(', shim, flags=re.M))
    assert defined == declared
    assert '"benchspace_gemm_run"' in shim and "benchspace::gemm::run(" in shim
    cmake = (shipped / "CMakeLists.txt").read_text()
    assert "add_library(cb_benchspace_gemm SHARED tools/cb_shim.cu)" in cmake
    assert 'set_target_properties(cb_benchspace_gemm PROPERTIES PREFIX "lib")' in cmake


def test_the_public_header_declares_the_three_functions(shipped: Path) -> None:
    text = (shipped / "include" / "benchspace_gemm.h").read_text()
    assert "namespace benchspace::gemm {" in text
    assert (
        "cudaError_t run(int m, int n, int k, const __nv_bfloat16* A, const __nv_bfloat16* B,\n"
        "                __nv_bfloat16* D, void* workspace, size_t workspace_bytes, "
        "cudaStream_t stream);"
    ) in text
    assert "size_t workspace_size(int m, int n, int k);" in text
    assert "const char* choice(int m, int n, int k);" in text


def test_the_cmake_project(shipped: Path) -> None:
    text = (shipped / "CMakeLists.txt").read_text()
    import cutlass_library

    assert "project(benchspace_gemm LANGUAGES CXX CUDA)" in text
    assert f'set(CUTLASS_DIR "{cutlass_library.source_path}"' in text
    assert "set(CMAKE_CUDA_ARCHITECTURES 90a)" in text
    assert "CUDA::cublasLt" in text
    assert "add_executable(verify_and_time tools/verify_and_time.cu)" in text
    listed = [line.strip() for line in text.splitlines() if line.strip().startswith("src/")]
    on_disk = sorted(f"src/{p.name}" for p in (shipped / "src").glob("*.cu"))
    assert sorted(listed) == on_disk


def test_a_header_without_the_pinned_block_compiles_no_pinned_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "gemm_kernels.hh"
    header.write_text(legacy(small_header()))
    code, _, err = _run(["--header", str(header), "--out", str(tmp_path / "lib")], capsys)
    assert code == 0, err
    dispatch = (tmp_path / "lib" / "src" / "dispatch.cu").read_text()
    assert "hdr::kPinned" not in dispatch and "cublasLtMatmulAlgoCheck" not in dispatch
    assert "cublasLtMatmulAlgoGetHeuristic" in dispatch


def test_the_shipped_header_lists_its_pinned_entries(shipped: Path) -> None:
    from benchspace.evaluation.cutlass.library.header_read import parse_header

    manifest = json.loads((shipped / "library.json").read_text())
    path = Path(manifest["header"])
    header = parse_header(path.read_text(), str(path))
    assert header.has_pinned_block and manifest["pinned"] == [p.key for p in header.pinned]
    assert manifest["cublaslt_version"] == header.cublaslt_version


def test_pinned_entries_are_rebuilt_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "gemm_kernels.hh"
    header.write_text(with_pinned(legacy(small_header())))
    code, out, err = _run(["--header", str(header), "--out", str(tmp_path / "lib")], capsys)
    assert (code, err) == (0, "")
    assert "1 CUTLASS kernels in 1 sources, 2 pinned cuBLASLt configurations, then cublas" in out
    dispatch = (tmp_path / "lib" / "src" / "dispatch.cu").read_text()
    for needle in (
        "cublasLtGetVersion()) != hdr::kCublasLtVersion",
        "cublasLtMatmulAlgoInit(",
        "CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, config.cluster",
        "cublasLtMatmulAlgoCheck(",
        "hdr::kPinned[code - hdr::kFirstPinned]",
        "static_assert(hdr::kFirstPinned == kNumCutlass && hdr::kNumPinned == 2,",
    ):
        assert needle in dispatch, needle
    manifest = json.loads((tmp_path / "lib" / "library.json").read_text())
    assert manifest["cutlass_kernels"] == [KERNEL]
    assert len(manifest["pinned"]) == 2 and manifest["cublaslt_version"] == 131000


def test_a_second_run_removes_kernel_sources_it_no_longer_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "gemm_kernels.hh"
    header.write_text(small_header())
    out = tmp_path / "lib"
    (out / "src").mkdir(parents=True)
    (out / "src" / "kernels_7.cu").write_text("// stale\n")
    (out / "src" / "mine.cu").write_text("// the user's\n")
    assert _run(["--header", str(header), "--out", str(out)], capsys)[0] == 0
    assert sorted(p.name for p in (out / "src").glob("*.cu")) == [
        "dispatch.cu",
        "kernels_0.cu",
        "mine.cu",
    ]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: d / "missing.hh", "missing.hh: no such GEMM header; check the path"),
        (
            lambda d: (d / "bad.hh").write_text("int x;\n") and d / "bad.hh",
            "bad.hh: no `enum class GemmKernel",
        ),
    ],
)
def test_bad_headers_get_one_line_and_nothing_is_written(
    setup, message, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "lib"
    code, stdout, err = _run(["--header", str(setup(tmp_path)), "--out", str(out)], capsys)
    assert code == 1
    assert err.count("\n") == 1 and message in err and err.startswith("error: ")
    assert stdout == ""
    assert not out.exists()


def test_an_unknown_kernel_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "h.hh"
    header.write_text(small_header().replace("128x128x64_1x1x1", "128x128x64_9x9x1"))
    code, _, err = _run(["--header", str(header), "--out", str(tmp_path / "lib")], capsys)
    said = "not in the 'default', 'max' or '9999' catalogue"
    assert code == 2 and said in err and err.count("\n") == 1
    assert not (tmp_path / "lib").exists()


def test_out_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = tmp_path / "h.hh"
    header.write_text(small_header())
    (tmp_path / "lib").write_text("x")
    code, _, err = _run(["--header", str(header), "--out", str(tmp_path / "lib")], capsys)
    assert code == 1 and "--out" in err and "is a file; give a folder" in err


# --- compiled where nvcc is installed (CI has none) -------------------------------------------


def _nvcc() -> str | None:
    found = os.environ.get("NVCC") or shutil.which("nvcc")
    if found:
        return found
    return "/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").is_file() else None


def _cublaslt_include(nvcc: str) -> Path | None:
    """cublasLt.h: $CUBLASLT_INCLUDE, the toolkit's include/, or the nvidia-cublas wheel's."""
    candidates = (
        [Path(os.environ["CUBLASLT_INCLUDE"])] if os.environ.get("CUBLASLT_INCLUDE") else []
    )
    candidates.append(Path(nvcc).resolve().parent.parent / "include")
    try:
        import nvidia.cu13  # type: ignore[import-not-found]

        candidates.append(Path(next(iter(nvidia.cu13.__path__))) / "include")
    except ImportError:
        pass
    return next((c for c in candidates if (c / "cublasLt.h").is_file()), None)


NVCC = _nvcc()


@pytest.mark.slow_nvcc
@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_the_emitted_sources_compile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """nvcc -c of the kernel source of a one-kernel header with pinned entries (about 1-3 min),
    and of the dispatch and verify_and_time where cublasLt.h is found."""
    assert NVCC is not None
    import cutlass_library

    header = tmp_path / "gemm_kernels.hh"
    header.write_text(with_pinned(legacy(small_header())))
    out = tmp_path / "lib"
    assert _run(["--header", str(header), "--out", str(out)], capsys)[0] == 0
    cutlass = Path(cutlass_library.source_path)
    flags = [
        "-std=c++17",
        "-O3",
        "-gencode=arch=compute_90a,code=sm_90a",
        "--expt-relaxed-constexpr",
    ]
    includes = [f"-I{out / 'include'}", f"-I{out / 'src'}"]
    lt = _cublaslt_include(NVCC)
    sources = [out / "src" / "kernels_0.cu", out / "tools" / "cb_shim.cu"]
    if lt is not None:
        includes.append(f"-I{lt}")
        sources += [out / "src" / "dispatch.cu", out / "tools" / "verify_and_time.cu"]
    cutlass_includes = [f"-I{cutlass / 'include'}", f"-I{cutlass / 'tools' / 'util' / 'include'}"]
    for source in sources:
        command = [
            NVCC,
            *flags,
            *includes,
            *cutlass_includes,
            "-c",
            str(source),
            "-o",
            str(tmp_path / f"{source.stem}.o"),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{source.name}: {proc.stderr[-3000:]}"
        assert (tmp_path / f"{source.stem}.o").stat().st_size > 1000


@pytest.mark.slow_nvcc
@pytest.mark.skipif(NVCC is None or shutil.which("cmake") is None, reason="needs nvcc and cmake")
def test_cmake_configures_every_target_for_sm90a(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cmake -S DIR -B BUILD (no build): both targets compile for sm_90a, CUTLASS_DIR found."""
    assert NVCC is not None
    header = tmp_path / "gemm_kernels.hh"
    header.write_text(small_header())
    out = tmp_path / "lib"
    assert _run(["--header", str(header), "--out", str(out)], capsys)[0] == 0
    # Only configured: a stand-in cuBLASLt root (the nvidia-cublas wheel's layout) where the
    # toolkit has none.
    stand_in = tmp_path / "cu13"
    (stand_in / "include").mkdir(parents=True)
    (stand_in / "lib").mkdir()
    (stand_in / "include" / "cublasLt.h").write_text("")
    (stand_in / "lib" / "libcublasLt.so.13").write_bytes(b"")
    build = tmp_path / "build"
    command = [
        "cmake",
        "-S",
        str(out),
        "-B",
        str(build),
        f"-DCMAKE_CUDA_COMPILER={NVCC}",
        f"-DCUBLASLT_ROOT={stand_in}",
    ]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "lacks 90a" not in proc.stderr
    for target in ("benchspace_gemm", "verify_and_time"):
        flags = (build / "CMakeFiles" / f"{target}.dir" / "flags.make").read_text()
        assert "sm_90a" in flags, target
