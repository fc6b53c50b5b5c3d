"""Batched sweeps through the CUTLASS driver's fake: crash attribution in every way it dies."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.store import Store

KERNELS = [
    f"cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_{tile}_1x2x1_0_tnn_align8_{sched}"
    for tile in ("128x128x64", "128x256x64", "256x128x64")
    for sched in ("warpspecialized_cooperative_epi_tma", "warpspecialized_pingpong_epi_nosmem")
]


def _space(tmp_path: Path) -> Path:
    (tmp_path / "kernels.txt").write_text("\n".join(KERNELS) + "\n")
    space = {
        "format": 1,
        "spaces": [
            {
                "bench": "gemm_eval",
                "exe": "cutlass_bench",
                "reader": "csv",
                "metric": "tflops",
                "direction": "max",
                "flags": ["--csv", "{out}"],
                "arg_spec": ["M", "N", "K", "kernel"],
                "batch": {"param": "kernel", "size": 64},
                "timeout_s": 5,
                "cases": [
                    {
                        "fixed": {"M": m, "N": 512, "K": 256},
                        "tune": {"kernel": {"file": "kernels.txt"}},
                    }
                    for m in (256, 4096)
                ],
            }
        ],
    }
    path = tmp_path / "space.json"
    path.write_text(json.dumps(space))
    return path


def _sweep(
    tmp_path: Path, installer: Callable[..., Path], *extra: str
) -> tuple[int, dict[tuple[int, str], str]]:
    build = tmp_path / "build"
    installer(build, "cutlass_bench", "fake_cutlass_driver.py")
    store = tmp_path / "store.sqlite"
    code = main(
        ["tune", "--space", str(_space(tmp_path)), "--build-dir", str(build), "--out",
         str(tmp_path / "profile.json"), "--store", str(store), "--quiet", *extra]
    )  # fmt: skip
    with Store(store) as s:
        statuses = {(m.case_index, str(m.params["kernel"])): m.status for m in s.attempts()}
    return code, statuses


@pytest.mark.parametrize(
    ("mode", "status"), [("row", "crashed"), ("silent", "crashed"), ("hang", "timeout")]
)
def test_the_configuration_that_killed_the_driver_is_blamed(
    tmp_path: Path,
    installer: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    status: str,
) -> None:
    log = tmp_path / "driver.log"
    monkeypatch.setenv("FAKE_CUTLASS_LOG", str(log))
    monkeypatch.setenv("FAKE_CUTLASS_CRASH", "128x256x64_1x2x1_0_tnn_align8_warpspecialized_coop")
    monkeypatch.setenv("FAKE_CUTLASS_CRASH_MODE", mode)
    # the timeout is per configuration; a batch gets it once per configuration it holds
    code, statuses = _sweep(tmp_path, installer, "--timeout", "0.5" if mode == "hang" else "5")
    assert code == 1
    assert len(statuses) == 2 * len(KERNELS)
    bad = {k for k, v in statuses.items() if v != "ok"}
    assert bad == {(0, KERNELS[2]), (1, KERNELS[2])}
    assert {statuses[k] for k in bad} == {status}
    # per shape: the process that died, then one for the kernels it left unmeasured
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 4
    assert [r[-len(KERNELS) + 3 :] for r in runs[1::2]] == [KERNELS[3:], KERNELS[3:]]


def test_early_failures_are_rows_not_deaths(
    tmp_path: Path, installer: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CUTLASS_FAIL", "cannot_implement:256x128x64,wrong_result:pingpong")
    code, statuses = _sweep(tmp_path, installer)
    assert code == 1
    failed = {k for k, v in statuses.items() if v == "failed"}
    assert len(failed) == 2 * 4  # 256x128 (2 schedules) + the other 2 ping-pong, per shape
    assert sum(v == "ok" for v in statuses.values()) == 2 * 2
