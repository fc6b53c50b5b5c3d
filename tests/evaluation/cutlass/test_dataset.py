"""Loading dataset folders: the frozen synthetic sample, candidate rows, one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset import (
    DatasetError,
    candidate_table,
    cublas_table,
    describe,
    kernel_configs,
)
from benchspace.evaluation.cutlass.dataset_read import load_dataset


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A writable copy of the frozen sample."""
    target = tmp_path / "ds"
    shutil.copytree(FROZEN, target)
    return target


def test_frozen_sample_loads() -> None:
    ds = load_dataset(FROZEN)
    assert ds.provenance["format"] == "benchspace-cutlass-dataset"
    assert ds.provenance["synthetic"] is True
    assert set(ds.measurements["split"]) == {"train", "eval"}
    assert len(ds.kernels) == 30
    assert describe(ds).startswith(f"{FROZEN}: synthetic")
    assert "10 training and 4 evaluation groups" in describe(ds)


def test_candidates_keep_only_ok_rows_and_carry_the_spread() -> None:
    ds = load_dataset(FROZEN)
    cand = candidate_table(ds)
    failed = ds.measurements[ds.measurements["status"] != "ok"]
    assert len(failed) == 14  # one cannot_implement row per group
    assert len(cand) == (ds.measurements["status"] == "ok").sum()
    row = cand.iloc[0]
    src = ds.measurements[
        (ds.measurements["group"] == row["group"])
        & (ds.measurements["kernel"] == row["kernel"])
        & (ds.measurements["status"] == "ok")
    ].iloc[0]
    assert row["tflops_sd"] == pytest.approx(src["tflops"] * src["ms_stdev"] / src["ms_mean"])
    # Evaluation groups hold every kernel, training groups the budget.
    sizes = cand.groupby(["split", "group"]).size()
    assert set(sizes["eval"]) == {30} and set(sizes["train"]) == {15}


def test_repeated_rows_are_pooled(copy: Path) -> None:
    m = pd.read_csv(copy / "measurements.csv.gz")
    first = m[m["status"] == "ok"].iloc[[0]].copy()
    first["tflops"] = first["tflops"] * 3
    pd.concat([m, first]).to_csv(copy / "measurements.csv.gz", index=False)
    ds = load_dataset(copy)
    cand = candidate_table(ds)
    row = cand[
        (cand["group"] == first["group"].iloc[0]) & (cand["kernel"] == first["kernel"].iloc[0])
    ]
    assert len(row) == 1
    src = m[m["status"] == "ok"].iloc[0]
    t, s = src["tflops"], src["tflops"] * src["ms_stdev"] / src["ms_mean"]
    assert row["tflops"].iloc[0] == pytest.approx(2 * t)
    # Repeats T and 3T with spreads s and 3s: sqrt((s^2 + 9 s^2) / 2 + var(T, 3T)).
    assert row["tflops_sd"].iloc[0] == pytest.approx(np.sqrt(5 * s**2 + t**2))


def test_kernel_configs_fill_fields_from_the_name() -> None:
    configs = kernel_configs(load_dataset(FROZEN))
    assert set(configs["align_a"]) == {8}  # not in kernels.csv: parsed from the name
    assert (configs["regs"] == 168).all()
    assert configs["smem_bytes"].isna().all()  # empty in the file


def test_cublas_table_means_duplicates() -> None:
    table = cublas_table(load_dataset(FROZEN))
    assert list(table.columns) == ["M", "N", "K", "layout", "cublas_tflops"]
    assert len(table) == 14 and np.isfinite(table["cublas_tflops"]).all()


def test_missing_cublas_is_allowed(copy: Path) -> None:
    (copy / "cublas.csv.gz").unlink()
    assert cublas_table(load_dataset(copy)).empty


def test_plain_csv_is_read(copy: Path) -> None:
    m = pd.read_csv(copy / "measurements.csv.gz")
    (copy / "measurements.csv.gz").unlink()
    m.to_csv(copy / "measurements.csv", index=False)
    assert len(load_dataset(copy).measurements) == len(m)


def _error(path: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_folder(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope") == (
        f"{tmp_path / 'nope'}: no such dataset folder; measured data lands in "
        "evaluation/data/<gpu>/ (see evaluation/data/README.md)"
    )


def test_missing_provenance(copy: Path) -> None:
    (copy / "provenance.json").unlink()
    assert _error(copy) == (
        f"{copy}: no provenance.json; is this a dataset folder such as evaluation/data/h200?"
    )


def test_wrong_format_and_future_version(copy: Path) -> None:
    doc = json.loads((copy / "provenance.json").read_text())
    (copy / "provenance.json").write_text(json.dumps({**doc, "format": "other"}))
    assert _error(copy) == (
        f"{copy / 'provenance.json'}: $.format: 'other' must be 'benchspace-cutlass-dataset'"
    )
    (copy / "provenance.json").write_text(json.dumps({**doc, "version": 9}))
    assert _error(copy) == (
        f"{copy / 'provenance.json'}: $.version: 9 is not supported; this benchspace reads "
        "versions 1, 2 (upgrade benchspace for newer datasets)"
    )


def test_missing_table_and_column(copy: Path) -> None:
    m = pd.read_csv(copy / "measurements.csv.gz")
    m.drop(columns=["split"]).to_csv(copy / "measurements.csv.gz", index=False)
    assert _error(copy).startswith(f"{copy / 'measurements.csv.gz'}: missing column(s) split;")
    (copy / "kernels.csv.gz").unlink()
    assert _error(copy) == (
        f"{copy}: no kernels.csv.gz (or kernels.csv); a dataset folder holds provenance.json, "
        "kernels, measurements and cublas tables (see evaluation/data/README.md)"
    )


def test_bad_values(copy: Path) -> None:
    m = pd.read_csv(copy / "measurements.csv.gz")
    bad = m.copy()
    bad.loc[3, "split"] = "test"
    bad.to_csv(copy / "measurements.csv.gz", index=False)
    assert _error(copy) == (
        f"{copy / 'measurements.csv.gz'}: column split: 'test' is not one of train, eval"
    )
    bad = m.copy()
    bad.loc[3, "M"] = -5
    bad.to_csv(copy / "measurements.csv.gz", index=False)
    assert _error(copy) == (
        f"{copy / 'measurements.csv.gz'}: row 5: M = -5 must be a positive integer"
    )
    bad = m.copy()
    bad.loc[3, "kernel"] = "mystery"
    bad.to_csv(copy / "measurements.csv.gz", index=False)
    assert _error(copy) == (
        f"{copy / 'measurements.csv.gz'}: kernel 'mystery' (and 0 more) is not in "
        "kernels.csv.gz; add it there or drop its rows"
    )


def test_folders_written_by_the_exporter_load(tmp_path: Path) -> None:
    from benchspace.evaluation.cutlass.dataset_export import write_dataset

    frozen = load_dataset(FROZEN)
    rows = frozen.measurements.drop(columns=["shape_class"])
    rows = pd.concat([rows.assign(repeat=0), rows.assign(repeat=1)], ignore_index=True)
    rows = rows.assign(error="", nonfinite=0)
    provenance = {k: v for k, v in frozen.provenance.items() if k not in ("format", "version")}
    write_dataset(
        tmp_path / "h200",
        measurements=rows,
        kernels=frozen.kernels,
        cublas=None,
        provenance=provenance,
    )
    ds = load_dataset(tmp_path / "h200")
    assert ds.cublas.empty and set(ds.measurements["shape_class"]) == {""}
    cand = candidate_table(ds)
    pd.testing.assert_series_equal(cand["tflops"], candidate_table(frozen)["tflops"])
