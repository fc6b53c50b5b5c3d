"""Several GPUs on one host, with stand-in GPUs: ``--gpus all``, sharding, one process per GPU
at a time, and a GPU whose worker fails taken out of the sweep.

The GPUs are ``CUDA_VISIBLE_DEVICES`` values that a shim executable reads: it logs when it
starts and ends on which GPU, and crashes (SIGSEGV) on the GPU named bad. The measuring part
(speed-up and timings that agree between 1 and N GPUs) needs a multi-GPU machine:
``benchmarks/multi_gpu.py``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError
from benchspace.harness.execute.gpus import GpuPool, parse_gpus

FAKES = Path(__file__).resolve().parents[2] / "fakes"
UUIDS = "GPU-aaaa-0001\nGPU-aaaa-0002\n"


def _no_smi() -> str:
    raise AssertionError("nvidia-smi must not be asked")


def test_all_is_cuda_visible_devices_when_set() -> None:
    assert parse_gpus("all", {"CUDA_VISIBLE_DEVICES": "2, 3"}, _no_smi) == ["2", "3"]


def test_all_is_every_gpu_nvidia_smi_lists_by_uuid() -> None:
    assert parse_gpus("all", {}, lambda: UUIDS) == ["GPU-aaaa-0001", "GPU-aaaa-0002"]


def test_all_without_a_gpu_is_one_line() -> None:
    with pytest.raises(UsageError, match=r"^--gpus all: no GPU found .*name the GPUs, e.g."):
        parse_gpus("all", {}, lambda: "")


def test_a_gpu_named_twice_is_refused() -> None:
    with pytest.raises(UsageError, match=r"^--gpus: GPU 1 is named twice; name each GPU once$"):
        parse_gpus("0,1,1", {}, _no_smi)


def test_an_explicit_list_is_kept_in_order() -> None:
    assert parse_gpus("1,0", {}, _no_smi) == ["1", "0"]


def test_a_gpu_is_retired_after_failing_alone_in_a_row_but_never_the_last() -> None:
    pool = GpuPool(["0", "1", "2"], retire_after=2)
    assert not pool.failed_alone("1")
    pool.passed("1")  # a job ran to the end: the streak starts again
    assert not pool.failed_alone("1")
    assert pool.failed_alone("1")
    assert pool.live() == ["0", "2"]
    assert not pool.failed_alone("2") and pool.failed_alone("2")
    for _ in range(5):
        assert not pool.failed_alone("0")
    assert pool.live() == ["0"]


def test_take_skips_the_suspect_and_the_retired_gpus() -> None:
    pool = GpuPool(["0", "1", "2"], retire_after=1)
    pool.failed_alone("1")
    assert pool.take() == "0"
    assert pool.take_other("0") == "2"
    pool.give("1")  # a retired GPU given back stays out
    pool.give("2")
    assert pool.take() == "2"


def test_a_waiting_retry_gets_the_next_free_gpu_before_new_work() -> None:
    pool = GpuPool(["0", "1"])
    assert pool.take() == "0" and pool.take() == "1"
    got: dict[str, str | None] = {}
    retry = threading.Thread(target=lambda: got.update(retry=pool.take_other("1")))
    retry.start()
    while "1" not in pool._suspects:  # the retry is waiting for another GPU
        time.sleep(0.001)
    fresh = threading.Thread(target=lambda: got.update(fresh=pool.take()))
    fresh.start()
    time.sleep(0.05)  # new work waiting too
    pool.give("0")
    retry.join(timeout=5)
    assert got.get("retry") == "0" and "fresh" not in got
    pool.give("1")  # the retry ends: the suspect GPU is free for new work
    fresh.join(timeout=5)
    assert got.get("fresh") == "1"


def test_take_other_gives_up_when_every_other_gpu_is_suspect() -> None:
    pool = GpuPool(["0", "1"])
    assert pool.take() == "0" and pool.take() == "1"
    pool._suspects.add("1")  # the worker on GPU 1 waits for another GPU too
    assert pool.take_other("0") is None


SHIM = """#!/bin/sh
echo "$CUDA_VISIBLE_DEVICES start $$" >> "{log}"
if [ "$CUDA_VISIBLE_DEVICES" = "$FAKE_BAD_GPU" ]; then kill -SEGV $$; fi
"{python}" "{fake}" "$@"
rc=$?
echo "$CUDA_VISIBLE_DEVICES end $$" >> "{log}"
exit $rc
"""


def _sweep(
    tmp_path: Path, write_space: Callable[..., Path], gpus: str, repeats: int = 1, **env: str
) -> Any:
    log = tmp_path / "gpu.log"
    exe = tmp_path / "build" / "benchmarks" / "fake_benchmark"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(SHIM.format(log=log, python=sys.executable, fake=FAKES / "fake_bench.py"))
    exe.chmod(0o755)
    bench = {
        "bench": "fake",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": n}, "tune": {"block": [8, 16, 32, 64]}} for n in (64, 128, 256)],
    }
    space = write_space([bench])
    out = tmp_path / "p.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(tmp_path / "build")]
    argv += ["--out", str(out), "--gpus", gpus, "--repeats", str(repeats), "--quiet"]
    return main(argv), out, log


def _events(log: Path) -> list[tuple[str, str, str]]:
    return [tuple(line.split()) for line in log.read_text().splitlines()]  # type: ignore[misc]


def test_work_spreads_over_the_gpus_one_process_each_at_a_time(
    tmp_path: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, log = _sweep(tmp_path, write_space, "0,1,2")
    assert rc == 0
    events = _events(log)
    running: dict[str, int] = {}
    peak = 0
    for gpu, what, _pid in events:
        running[gpu] = running.get(gpu, 0) + (1 if what == "start" else -1)
        assert running[gpu] <= 1, f"two processes on GPU {gpu} at once"
        peak = max(peak, sum(running.values()))
    per_gpu = {g: sum(1 for e in events if e[0] == g and e[1] == "start") for g in "012"}
    assert sum(per_gpu.values()) == 12 and min(per_gpu.values()) >= 1, per_gpu
    assert peak >= 2  # the GPUs ran side by side
    devices = {device for device, status in _rows(out, "device, status") if status == "ok"}
    assert devices == {"gpu:0", "gpu:1", "gpu:2"}


def _rows(out: Path, columns: str) -> list[tuple[str, ...]]:
    store = sqlite3.connect(out.with_name("p.store.sqlite"))
    return list(store.execute(f"SELECT {columns} FROM attempts"))


def test_a_failing_gpu_is_retired_and_every_configuration_passes_elsewhere(
    tmp_path: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_BAD_GPU", "1")
    # 24 jobs: GPU 1 reaches its third failure long before GPUs 0 and 2 empty the queue, even
    # on a loaded machine (with 12, a slow retry cycle could leave it at two).
    rc, out, log = _sweep(tmp_path, write_space, "0,1,2", repeats=2)
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "warning: GPU 1 retired after 3 jobs in a row failed on it and passed on another" in err
    rows = list(_rows(out, "device, status, extra"))
    assert len(rows) == 24 and {r[1] for r in rows} == {"ok"}
    assert {r[0] for r in rows} <= {"gpu:0", "gpu:2"}
    reruns = [json.loads(r[2]) for r in rows if "retried_after_gpu" in r[2]]
    assert len(reruns) == 3
    assert all(x["retried_after_gpu"] == "1" and x["first_status"] == "crashed" for x in reruns)
    assert sum(1 for g, what, _ in _events(log) if g == "1" and what == "start") == 3


def test_a_configuration_that_fails_everywhere_is_its_own_failure(
    tmp_path: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_CRASH_AT", "16")  # block 16 crashes on every GPU
    rc, out, _log = _sweep(tmp_path, write_space, "0,1")
    err = capsys.readouterr().err
    assert rc == 1 and "retired" not in err
    crashed = [r for r in _rows(out, "status, params") if r[0] in ("crashed", "failed")]
    assert len(crashed) == 3 and all('"block": 16' in r[1] for r in crashed)
