"""The driver's CSV: parsing recorded output, configurations, and the fake driver's modes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.driver_csv import (
    COLUMNS,
    ROW_FIELDS,
    STATUSES,
    BenchRow,
    KernelRunConfig,
    missing_configs,
    parse_config,
    parse_output,
    rows_frame,
)
from benchspace.harness.errors import ReaderError, UsageError

DATA = Path(__file__).parents[1] / "data" / "cutlass"
FAKE = Path(__file__).parents[2] / "fakes" / "fake_cutlass_driver.py"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
COOP = PREFIX + "256x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"
PING = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
SK = PREFIX + "128x128x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_nosmem"


def test_recorded_output_with_every_early_status() -> None:
    out = parse_output((DATA / "bench_4096.csv").read_text())
    assert out.header_seen and out.malformed == ()
    assert [r.status for r in out.rows] == [
        "cannot_implement",
        "unknown_kernel",
        "launch_error",
        "wrong_result",
        "ok",
        "ok",
        "ok",
    ]
    coop = out.rows[4]
    assert coop == BenchRow(
        config=COOP,
        name=COOP,
        m=4096,
        n=4096,
        k=4096,
        raster="H",
        swizzle=1,
        status="ok",
        ms_mean=0.205113,
        ms_stdev=0.002871,
        tflops=670.07,
        rel_err=1.6601e-03,
        nonfinite=0,
        smem_bytes=230400,
        stages=4,
        regs=168,
        local_bytes=0,
        sm_clock_mhz=1515.0,
        power_w=692.4,
    )
    assert coop.ok and not out.rows[3].ok
    assert out.rows[3].rel_err == pytest.approx(0.32118) and out.rows[3].nonfinite == 4096
    assert out.rows[1].smem_bytes is None and out.rows[1].ms_mean is None
    assert (out.rows[5].raster, out.rows[5].swizzle, out.rows[5].name) == ("N", 4, SK)
    assert out.rows[6].sm_clock_mhz is None and out.rows[6].power_w is None
    frame = rows_frame(out.rows)
    assert list(frame.columns) == list(ROW_FIELDS) and len(frame) == 7


def test_cut_line_and_noise_around_the_table() -> None:
    text = (DATA / "bench_4096.csv").read_text()
    lines = text.splitlines()
    cut = lines[5][:40]
    out = parse_output("loading libraries\n" + "\n".join([*lines[:5], cut]))
    assert len(out.rows) == 4 and out.malformed == (cut,)
    assert parse_output("cutlass_bench: no device\n") == parse_output("")
    assert not parse_output("").header_seen


def test_unknown_status_and_bad_numbers_are_errors() -> None:
    header = ",".join(COLUMNS)
    row = f"{PING},{PING},1,2,3,H,1,exploded" + "," * 11
    with pytest.raises(ReaderError, match=r"status 'exploded' is unknown in row"):
        parse_output(f"{header}\n{row}\n")
    row = f"{PING},{PING},1,2,3,H,1,ok,fast" + "," * 10
    with pytest.raises(ReaderError, match=r"column 'ms_mean' holds 'fast', not a number"):
        parse_output(f"{header}\n{row}\n")
    with pytest.raises(ReaderError, match=r"header lacks column\(s\) power_w; rebuild the driver"):
        parse_output(header.replace(",power_w", "") + "\n")


def test_configurations_round_trip() -> None:
    assert parse_config(PING) == KernelRunConfig(name=PING)
    assert parse_config(f"{SK}:N:4") == KernelRunConfig(name=SK, raster="N", swizzle=4)
    assert parse_config(f"{SK}:M") == KernelRunConfig(name=SK, raster="M")
    for text in (PING, f"{SK}:M", f"{SK}:N:4", f"{SK}:H:2"):
        assert parse_config(text).text == text
    assert KernelRunConfig(name=PING, raster="H", swizzle=1).text == PING
    for bad in ("", "a-b", f"{PING}:X", f"{PING}:H:3", f"{PING}:H:2:1"):
        with pytest.raises(UsageError, match=r"is not valid; write <kernel_name>"):
            parse_config(bad)


def test_missing_configs_follow_the_argument_order() -> None:
    rows = parse_output((DATA / "bench_4096.csv").read_text()).rows
    configs = [r.config for r in rows]
    assert missing_configs(configs, rows) == []
    assert missing_configs(["x", configs[4], "y", configs[4]], rows) == ["x", "y", configs[4]]


def _fake(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "FAKE_CUTLASS_LOG": str(tmp_path / "log.jsonl"), **env}
    return subprocess.run(
        [sys.executable, str(FAKE), "--lib-dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=30,
        check=False,
    )


def test_fake_prints_early_failures_first_then_ok_rows(tmp_path: Path) -> None:
    configs = [f"{COOP}:M:2", PING, f"{SK}:N"]
    proc = _fake(
        ["4096", "4096", "4096", *configs], tmp_path, FAKE_CUTLASS_FAIL="wrong_result:ping"
    )
    assert proc.returncode == 0
    out = parse_output(proc.stdout)
    assert [(r.config, r.status) for r in out.rows] == [
        (PING, "wrong_result"),
        (f"{COOP}:M:2", "ok"),
        (f"{SK}:N", "ok"),
    ]
    assert all(r.tflops and r.ms_mean for r in out.rows[1:])
    assert proc.stderr.splitlines()[0] == f"cutlass_bench: running {COOP}:M:2"
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 1
    again = parse_output(_fake(["4096", "4096", "4096", *configs], tmp_path).stdout)
    assert again.rows[0] == out.rows[1]


def test_fake_crash_leaves_a_crashed_row_for_the_config_in_flight(tmp_path: Path) -> None:
    configs = [COOP, PING, SK]
    proc = _fake(["512", "512", "512", *configs], tmp_path, FAKE_CUTLASS_CRASH="pingpong")
    assert proc.returncode == -signal.SIGSEGV
    rows = parse_output(proc.stdout).rows
    assert [(r.config, r.status) for r in rows] == [(PING, "crashed")]
    assert missing_configs(configs, rows) == [COOP, SK]


def test_fake_silent_death_and_lost_context(tmp_path: Path) -> None:
    configs = [COOP, PING, SK]
    silent = _fake(
        ["512", "512", "512", *configs],
        tmp_path,
        FAKE_CUTLASS_CRASH="pingpong",
        FAKE_CUTLASS_CRASH_MODE="silent",
    )
    assert silent.returncode == -signal.SIGKILL
    out = parse_output(silent.stdout)
    assert out.header_seen and out.rows == ()
    assert silent.stderr.splitlines()[-1] == f"cutlass_bench: running {PING}"
    lost = _fake(
        ["512", "512", "512", *configs],
        tmp_path,
        FAKE_CUTLASS_CRASH="stream_k",
        FAKE_CUTLASS_CRASH_MODE="context",
    )
    assert lost.returncode == 3
    assert [(r.config, r.status) for r in parse_output(lost.stdout).rows] == [(SK, "launch_error")]


def test_fake_hang_is_stopped_by_the_caller(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(
            [sys.executable, str(FAKE), "64", "64", "64", PING],
            env={**os.environ, "FAKE_CUTLASS_CRASH": PING, "FAKE_CUTLASS_CRASH_MODE": "hang"},
            capture_output=True,
            timeout=1,
            check=False,
        )


def test_fake_describe_and_csv_file(tmp_path: Path) -> None:
    described = json.loads(_fake(["--describe"], tmp_path).stdout)
    assert described["columns"] == ",".join(COLUMNS)
    assert tuple(described["statuses"]) == STATUSES
    out_file = tmp_path / "out.csv"
    proc = _fake(["--csv", str(out_file), "64", "64", "64", PING], tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    assert [r.status for r in parse_output(out_file.read_text()).rows] == ["ok"]
    assert _fake(["64", "64"], tmp_path).returncode == 2


def test_a_pinned_cublaslt_configuration_round_trips_through_its_text() -> None:
    from benchspace.evaluation.cutlass.driver_csv import pinned_attributes, pinned_key

    attrs = "id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
    key = pinned_key(attrs + ";ws=0;waves=0.985;words=00ab.00cd")
    assert key == "cublaslt:" + attrs
    config = parse_config(key)
    assert config.cublas and config.pinned and config.text == key
    assert pinned_attributes(key) == (66, 194, 1, 0, 0, 6, 35, 0, 5)
    assert not parse_config("cublas:algo3").pinned


def test_a_pinned_configuration_needs_all_nine_attributes_in_order() -> None:
    from benchspace.evaluation.cutlass.driver_csv import pinned_key

    assert pinned_key("id=66;tile=194") == ""
    assert pinned_key("") == ""
    for bad in (
        "cublaslt:id=66;tile=194",
        "cublaslt:tile=194;id=66;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5",
        "cublaslt:id=x;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5",
    ):
        with pytest.raises(UsageError, match="not a pinned cuBLASLt configuration"):
            parse_config(bad)
