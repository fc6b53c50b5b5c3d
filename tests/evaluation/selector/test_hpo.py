"""Optuna TPE over XGBoost settings on an SQLite study: resumable, CV regret as the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selector_data import FROZEN

from benchspace.evaluation.selector.hpo import search, selector_settings
from benchspace.harness.cli import main

pytest.importorskip("optuna")


def test_search_resumes_the_sqlite_study(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = f"sqlite:///{tmp_path / 'hpo.sqlite3'}"
    out = tmp_path / "best.json"
    argv = [
        "cutlass",
        "hpo",
        str(FROZEN),
        "--hardware",
        "h200",
        "--trials",
        "1",
        "--folds",
        "2",
        "--storage",
        storage,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert first.startswith(
        f"study benchspace-xgboost ({storage}): 1 finished trials; best CV regret "
    )
    assert main(argv) == 0  # the same study, one more trial
    assert ": 2 finished trials;" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["format"] == "benchspace-cutlass-hpo" and 0 <= doc["best_cv_regret"] < 1
    settings, bands = selector_settings(doc["best_params"])
    assert settings["objective"] in ("rank:ndcg", "rank:pairwise", "reg:squarederror")
    assert "bands" not in settings and 1 <= bands <= 4
    # The evaluate command takes the winner and says so in its report.
    report = tmp_path / "report"
    assert (
        main(
            [
                "cutlass",
                "evaluate",
                str(FROZEN),
                "--hardware",
                "h200",
                "--params",
                str(out),
                "--no-cv",
                "--no-mlp",
                "--repetitions",
                "2",
                "--out",
                str(report),
            ]
        )
        == 0
    )
    text = (report / "report.md").read_text()
    assert "Settings from a hyperparameter search (Optuna TPE, minimising CV regret) won:" in text
    assert f"- `objective` = {doc['best_params']['objective']}" in text


def test_pinned_objective(tmp_path: Path) -> None:
    from benchspace.evaluation.cutlass.dataset_read import load_dataset
    from benchspace.evaluation.cutlass.hardware import load_hardware
    from benchspace.evaluation.study.run import prepare

    prepared = prepare(load_dataset(FROZEN), load_hardware("h200"))
    train = (prepared.labels["split"] == "train").to_numpy()
    result = search(
        prepared.features[train],
        prepared.labels[train],
        prepared.spec,
        1,
        f"sqlite:///{tmp_path / 's.db'}",
        folds=2,
        objective="reg:squarederror",
    )
    assert result.best_params["objective"] == "reg:squarederror"
    assert "pairs_per_sample" not in result.best_params and "bands" not in result.best_params


def test_params_auto_takes_the_shipped_winner_of_the_datasets_version() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from benchspace.harness.cli.cutlass.dataset_args import resolve_params

    def dataset(version: int) -> Any:
        return cast(Any, SimpleNamespace(version=version))

    shipped = json.loads(
        (Path(__file__).parents[3] / "evaluation/data/models/hpo_h200_v2.json").read_text()
    )
    assert resolve_params("auto", dataset(2)) == shipped["best_params"]
    assert resolve_params("auto", dataset(1)) == {}
    assert resolve_params("none", dataset(2)) == {}
