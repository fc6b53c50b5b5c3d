"""ptxas resource reports: parsing and attribution to kernel names."""

from __future__ import annotations

from pathlib import Path

from benchspace.evaluation.cutlass.ptxas import PtxasUsage, parse_ptxas, usage_by_kernel

DATA = Path(__file__).parents[1] / "data" / "cutlass"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
STREAM_K = PREFIX + "128x128x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_nosmem"


def _entry(name: str) -> str:
    return f"_ZN7cutlass13device_kernelI{len(name)}{name}EEvNT_6ParamsE"


def test_recorded_report_of_one_kernel() -> None:
    usage = parse_ptxas((DATA / "ptxas_one_kernel.txt").read_text())
    assert usage == {
        _entry(STREAM_K): PtxasUsage(
            registers=168, stack_frame=0, spill_stores=0, spill_loads=0, smem_static=0
        )
    }
    assert usage_by_kernel(usage, [STREAM_K])[STREAM_K].spills is False


def test_recorded_report_of_two_kernels() -> None:
    plain = PREFIX + "64x64x64_1x1x1_0_tnn_align8_warpspecialized_epi_nosmem"
    auto = PREFIX + "64x64x64_1x1x1_0_tnn_align8"
    usage = usage_by_kernel(
        parse_ptxas((DATA / "ptxas_two_kernels.txt").read_text()), [plain, auto]
    )
    assert {name: u.registers for name, u in usage.items()} == {plain: 60, auto: 168}
    assert not any(u.spills or u.stack_frame for u in usage.values())


def test_spills_smem_and_several_entries() -> None:
    spilling = STREAM_K.replace("128x128x64", "256x256x64")
    text = "\n".join(
        [
            f"ptxas info    : Compiling entry function '{_entry(spilling)}' for 'sm_90a'",
            f"ptxas info    : Function properties for {_entry(spilling)}",
            "    1152 bytes stack frame, 1240 bytes spill stores, 1320 bytes spill loads",
            "ptxas info    : Used 168 registers, used 6 barriers, 1152 bytes cumulative stack "
            "size, 16 bytes smem",
            "ptxas info    : Function properties for _Z6helperv",
            "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
            (DATA / "ptxas_one_kernel.txt").read_text(),
        ]
    )
    usage = usage_by_kernel(parse_ptxas(text), [STREAM_K, spilling, "not_built"])
    assert set(usage) == {STREAM_K, spilling}
    assert usage[spilling] == PtxasUsage(
        registers=168, stack_frame=1152, spill_stores=1240, spill_loads=1320, smem_static=16
    )
    assert usage[spilling].spills and not usage[STREAM_K].spills


def test_a_name_is_matched_by_its_length_prefix_only() -> None:
    longer = STREAM_K + "_x"
    usage = parse_ptxas(
        f"ptxas info    : Compiling entry function '{_entry(longer)}' for 'sm_90a'\n"
        "ptxas info    : Used 90 registers\n"
    )
    assert usage_by_kernel(usage, [STREAM_K]) == {}
    assert usage_by_kernel(usage, [longer])[longer].registers == 90
