"""The header's speed told by rounds that did not pick: a lucky selection is found out."""

from __future__ import annotations

import math

import pandas as pd

from benchspace.evaluation.deploy.measured_header import COLUMNS
from benchspace.evaluation.deploy.pick_figures import (
    pick_figures,
    render_pick_figures,
    selection_table,
)

A = (
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x1x1_0_tnn_align8_"
    "warpspecialized_epi_nosmem"
)
B = A.replace("128x128x64", "64x128x64")


def _confirmation(rows: list[tuple[tuple[int, int, int], str, float]]) -> pd.DataFrame:
    out = []
    for (m, n, k), config, tflops in rows:
        kernel = "cublas" if config.startswith("cublas:") else config
        out.append((m, n, k, config, kernel, "H", 1, tflops, 1, ""))
    return pd.DataFrame(out, columns=COLUMNS)


def test_a_pick_that_won_by_luck_is_judged_by_the_confirmation() -> None:
    s, t = (1024, 4096, 4096), (24, 4096, 4096)
    # confirmation: at s, B is the true best (1.10x); at t the heuristic is (A 0.95x)
    conf = _confirmation(
        [(s, A, 400.0), (s, B, 440.0), (s, "cublas:heuristic", 400.0),
         (t, A, 95.0), (t, B, 90.0), (t, "cublas:heuristic", 100.0)]
    )  # fmt: skip
    # selection: A read lucky at s (480) and at t (110): the selection picks A twice
    sel = selection_table(conf, {(s, A): 480.0, (t, A): 110.0, (t, "cublas:heuristic"): 100.0})
    assert sel["confirmed"].eq(-1).all() and conf["tflops"].tolist()[0] == 400.0
    got = pick_figures(conf, sel)
    assert got is not None and got.shapes == 2
    # the selection's own figure: A over the heuristic, as the selection read them
    assert math.isclose(got.selection, math.sqrt(480 / 400 * 110 / 100))
    # the held-out figure: A as the confirmation timed it, at both shapes
    assert math.isclose(got.held_out, math.sqrt(400 / 400 * 95 / 100))
    assert got.held_out_ahead == 0
    # the confirmation picking for itself: B at s, the heuristic at t
    assert math.isclose(got.self_judged, math.sqrt(440 / 400 * 1.0))
    line = render_pick_figures(got, 8)
    assert line.startswith("header (top 8) / cuBLAS heuristic, geometric mean over 2 shapes: 0.975")


def test_without_confirmation_rounds_there_is_no_held_out_figure() -> None:
    conf = _confirmation([((64, 64, 64), A, 1.0), ((64, 64, 64), "cublas:heuristic", 1.0)])
    conf["confirmed"] = -1
    assert pick_figures(conf, conf) is None
    assert "no confirmation rounds" in render_pick_figures(None, None)


def test_cublaslt_autotune_is_picked_and_timed_the_same_way() -> None:
    s = (1024, 4096, 4096)
    conf = _confirmation(
        [(s, A, 420.0), (s, "cublas:heuristic", 400.0), (s, "cublas:algo0", 400.0),
         (s, "cublas:algo1", 410.0), (s, "cublas:algo2", 390.0)]
    )  # fmt: skip
    # the selection read algo2 lucky: the autotune picks it, the confirmation times it at 390
    sel = selection_table(conf, {(s, "cublas:algo2"): 450.0, (s, A): 430.0})
    got = pick_figures(conf, sel)
    assert got is not None and got.autotune_shapes == 1
    assert math.isclose(got.autotune, 390 / 400) and math.isclose(got.over_autotune, 420 / 390)
    line = render_pick_figures(got, 8)
    assert line.endswith(
        "picked and timed the same way) 0.975, the header over it 1.0769 (1 shapes)"
    )
