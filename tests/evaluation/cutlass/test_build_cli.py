"""``benchspace cutlass build``: real options, and a one-line error where nvcc is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.harness.cli import main

KERNEL = (
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
    "_warpspecialized_pingpong_epi_nosmem"
)
NO_NVCC = "error: nvcc not found on PATH; install CUDA 13 or set NVCC=/path/to/nvcc\n"


@pytest.fixture
def kernels(tmp_path: Path) -> Path:
    path = tmp_path / "kernels.txt"
    path.write_text(f"# format: benchspace-kernel-list 1\n{KERNEL}\n")
    return path


@pytest.fixture
def no_nvcc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NVCC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["cutlass", "build", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--kernels", "--build-dir", "--per-tu", "--jobs", "--limit", "--no-driver"):
        assert option in out


@pytest.mark.usefixtures("no_nvcc")
def test_options_parse_and_reach_the_build(
    kernels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build = tmp_path / "build"
    argv = ["cutlass", "build", "--kernels", str(kernels), "--build-dir", str(build)]
    assert main([*argv, "--no-driver", "--per-tu", "4", "--jobs", "2", "--limit", "1"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "1 kernels, 0 already built or failed; 1 batches to build\n"
    assert captured.err == NO_NVCC
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", NO_NVCC)


def test_an_nvcc_that_does_not_run_is_one_line(
    kernels: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing = tmp_path / "cuda" / "bin" / "nvcc"
    monkeypatch.setenv("NVCC", str(missing))
    argv = ["cutlass", "build", "--kernels", str(kernels), "--build-dir", str(tmp_path / "b")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: {missing}: cannot run nvcc (No such file or directory); "
        "set NVCC to a CUDA 13 toolkit's nvcc\n"
    )


def test_a_missing_kernel_list_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["cutlass", "build", "--kernels", str(tmp_path / "nope.txt"), "--no-driver"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / 'nope.txt'}: cannot read the kernel list (No such file or directory)\n"
    )


def test_help_imports_no_action() -> None:
    """``benchspace --help`` and ``benchspace cutlass --help`` load no action module."""
    probe = (
        "import sys\n"
        "from benchspace.harness.cli import main\n"
        "for argv in (['--help'], ['cutlass', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "prefixes = ('benchspace.evaluation', 'benchspace.harness.cli.cutlass.')\n"
        "loaded = [m for m in sys.modules if m.startswith(prefixes)]\n"
        "heavy = [m for m in ('pandas', 'cutlass_library', 'xgboost') if m in sys.modules]\n"
        "print(sorted(loaded), heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.stderr.strip() == "[] []"


def test_an_action_missing_its_extra_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    import benchspace.harness.cli.cutlass as dispatcher

    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> object:
        if name.startswith("benchspace.harness.cli.cutlass."):
            raise ModuleNotFoundError("No module named 'pandas'", name="pandas")
        return real(name, package)

    monkeypatch.setattr(dispatcher.importlib, "import_module", fake)
    assert main(["cutlass", "summary", "somewhere"]) == 1
    assert capsys.readouterr().err == (
        "error: 'benchspace cutlass summary' needs pandas, which is not installed: "
        "pip install 'benchspace[cutlass]'\n"
    )
