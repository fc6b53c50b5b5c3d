"""Header = selector: the tree from a dense sample, cublas leaves, and ``header --check``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset import candidate_table
from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.deploy.header_check import check_header, render_check
from benchspace.evaluation.deploy.kernel_header import (
    CUBLAS,
    GemmHeaderSpec,
    choose_dispatch,
    narrowed_log_y,
    predicted_log_y,
    render_gemm_header,
)
from benchspace.evaluation.deploy.select import score_matrix
from benchspace.evaluation.deploy.shape_sample import ShapeDomain, sample_shapes, shape_tuples
from benchspace.evaluation.selector.model_file import DeployedSelector, load_selector
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError

SPEC = GemmHeaderSpec(max_leaves=12, samples=300, min_samples=2)


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> DeployedSelector:
    """The default selector trained on the frozen synthetic sample (with its calibration)."""
    out = tmp_path_factory.mktemp("model") / "selector.json"
    assert main(["cutlass", "train", str(FROZEN), "--hardware", "h200", "--out", str(out)]) == 0
    loaded = load_selector(out)
    assert loaded.calibration is not None and loaded.cublas is None  # v1: no same-round rows
    return loaded


def test_the_tree_keeps_the_selectors_choice_on_its_own_sample(
    selector: DeployedSelector,
) -> None:
    dispatch = choose_dispatch(selector, SPEC)
    assert 1 < len(dispatch.tree.leaves) <= 12 and dispatch.cublas_leaves == 0
    assert dispatch.kernels[-1] == CUBLAS
    check = check_header(selector, dispatch, samples=200, seed=5)
    assert check.samples == 200 and check.cublas_shapes == 0
    assert 0.0 <= check.predicted.mean <= check.predicted.max < 1.0
    # A one-leaf tree can only be worse on average than a tree with a budget.
    single = choose_dispatch(selector, dataclasses.replace(SPEC, max_leaves=1))
    assert check_header(selector, single, 200, 5).predicted.mean >= check.predicted.mean
    boxes = choose_dispatch(selector, dataclasses.replace(SPEC, quantised=False))
    assert [f.name for f in boxes.features] == ["M", "N", "K"]
    assert all(n.dim < 3 for n in boxes.tree.nodes)
    assert check_header(selector, boxes, 200, 5).samples == 200


def test_the_check_refuses_the_build_seed(selector: DeployedSelector) -> None:
    dispatch = choose_dispatch(selector, SPEC)
    with pytest.raises(UsageError, match="--check-seed 0 is the seed the header was grown on"):
        check_header(selector, dispatch, 100, 0)


def test_cublas_leaves_follow_same_round_evidence(selector: DeployedSelector) -> None:
    """CRAFTED evidence: cuBLAS 20 % ahead of the pick at one large shape, behind at a small."""
    evidence = pd.DataFrame(
        {
            "M": [8192, 64], "N": [8192, 64], "K": [8192, 64], "layout": ["tnn", "tnn"],
            "cublas_tflops": [600.0, 10.0], "pick": ["x", "y"],
            "pick_tflops": [500.0, 20.0], "best_tflops": [510.0, 20.0],
        }
    )  # fmt: skip
    with_cublas = dataclasses.replace(selector, cublas=evidence)
    dispatch = choose_dispatch(with_cublas, SPEC)
    assert dispatch.cublas_leaves == 1
    chosen = dispatch.choose(np.array([[8192, 8192, 8192], [64, 64, 64]]))
    assert dispatch.choices[chosen[0]].kernel == CUBLAS
    assert dispatch.choices[chosen[1]].kernel != CUBLAS
    assert "(1 leaves here)" in render_gemm_header(dispatch).replace("\n// ", " ")
    check = check_header(with_cublas, dispatch, 300, 3)
    assert check.cublas_shapes > 0


def test_measured_regret_on_exhaustive_groups(selector: DeployedSelector) -> None:
    dispatch = choose_dispatch(selector, SPEC)
    table = candidate_table(load_dataset(FROZEN))
    check = check_header(selector, dispatch, 100, 1, exhaustive=table[table["split"] == "eval"])
    assert check.measured_select is not None and check.measured_select.count > 0
    text = render_check(check, len(dispatch.tree.leaves))
    assert "not measured" in text and "measured regret of select vs the measured best" in text
    pool, scores = score_matrix(selector, [(64, 64, 64), (128, 64, 64)])
    assert scores.shape == (2, len(pool))


def test_header_check_command(
    selector: DeployedSelector, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["cutlass", "header", "--model", selector.source, "--leaves", "8", "--samples", "200"]
    assert main([*args, "--check", "--check-samples", "100", "--dataset", str(FROZEN)]) == 0
    got = capsys.readouterr()
    out = got.out
    assert out.startswith("header vs select on 100 fresh shapes (seed 1, ")
    # progress: a line per stage on stderr as it starts (stderr is no terminal here), the
    # first once the inputs have loaded (a bad input's error stays the one stderr line)
    stages = [line.split("] ", 1)[1] for line in got.err.splitlines()]
    assert all(line.startswith("cutlass header: [") for line in got.err.splitlines())
    assert [s.split(" ")[0] for s in stages] == ["growing", "check:", "check:"]
    assert stages[-1] == "check: scoring every candidate at 100 fresh shapes"
    assert "predicted regret (judged by the selector's own calibrated scores, not measured)" in out
    assert not (tmp_path / "gemm_kernels.hh").exists()
    assert main([*args, "--check-samples", "0"]) == 2


def test_select_names_cublas_where_same_round_evidence_is_near(
    selector: DeployedSelector,
) -> None:
    from benchspace.evaluation.deploy.select import cublas_advice, rank_shape
    from benchspace.evaluation.deploy.select_format import render_ranking

    evidence = pd.DataFrame(
        {
            "M": [8192], "N": [8192], "K": [8192], "layout": ["tnn"],
            "cublas_tflops": [600.0], "pick": ["x"], "pick_tflops": [500.0],
            "best_tflops": [510.0],
        }
    )  # fmt: skip
    with_cublas = dataclasses.replace(selector, cublas=evidence)
    assert cublas_advice(selector, 8192, 8192, 8192) is None
    assert cublas_advice(with_cublas, 64, 64, 64) is None  # too far from any evidence
    advice = cublas_advice(with_cublas, 8192, 8192, 6144)
    assert advice is not None and advice.use and advice.at == (8192, 8192, 8192)
    lines = render_ranking(
        (8192, 8192, 6144), rank_shape(selector, 8192, 8192, 6144), "s", "m", 1, advice
    )
    assert lines[1] == (
        "  cublas: at 8192x8192x8192 (log2 distance 0.42) cuBLAS ran 600.0 TFLOP/s against the "
        "pick's 500.0, timed in the same rounds: dispatch to cublas instead"
    )


def test_narrowing_scores_the_kept_candidates_as_the_whole_pool_does(
    selector: DeployedSelector,
) -> None:
    shapes = sample_shapes(ShapeDomain(), 60, 3)
    pool, full = score_matrix(selector, shape_tuples(shapes))
    _, part = score_matrix(selector, shape_tuples(shapes), columns=[5, 0, 2])
    np.testing.assert_array_equal(part, full[:, [5, 0, 2]])
    pool2, columns, logy = narrowed_log_y(selector, shapes, pilot=20, narrow=2)
    assert len(pool2) == len(pool) and logy.shape == (60, len(columns))
    # The kept columns: the union of the pilot shapes' two best predicted (ties in pool
    # order); each row relative to its best kept column.
    first = np.round(predicted_log_y(selector, full[:20]), 6)
    best_two = np.argsort(-first, axis=1, kind="stable")[:, :2]
    assert set(columns.tolist()) == set(best_two.ravel().tolist())
    np.testing.assert_allclose(logy.max(axis=1), 0.0, atol=1e-6)
    np.testing.assert_allclose(logy, predicted_log_y(selector, full[:, columns]), atol=1e-6)


def test_a_narrowed_tree_needs_no_more_than_its_pilot(selector: DeployedSelector) -> None:
    narrowed = choose_dispatch(selector, dataclasses.replace(SPEC, pilot=100, narrow=2))
    whole = choose_dispatch(selector, SPEC)
    assert len(narrowed.tree.leaves) <= 12
    a = check_header(selector, narrowed, 200, 5).predicted.mean
    b = check_header(selector, whole, 200, 5).predicted.mean
    assert a <= b + 0.02  # a close call either way: narrowing loses next to nothing
