"""The catalogue against cutlass_library's own manifest, name parsing and the CLI action."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import (
    FIELDS,
    enumerate_operations,
    field_counts,
    load_catalogue,
    operation_record,
    operations_by_name,
    parse_kernel_name,
)
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError


def manifest_operations(level_args: list[str]) -> list[Any]:
    """Operations straight from the generator, without evaluation.cutlass.catalogue's filtering."""
    from cutlass_library import generator
    from cutlass_library.manifest import Manifest

    args = generator.define_parser().parse_args(
        ["--operations", "gemm", "--architectures", "90a", "--cuda-version", "13.0",
         "--kernels", "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_*", *level_args]
    )  # fmt: skip
    manifest = Manifest(args)
    generator.GenerateSM90_TensorOp_16b_WGMMA_gemm(manifest, args.cuda_version)
    return [
        op
        for by_cc in manifest.operations.values()
        for by_name in by_cc.values()
        for ops in by_name.values()
        for op in ops
        if op.D.element.name == "bf16"
    ]


def independent_counts(ops: list[Any]) -> dict[str, Counter[str]]:
    """Field counts computed from the raw GemmOperation attributes."""
    scheduler = {"Default": "default", "Persistent": "persistent", "StreamK": "stream_k"}
    return {
        "tile": Counter("x".join(map(str, op.tile_description.threadblock_shape)) for op in ops),
        "cluster": Counter(
            f"{op.tile_description.cluster_shape[0]}x{op.tile_description.cluster_shape[1]}"
            for op in ops
        ),
        "kernel_schedule": Counter(op.kernel_schedule.name for op in ops),
        "epilogue_schedule": Counter(op.epilogue_schedule.name for op in ops),
        "tile_scheduler": Counter(scheduler[op.tile_scheduler.name] for op in ops),
        "layout": Counter(op.layout_name_3x() for op in ops),
        "c_type": Counter(op.C.element.name for op in ops),
    }


def test_default_level_counts_match_the_manifest(catalogue: pd.DataFrame) -> None:
    raw = manifest_operations([])
    assert len(raw) == 472
    assert len(catalogue) == 472
    counts = field_counts(catalogue)
    for field, expected in independent_counts(raw).items():
        assert counts[field] == dict(sorted(expected.items())), field
    assert counts["layout"] == {"nnn": 118, "ntn": 118, "tnn": 118, "ttn": 118}
    # The research note's figures for the default level.
    assert counts["c_type"] == {"bf16": 264, "void": 208}
    assert counts["kernel_schedule"] == {
        "ScheduleAuto": 40,
        "TmaWarpSpecialized": 40,
        "TmaWarpSpecializedCooperative": 240,
        "TmaWarpSpecializedPingpong": 152,
    }
    assert counts["tile_scheduler"] == {"default": 352, "stream_k": 120}
    assert counts["stages"] == {"0": 472}


def test_catalogue_columns_and_ids(catalogue: pd.DataFrame) -> None:
    assert tuple(catalogue.columns) == FIELDS
    assert catalogue["name"].is_unique
    assert list(catalogue["name"]) == sorted(catalogue["name"])
    assert set(catalogue["align_a"]) == {8}


def test_layout_filter() -> None:
    tnn = load_catalogue("default", ["tnn"])
    assert len(tnn) == 118
    assert set(tnn["layout"]) == {"tnn"}


@pytest.mark.parametrize("d_type", ["bf16", "f32"])
def test_parse_kernel_name_inverts_the_procedural_name(d_type: str) -> None:
    ops = enumerate_operations("default", d_type=d_type)
    assert ops
    for op in ops:
        assert parse_kernel_name(op.procedural_name()) == operation_record(op)


def test_record_of_a_known_kernel() -> None:
    name = (
        "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x256x64_1x2x1_0_tnn_align8"
        "_stream_k_warpspecialized_cooperative_epi_tma"
    )
    record = operation_record(operations_by_name([name])[name])
    assert (record.tm, record.tn, record.tk, record.cm, record.cn) == (128, 256, 64, 1, 2)
    assert record.kernel_schedule == "TmaWarpSpecializedCooperative"
    assert record.epilogue_schedule == "TmaWarpSpecializedCooperative"
    assert record.tile_scheduler == "stream_k"
    assert (record.layout, record.c_type, record.stages) == ("tnn", "void", 0)


def test_invalid_inputs_name_the_fix() -> None:
    with pytest.raises(UsageError, match=r"instantiation level '12' is not valid; use 'default'"):
        enumerate_operations("12")
    with pytest.raises(UsageError, match=r"layouts \['tnt'\] are not valid; choose from nnn"):
        enumerate_operations("default", ["tnt"])
    with pytest.raises(UsageError, match=r"'gemm_x' is not an SM90 bf16 GEMM procedural name"):
        parse_kernel_name("gemm_x")
    with pytest.raises(UsageError, match=r"1 kernel name\(s\) are not in the 'default' catalogue"):
        operations_by_name(["cutlass3x_sm90_nope"])


def test_cli_prints_counts_by_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cutlass", "catalogue", "--level", "default"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "level default: 472 kernels"
    for heading in ("tile:", "cluster:", "kernel_schedule:", "epilogue_schedule:",
                    "tile_scheduler:", "layout:", "c_type:"):  # fmt: skip
        assert heading in out
    assert "  256x256x64  88" in out
    assert "  stream_k  120" in out


def test_cli_json_and_names(capsys: pytest.CaptureFixture[str], catalogue: pd.DataFrame) -> None:
    assert main(["cutlass", "catalogue", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["total"] == 472
    assert document["counts"] == field_counts(catalogue)
    assert main(["cutlass", "catalogue", "--layouts", "tnn", "--names"]) == 0
    names = capsys.readouterr().out.split()
    assert names == list(catalogue[catalogue["layout"] == "tnn"]["name"])


def test_cli_without_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cutlass"]) == 2
    assert "cutlass needs an action: catalogue, shapes" in capsys.readouterr().err


@pytest.mark.skipif(
    not os.environ.get("BENCHSPACE_SLOW"),
    reason="enumerates the max level (~6 s); BENCHSPACE_SLOW=1",
)
def test_max_level_counts() -> None:
    catalogue = load_catalogue("max")
    assert len(catalogue) == 15132
    assert field_counts(catalogue)["layout"] == dict.fromkeys(("nnn", "ntn", "tnn", "ttn"), 3783)
    assert all(parse_kernel_name(n).name == n for n in catalogue["name"])
