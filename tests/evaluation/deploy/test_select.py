"""Deployment: save and load selectors without training, the select/train/header/evaluate CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from selector_data import FROZEN, ROOT

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.deploy.select import rank_shape, rank_shapes, train_selector
from benchspace.evaluation.selector.model_file import (
    SelectorFileError,
    load_selector,
    save_selector,
)
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError

REGRET_COLUMNS = (
    "mean",
    "median",
    "p95",
    "max",
    "top-1",
    "top-5",
    "vs",
    "cuBLAS",
    "vs",
    "best-of-N",
)
MODELS = ("xgboost rank:ndcg", "xgboost reg:squarederror", "ridge", "mlp lambdarank")


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default selector trained on the frozen synthetic sample and saved."""
    out = tmp_path_factory.mktemp("model") / "selector.json"
    assert main(["cutlass", "train", str(FROZEN), "--hardware", "h200", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("name", MODELS)
def test_round_trip_scores_identically(tmp_path: Path, name: str) -> None:
    if name.startswith("mlp"):
        pytest.importorskip("torch")
    selector = train_selector(load_dataset(FROZEN), load_hardware("h200"), name, seed=2)
    files = save_selector(selector, tmp_path / "m.json")
    loaded = load_selector(files[0])
    assert loaded.name == name and loaded.spec == selector.spec
    shapes = [(4096, 4096, 4096), (128, 8192, 1024)]
    before, after = rank_shapes(selector, shapes), rank_shapes(loaded, shapes)
    np.testing.assert_array_equal(before["score"].to_numpy(), after["score"].to_numpy())
    assert before["kernel"].tolist() == after["kernel"].tolist()
    doc = json.loads(files[0].read_text())
    assert doc["format"] == "benchspace-cutlass-selector" and doc["version"] == 1
    assert doc["trained_on"]["groups"] == 14 and doc["trained_on"]["splits"] == ["train", "eval"]
    assert len(doc["candidates"]) == 30
    assert (len(files) == 2) == name.startswith("xgboost")  # the booster beside the sidecar


def test_select_prints_the_choice_and_top_five(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cutlass", "select", "4096", "4096", "4096", "--model", str(saved)]) == 0
    lines = capsys.readouterr().out.splitlines()
    ranked = rank_shape(load_selector(saved), 4096, 4096, 4096)
    assert lines[0] == (
        f"4096x4096x4096: {ranked['kernel'].iloc[0]} (raster H, swizzle 1) by xgboost rank:ndcg "
        f"of {saved}"
    )
    assert len(lines) == 6 and lines[1].startswith("  1. ") and lines[5].startswith("  5. ")
    assert ranked["kernel"].iloc[0] in lines[1]


def test_select_loads_without_the_dataset(saved: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    for f in saved.parent.iterdir():
        shutil.copy(f, moved / f.name)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchspace.harness.cli",
            "cutlass",
            "select",
            "256",
            "8192",
            "8192",
            "--model",
            str(moved / saved.name),
            "--top",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 3


def test_select_errors(saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.json"
    assert main(["cutlass", "select", "1", "2", "3", "--model", str(missing)]) == 1
    assert capsys.readouterr().err == (
        f"error: {missing}: no such selector; train one with 'benchspace cutlass train "
        f"DATASET --out {missing}'\n"
    )
    assert main(["cutlass", "select", "0", "2", "3", "--model", str(saved)]) == 2
    assert capsys.readouterr().err == "error: M = 0 must be a positive integer\n"
    assert (
        main(["cutlass", "select", "64", "64", "64", "--model", str(saved), "--layout", "ntn"]) == 2
    )
    assert capsys.readouterr().err == (
        "error: layout 'ntn' has no candidates in this selector; choose one of tnn with --layout\n"
    )
    (tmp_path / "bad.json").write_text(
        json.dumps({"format": "benchspace-cutlass-selector", "version": 9})
    )
    with pytest.raises(SelectorFileError, match=r"\$\.version: 9 is not supported"):
        load_selector(tmp_path / "bad.json")
    booster = saved.with_name(f"{saved.stem}.xgboost.json")
    copy = tmp_path / "lonely.json"
    shutil.copy(saved, copy)
    with pytest.raises(
        SelectorFileError, match=r"lonely.json: \$\.booster: .*selector.xgboost.json does not exist"
    ):
        load_selector(copy)
    assert booster.is_file()


def test_frozen_selector_file_of_version_1_keeps_loading() -> None:
    frozen = load_selector(FROZEN.parent / "selector_v1_ridge.json")
    assert frozen.name == "ridge" and frozen.trained_on["groups"] == 14
    ranked = rank_shape(frozen, 2048, 2048, 2048)
    assert len(ranked) == 30 and np.isfinite(ranked["score"]).all()
    assert ranked["kernel"].iloc[0] in set(frozen.candidates["kernel"])


def test_train_rejects_unknown_models() -> None:
    with pytest.raises(
        UsageError, match="model 'forest' is not available; choose one of xgboost rank:ndcg"
    ):
        train_selector(load_dataset(FROZEN), load_hardware("h200"), "forest")


def test_header_command_writes_a_compilable_header(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gemm_kernels.hh"
    assert (
        main(
            [
                *("cutlass", "header", "--model", str(saved), "--out", str(out)),
                *("--runners-up", "1", "--samples", "300", "--leaves", "16"),
            ]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert (
        said.startswith(f"{out}: ")
        and " leaves, " in said
        and "BENCHSPACE_GEMM_KERNEL=<kernel name>" in said
    )
    text = out.read_text()
    assert "namespace benchspace::gemm {" in text and f"({saved.name}" in text
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    main_cc = tmp_path / "main.cc"
    main_cc.write_text(
        '#include "gemm_kernels.hh"\nint main() { return static_cast<int>('
        "benchspace::gemm::gemm_kernel_for(64, 64, 64).swizzle) - 1; }\n"
    )
    proc = subprocess.run(
        [
            gxx,
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{tmp_path}",
            str(main_cc),
            "-o",
            str(tmp_path / "main"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_evaluate_prints_every_selector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    code = main(
        [
            "cutlass",
            "evaluate",
            str(FROZEN),
            "--hardware",
            "h200",
            "--folds",
            "2",
            "--repetitions",
            "5",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    got = capsys.readouterr()
    text = got.out
    # progress: a line per stage on stderr (not a terminal here), none of it on stdout
    progress = got.err.splitlines()
    assert len(progress) >= 4 and all(p.startswith("cutlass evaluate: [") for p in progress)
    assert (
        progress[0].endswith(f"{FROZEN}: loaded; the study starts")
        and "cutlass evaluate" not in text
    )
    for name in (
        "xgboost rank:ndcg",
        "xgboost rank:pairwise",
        "xgboost reg:squarederror",
        "ridge",
        "static score (v1 weights)",
        "static score (H200 time)",
        "fixed kernel",
        "select (xgboost rank:pairwise, train only)",
        "-leaf tree of that select)",
        "random (expected)",
        "xgboost rank:ndcg (cv)",
        "uniform",
        "static top-B",
        "biased-diverse",
        "best measured kernel (oracle) vs cuBLAS: not measured",
        "GH200 (seed study",
    ):
        assert name in text, name
    assert any(
        line.startswith("selector ") and line.split()[1:] == [*REGRET_COLUMNS]
        for line in text.splitlines()
    )
    assert "(= 2000/15132)" in text and "GH200" in text
    assert (out / "report.md").is_file() and len(list((out / "figures").glob("*.png"))) == 5


def test_evaluate_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cutlass", "evaluate", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "no such dataset folder" in err
    assert main(["cutlass", "evaluate", str(FROZEN)]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: {FROZEN}: cannot tell which GPU measured it; pass --hardware"
    )
    assert main(["cutlass", "evaluate", str(FROZEN), "--folds", "1"]) == 2


def test_a_gzipped_sidecar_loads_and_ranks_as_the_plain_one(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    for f in saved.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    packed = tmp_path / f"{saved.name}.gz"
    packed.write_bytes(gzip.compress(saved.read_bytes()))
    plain, unpacked = load_selector(saved), load_selector(packed)
    assert unpacked.sha256 == plain.sha256  # the content's digest, not the container's
    before = rank_shape(plain, 512, 4096, 1024)
    after = rank_shape(unpacked, 512, 4096, 1024)
    assert before["kernel"].tolist() == after["kernel"].tolist()
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(saved.read_bytes())  # named .gz, not gzipped
    assert main(["cutlass", "select", "64", "64", "64", "--model", str(broken)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {broken}: not a gzip file") and err.count("\n") == 1


def test_the_committed_v2_selector_is_gzipped_and_loads() -> None:
    v2 = load_selector(ROOT / "evaluation" / "data" / "models" / "h200_selector_v2.json.gz")
    assert v2.trained_on["groups"] == 304 and len(v2.candidates) == 10570
