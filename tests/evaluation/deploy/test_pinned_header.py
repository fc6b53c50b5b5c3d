"""Pinned cuBLASLt entries in the GEMM header: keys, g++ -Werror, the override naming one."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_kernel_header import CUBLAS, ENV, K1, K2, synthetic_dispatch

from benchspace.evaluation.deploy.dispatch_tree import LEAF, DispatchTree, TreeNode
from benchspace.evaluation.deploy.kernel_header import GemmChoice, GemmDispatch, render_gemm_header
from benchspace.evaluation.deploy.pinned import from_cublas_algo, parse_key
from benchspace.harness.errors import HeaderError, UsageError

P1 = parse_key(
    "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
)
P2 = from_cublas_algo(
    "id=66;tile=60;splitk=2;reduction=2;swizzle=0;custom=2;stages=35;inner=0;cluster=8;ws=1179664;waves=0.273"
)
VERSION = 130100
PROGRAM = """
#include <cstdio>
#include "gemm_kernels.hh"
namespace g = synthetic::gemm;
int main() {
    const long long shapes[][3] = {{64, 64, 64}, {100, 5000, 64}, {4096, 64, 64}};
    for (const auto& s : shapes) {
        const auto c = g::gemm_kernel_for(s[0], s[1], s[2]);
        const g::CublasLtConfig* p = g::gemm_pinned_config(c.kernel);
        std::printf("%s %d\\n", g::gemm_kernel_name(c.kernel), p ? p->tile : -1);
    }
    static_assert(g::kNumPinned == 2 && g::kFirstPinned == 2, "two pinned after two kernels");
    static_assert(g::kCublasLtVersion == 130100, "the version measured with");
    static_assert(g::gemm_kernel_default(100, 5000, 64).kernel == g::GemmKernel::PINNED_ONE, "");
    static_assert(g::gemm_pinned_config(g::GemmKernel::cublas) == nullptr, "cublas is not pinned");
    static_assert(g::gemm_pinned_config(g::GemmKernel::PINNED_TWO)->splitk == 2, "split-K 2");
    return 0;
}
"""


def pinned_dispatch() -> GemmDispatch:
    """SYNTHETIC: M <= 1024: N <= 1024 runs K1, else pinned P1; M > 1024: cublas."""
    base = synthetic_dispatch()
    nodes = (
        TreeNode(dim=0, edge=1024, left=1, right=4),
        TreeNode(dim=1, edge=1024, left=2, right=3),
        TreeNode(dim=LEAF, choice=0, samples=4),
        TreeNode(dim=LEAF, choice=1, samples=4),
        TreeNode(dim=LEAF, choice=2, samples=4),
    )
    return dataclasses.replace(
        base,
        tree=DispatchTree(nodes=nodes),
        choices=(GemmChoice(kernel=K1), GemmChoice(kernel=P1.enum_name), GemmChoice(kernel=CUBLAS)),
        kernels=(K1, K2, P1.enum_name, P2.enum_name, CUBLAS),
        pinned=(P1, P2),
        cublaslt_version=VERSION,
    )


def test_keys_round_trip_and_bad_keys_name_the_attribute() -> None:
    assert P1.key.startswith("cublaslt:id=66;tile=194;splitk=1;")
    assert parse_key(P1.key) == P1
    assert P2.enum_name == "cublaslt_66_60_2_2_0_2_35_0_8"
    assert (
        P2.key
        == "cublaslt:id=66;tile=60;splitk=2;reduction=2;swizzle=0;custom=2;stages=35;inner=0;"
        "cluster=8"
    )
    with pytest.raises(UsageError, match="stages"):
        parse_key(P1.key.replace("stages=35", "stage=35"))
    with pytest.raises(UsageError, match="9 attributes"):
        parse_key(P1.key + ";ws=0")  # a key holds exactly the nine
    with pytest.raises(UsageError, match="cublaslt:"):
        parse_key("cublas:algo0")


def test_a_header_without_pinned_entries_declares_none() -> None:
    text = render_gemm_header(synthetic_dispatch())
    assert "inline constexpr int32_t kNumPinned = 0;" in text
    assert "inline constexpr int64_t kCublasLtVersion = 0;" in text
    assert "inline constexpr int32_t kFirstPinned = 3;" in text


def test_pinned_entries_sit_between_the_kernels_and_cublas() -> None:
    text = render_gemm_header(pinned_dispatch())
    enum = text[text.index("enum class GemmKernel") : text.index("};")]
    assert (
        enum.index(K2)
        < enum.index(P1.enum_name)
        < enum.index(P2.enum_name)
        < enum.index("cublas =")
    )
    assert f'"{P1.key}",' in text  # the override's name is the key
    assert "{66, 194, 1, 0, 0, 6, 35, 0, 5},  // cublaslt:id=66;tile=194;" in text
    assert f"leaf: {P1.key} (4 samples)" in text
    assert "kCublasLtVersion = 130100;" in text


def test_inconsistent_pinned_entries_are_refused() -> None:
    good = pinned_dispatch()
    with pytest.raises(HeaderError, match="no cuBLASLt version"):
        render_gemm_header(dataclasses.replace(good, cublaslt_version=0))
    with pytest.raises(HeaderError, match="between the CUTLASS kernels"):
        render_gemm_header(
            dataclasses.replace(good, kernels=(K1, P1.enum_name, K2, P2.enum_name, CUBLAS))
        )
    with pytest.raises(HeaderError, match="listed twice"):
        render_gemm_header(
            dataclasses.replace(good, pinned=(P1, P1), kernels=(K1, K2, P1.enum_name, CUBLAS))
        )


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp("pinned_header")
    (folder / "gemm_kernels.hh").write_text(render_gemm_header(pinned_dispatch()))
    source = PROGRAM.replace("PINNED_ONE", P1.enum_name).replace("PINNED_TWO", P2.enum_name)
    (folder / "main.cc").write_text(source)
    argv = [
        gxx,
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{folder}",
        str(folder / "main.cc"),
    ]
    proc = subprocess.run(
        [*argv, "-o", str(folder / "main")], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return folder / "main"


def _run(program: Path, value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if value is not None:
        env[ENV] = value
    return subprocess.run(
        [str(program)], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()


def test_compiled_header_dispatches_the_pinned_leaf(program: Path) -> None:
    assert _run(program, None) == [f"{K1} -1", f"{P1.key} 194", f"{CUBLAS} -1"]


def test_the_override_names_a_pinned_entry_by_its_key(program: Path) -> None:
    assert _run(program, P2.key) == [f"{P2.key} 60"] * 3
    assert _run(program, P2.enum_name) == _run(program, None)  # the enumerator is not its name
    assert _run(program, CUBLAS) == [f"{CUBLAS} -1"] * 3
