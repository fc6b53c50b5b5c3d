"""Batch planning, emission, the build index, and one real nvcc compile of an emitted kernel."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchspace.evaluation.cutlass.batch_index import (
    INDEX_NAME,
    BuildResult,
    load_index,
    record_result,
    write_index,
)
from benchspace.evaluation.cutlass.batch_source import emit_batch, render_batch
from benchspace.evaluation.cutlass.batches import (
    KernelBatch,
    batch_id,
    pending_names,
    plan_batches,
    read_kernel_list,
)
from benchspace.evaluation.cutlass.build import build_one
from benchspace.evaluation.cutlass.catalogue import operations_by_name
from benchspace.evaluation.cutlass.nvcc import NVCC_FLAGS, compile_command
from benchspace.evaluation.cutlass.ptxas import parse_ptxas, usage_by_kernel
from benchspace.harness.errors import BenchspaceError, UsageError

DATA = Path(__file__).parents[1] / "data" / "cutlass"
GOLDEN = DATA / "batch_one_kernel.cu"
# A default-level kernel, so that the catalogue lookup stays fast.
KERNEL = (
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
    "_warpspecialized_pingpong_epi_nosmem"
)
STREAM_K = (
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8"
    "_stream_k_warpspecialized_cooperative_epi_nosmem"
)
REGENERATE = (
    "python -c 'from tests.evaluation.cutlass.test_build import regenerate_golden as r; r()'"
)


@pytest.fixture(scope="module")
def operations() -> dict[str, Any]:
    return operations_by_name([KERNEL], level="default")


def regenerate_golden() -> None:
    """Rewrite the golden batch source (after an intended change to batch.cu.j2)."""
    batch = plan_batches([KERNEL], 8)[0]
    GOLDEN.write_text(render_batch(batch, operations_by_name([KERNEL], level="default")))


def test_plan_keeps_priority_order_and_sorts_inside_a_batch() -> None:
    names = ["k5", "k1", "k4", "k1", "k3", "k2"]
    batches = plan_batches(names, per_tu=2)
    assert [b.names for b in batches] == [("k1", "k5"), ("k3", "k4"), ("k2",)]
    assert plan_batches(names, per_tu=2) == batches
    assert batches[0].library == f"libcb_{batches[0].batch_id}.so"
    assert batches[0].source == f"cb_{batches[0].batch_id}.cu"
    assert len(batches[0].batch_id) == 12


def test_batch_id_hashes_sorted_members_and_flags() -> None:
    assert batch_id(["a", "b"]) == batch_id(["b", "a"])
    assert batch_id(["a", "b"]) != batch_id(["a", "c"])
    assert batch_id(["a"]) != batch_id(["a"], flags=(*NVCC_FLAGS, "-lineinfo"))
    assert plan_batches(["x", "y", "z"], per_tu=3)[0].batch_id == batch_id(["z", "y", "x"])


def test_plan_rejects_a_non_positive_batch_size() -> None:
    with pytest.raises(UsageError, match=r"^--per-tu 0 is not valid; use a positive count"):
        plan_batches(["a"], per_tu=0)


def test_rendered_batch_matches_the_golden_file(operations: dict[str, Any]) -> None:
    batch = plan_batches([KERNEL], 8)[0]
    text = render_batch(batch, operations)
    assert text == GOLDEN.read_text(), f"batch.cu.j2 output changed; regenerate: {REGENERATE}"
    assert f'cb::Runner<{KERNEL}>::entry("{KERNEL}")' in text
    assert text.rstrip().endswith("CB_DEFINE_LIBRARY(kEntries)")


def test_emit_writes_the_translation_unit(tmp_path: Path, operations: dict[str, Any]) -> None:
    batch = plan_batches([KERNEL], 8)[0]
    path = emit_batch(batch, tmp_path / "src", operations)
    assert path == tmp_path / "src" / batch.source
    assert path.read_text() == GOLDEN.read_text()
    assert sorted(p.name for p in path.parent.iterdir()) == [batch.source]


def test_render_refuses_a_name_that_is_not_an_identifier() -> None:
    batch = KernelBatch(batch_id="0" * 12, names=("bad-name",))
    with pytest.raises(UsageError, match=r"^kernel name 'bad-name' is not a C\+\+ identifier"):
        render_batch(batch, {})


def _result(batch: KernelBatch, status: str, error: str = "") -> BuildResult:
    kernels = {
        name: {"library": batch.library, "index": i, "spill_stores": 0}
        for i, name in enumerate(batch.names)
        if status != "failed"
    }
    return BuildResult(batch=batch, status=status, seconds=142.04, kernels=kernels, error=error)


def test_index_records_builds_and_failures(tmp_path: Path) -> None:
    built, failed = plan_batches(["a", "b", "c"], per_tu=2)
    index = load_index(tmp_path)
    record_result(index, _result(built, "built"), "2026-11-29T12:00:00+0000")
    record_result(index, _result(failed, "failed", "error: boom"), "2026-11-29T12:01:00+0000")
    write_index(tmp_path, index)
    (tmp_path / built.library).write_bytes(b"")
    again = load_index(tmp_path)
    assert again == index
    assert again["batches"][built.batch_id]["seconds"] == 142.0
    assert again["batches"][failed.batch_id] | {"error": ""} == {
        "library": failed.library,
        "kernels": ["c"],
        "status": "failed",
        "seconds": 142.0,
        "error": "",
        "finished_at": "2026-11-29T12:01:00+0000",
    }
    assert again["kernels"]["b"] == {"library": built.library, "index": 1, "spill_stores": 0}
    assert pending_names(["a", "b", "c", "d"], again, tmp_path) == ["d"]
    (tmp_path / built.library).unlink()
    assert pending_names(["a", "b", "c", "d"], again, tmp_path) == ["a", "b", "d"]
    text = (tmp_path / INDEX_NAME).read_text()
    assert text == json.dumps(again, indent=2, sort_keys=True) + "\n"


def test_index_of_another_format_is_refused(tmp_path: Path) -> None:
    (tmp_path / INDEX_NAME).write_text('{"format": "other", "version": 1}')
    with pytest.raises(BenchspaceError) as info:
        load_index(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / INDEX_NAME}: $.format/$.version is 'other'/1, expected "
        "'benchspace-cutlass-batches'/1; delete it to rebuild the index"
    )


def test_a_built_library_is_not_rebuilt(tmp_path: Path) -> None:
    batch = KernelBatch(batch_id="0d3eb2351d32", names=(STREAM_K,))
    (tmp_path / "src").mkdir()
    (tmp_path / batch.library).write_bytes(b"not a library")
    shutil.copy(DATA / "ptxas_one_kernel.txt", tmp_path / "src" / "cb_0d3eb2351d32.ptxas.txt")
    result = build_one(batch, tmp_path, operations={}, nvcc="/nonexistent/nvcc")
    assert result.status == "cached"
    assert result.kernels == {
        STREAM_K: {
            "library": batch.library,
            "index": 0,
            "registers": 168,
            "stack_frame": 0,
            "spill_stores": 0,
            "spill_loads": 0,
            "smem_static": 0,
        }
    }


def test_kernel_list_skips_comments_and_blanks(tmp_path: Path) -> None:
    path = tmp_path / "kernels.txt"
    path.write_text("# format: benchspace-kernel-list 1\n\nk1\n  k2  \n# note\n")
    assert read_kernel_list(path) == ["k1", "k2"]
    with pytest.raises(UsageError, match=r"missing.txt: cannot read the kernel list"):
        read_kernel_list(tmp_path / "missing.txt")


@pytest.mark.slow_nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_emitted_kernel_compiles_with_nvcc(tmp_path: Path, operations: dict[str, Any]) -> None:
    """The one real compile (about 80 s): emitted batch -> object, and its ptxas report."""
    batch = plan_batches([KERNEL], 8)[0]
    source = emit_batch(batch, tmp_path, operations)
    command = compile_command("nvcc", source, tmp_path / "k.o", link=False)
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "k.o").stat().st_size > 10_000
    usage = usage_by_kernel(parse_ptxas(proc.stderr + proc.stdout), [KERNEL])
    assert usage[KERNEL].registers > 0
    assert not usage[KERNEL].spills
