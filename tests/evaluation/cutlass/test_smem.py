"""Stage counts and shared-memory sizes against the values nvcc computes from CUTLASS 4.2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name, records_frame
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.smem import (
    auto_stages,
    epilogue_storage_bytes,
    resolved_stages,
    smem_total_bytes,
)

NVCC = Path(__file__).parents[1] / "data" / "cutlass_smem_nvcc.csv"


def nvcc_table() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = pd.read_csv(NVCC, comment="#")
    return table, records_frame(parse_kernel_name(name) for name in table["name"])


def test_auto_stages_and_epilogue_storage_match_nvcc(h200: Hardware) -> None:
    table, configs = nvcc_table()
    assert len(table) == 405
    np.testing.assert_array_equal(epilogue_storage_bytes(configs), table["epilogue_bytes"])
    np.testing.assert_array_equal(auto_stages(configs, h200), table["stages"])


def test_total_shared_memory_within_128_bytes_of_nvcc(h200: Hardware) -> None:
    table, configs = nvcc_table()
    total = smem_total_bytes(configs, auto_stages(configs, h200))
    assert np.abs(total - table["smem_bytes"].to_numpy()).max() <= 128


def test_stages_the_h200_probe_reported(h200: Hardware) -> None:
    prefix = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
    names = [
        # 128x256x64 cooperative, TMA epilogue: 4 stages.
        f"{prefix}128x256x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma",
        # 128x128x64 ping-pong, TMA epilogue: 6 stages.
        f"{prefix}128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma",
    ]
    configs = records_frame(parse_kernel_name(n) for n in names)
    # 128x256x64: stage = (128+256)*64*2 + 16 = 49168; epilogue 128x32 tile, 8 epilogue tiles,
    # void C: D buffers 128*32*2 stages*2 B = 16384 -> 17408 (+fusion, 1 KiB aligned) + 4*16
    # barriers -> 18432; (232448 - 18432) // 49168 = 4.
    # 128x128x64 ping-pong: stage 32784; epilogue 64x32 tile: 64*32*2*2 = 8192 -> 9216 + 64 ->
    # 10240; (232448 - 10240) // 32784 = 6.
    assert list(auto_stages(configs, h200)) == [4, 6]
    assert list(epilogue_storage_bytes(configs)) == [18432, 10240]


def test_explicit_stages_win(h200: Hardware) -> None:
    _, configs = nvcc_table()
    explicit = configs.assign(stages=3)
    assert set(resolved_stages(explicit, h200)) == {3}
