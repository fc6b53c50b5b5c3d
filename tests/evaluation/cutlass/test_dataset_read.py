"""The one dataset reader: both versions into one record, upgrades at load, the shipped-data
fallback, one-line errors for unreadable bytes, and the summary command outside the checkout."""

from __future__ import annotations

import copy
import csv
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.dataset import VERSION, DatasetError, candidate_table
from benchspace.evaluation.cutlass.dataset_read import (
    READERS,
    load_dataset,
    read_v1,
    resolve_dataset_path,
)
from benchspace.evaluation.cutlass.dataset_runs import ROUND_COLUMNS, UPGRADES, upgrade_v1
from benchspace.harness.cli import main

ROOT = Path(__file__).resolve().parents[3]
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
K1 = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
K2 = PREFIX + "128x256x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_tma"
SHAPE = (1088, 736, 896)
"""The first evaluation shape of the shipped v2 shape-set file (classes: interior, square...)."""


def _v2_folder(folder: Path) -> Path:
    """A CRAFTED version-2 folder: one exhaustive run of SHAPE, two kernels and cuBLASLt."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "provenance.json").write_text(
        json.dumps({"format": "benchspace-cutlass-dataset", "version": 2, "gpu": "NVIDIA H200"})
    )
    times = {K1: 0.02, K2: 0.03, "cublas:heuristic": 0.025, "cublas:algo0": 0.025}
    m, n, k = SHAPE
    rounds, t = [], 0.0
    for rnd in range(3):
        for seq, (config, ms) in enumerate(times.items()):
            t += 0.001
            rounds.append(
                {"run": f"eval-{m}x{n}x{k}-x", "split": "eval", "pass": "x", "config": config,
                 "M": m, "N": n, "K": k, "round": rnd, "seq": seq, "ms": ms,
                 "sm_clock_mhz": 1500, "power_w": 690.0, "t_s": round(t, 4)}
            )  # fmt: skip
    with gzip.open(folder / "rounds_c1_eval.csv.gz", "wt", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(ROUND_COLUMNS))
        writer.writeheader()
        writer.writerows(rounds)
    fields = ["run", "split", "pass", "config", "name", "M", "N", "K", "status"]
    with gzip.open(folder / "rows_c1_eval.csv.gz", "wt", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for r in rounds[: len(times)]:
            writer.writerow({**{f: r.get(f, "") for f in fields}, "name": r["config"],
                             "status": "ok"})  # fmt: skip
    return folder


def test_every_version_has_a_reader_and_every_older_one_an_upgrade() -> None:
    assert sorted(READERS) == list(range(1, VERSION + 1))
    assert sorted(UPGRADES) == list(range(1, VERSION))


def test_both_versions_read_into_one_record(tmp_path: Path) -> None:
    v1 = load_dataset(FROZEN)
    v2 = load_dataset(_v2_folder(tmp_path / "v2"))
    assert (v1.version, v1.has_rounds) == (1, False)
    assert (v2.version, v2.has_rounds) == (2, True)
    for dataset in (v1, v2):
        table = candidate_table(dataset)
        assert not table.empty and {"group", "kernel", "raster", "swizzle"} <= set(table)
        assert {"M", "N", "K", "layout", "tflops"} <= set(dataset.cublas.columns)
        assert "name" in dataset.kernels.columns
    assert v2.measurements["group"].tolist() == ["1088x736x896_tnn"] * 2
    assert v2.cublas["same_round"].all() and "same_round" not in v1.cublas.columns
    assert v1.rounds.empty and set(ROUND_COLUMNS) <= set(v1.rounds.columns)


def test_the_version_1_upgrade_is_pure_and_keeps_the_means() -> None:
    tables = read_v1(FROZEN)
    before = copy.deepcopy(tables)
    upgraded = upgrade_v1(tables)
    for name, frame in before.items():
        pd.testing.assert_frame_equal(tables[name], frame)
    assert upgraded["means"] is tables["measurements"] and upgraded["rounds"].empty
    pd.testing.assert_frame_equal(load_dataset(FROZEN).measurements, tables["measurements"])


def test_relative_paths_fall_back_to_the_shipped_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for spelling in ("h200", "evaluation/data/h200", "h200/v2", "evaluation/data/h200/v2"):
        expected = DATA_DIR / spelling.removeprefix("evaluation/data/")
        assert resolve_dataset_path(spelling) == expected
    (tmp_path / "h200").mkdir()
    assert resolve_dataset_path("h200") == Path("h200")  # the working directory wins
    assert resolve_dataset_path("nowhere") == Path("nowhere")
    assert load_dataset("evaluation/data/h200").path == DATA_DIR / "h200"
    with pytest.raises(DatasetError) as info:
        load_dataset("nowhere")
    assert str(info.value) == (
        f"nowhere: no such dataset folder (nor under the shipped data, {DATA_DIR}); measured "
        "data lands in evaluation/data/<gpu>/ (see evaluation/data/README.md)"
    )


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("measurements.csv.gz", b"not gzip", "cannot be read as CSV (Not a gzipped file"),
        ("provenance.json", b'{"format": "\xff"}', "is not UTF-8"),
    ],
)
def test_unreadable_bytes_are_one_line(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    folder = tmp_path / "ds"
    shutil.copytree(FROZEN, folder)
    (folder / name).write_bytes(content)
    with pytest.raises(DatasetError) as info:
        load_dataset(folder)
    message = str(info.value)
    assert message.startswith(f"{folder / name}: ") and expected in message
    assert "\n" not in message


def test_summary_outside_the_checkout_takes_the_shipped_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _v2_folder(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    assert main(["cutlass", "summary", "data"]) == 0
    out = capsys.readouterr().out
    by_class = out.split("geometric means by class:")[1].splitlines()
    classes = {line.split()[0] for line in by_class[2:] if line.strip()}
    assert {"all", "square", "small", "compute_bound"} <= classes
    assert out.startswith("data: NVIDIA H200, driver ?") and str(folder) not in out


def test_summary_without_pandas_names_the_extra(tmp_path: Path) -> None:
    block = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pandas':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from benchspace.harness.cli import main\n"
        "sys.exit(main(['cutlass', 'summary', 'h200/v2']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (
        "error: 'benchspace cutlass summary' needs pandas, which is not installed: "
        "pip install 'benchspace[cutlass]'\n"
    )
