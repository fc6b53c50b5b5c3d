"""Leaves decided on measured training shapes: CUTLASS only where reliably ahead, else cublas
or a pinned cuBLASLt configuration; and the shipping study's per-shape figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_kernel_header import K1, K2, synthetic_dispatch

from benchspace.evaluation.deploy.cublas_evidence import CublasEvidence, config_ratios
from benchspace.evaluation.deploy.kernel_header import CUBLAS, render_gemm_header
from benchspace.evaluation.deploy.leaf_policy import LeafRule, decide_leaves, policy_dispatch
from benchspace.evaluation.deploy.shipped_study import header_choices, per_shape, summarise

PIN = "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
ALGO = PIN.removeprefix("cublaslt:") + ";ws=0;waves=1.0"
HEUR = ALGO.replace("tile=194", "tile=17")


def _evidence(
    cutlass: list[tuple[int, int, int, str, float]], configs: list[tuple]
) -> CublasEvidence:
    # SYNTHETIC figures: heuristic 100 TFLOP/s everywhere.
    shapes = sorted({(m, n, k) for m, n, k, *_ in cutlass} | {(m, n, k) for m, n, k, *_ in configs})
    return CublasEvidence(
        shapes=pd.DataFrame(
            [(*s, 100.0) for s in shapes], columns=["M", "N", "K", "heuristic_tflops"]
        ),
        cutlass=pd.DataFrame(
            [
                (m, n, k, kern, "H" if kern == K1 else "M", 1 if kern == K1 else 2, t)
                for m, n, k, kern, t in cutlass
            ],
            columns=["M", "N", "K", "kernel", "raster", "swizzle", "tflops"],
        ),
        configs=pd.DataFrame(configs, columns=["M", "N", "K", "key", "ratio"]),
        cublaslt_version=130100,
        split="train",
    )


def test_cutlass_kept_only_where_reliably_ahead_else_cublas_or_pinned() -> None:
    base = synthetic_dispatch()  # M <= 1024: N <= 1024 -> K1, else K2 (M, 2); M > 1024 cublas
    evidence = _evidence(
        [(64, 64, 64, K1, 110.0), (128, 128, 128, K1, 104.0),  # K1 leaf: 1.072x, worst 1.04
         (64, 4096, 64, K2, 101.0)],  # K2 leaf: 1.01x: not 2 % ahead
        [(64, 4096, 64, PIN, 1.05), (4096, 64, 64, PIN, 0.98)],  # pinned: ahead in K2's leaf
    )  # fmt: skip
    one = LeafRule(policy="pinned", min_shapes=1)  # K2's leaf holds a single training shape
    runs = [d.runs for d in decide_leaves(base, evidence, LeafRule(policy="heuristic"))]
    assert runs == [K1, CUBLAS, CUBLAS]
    runs = [d.runs for d in decide_leaves(base, evidence, one)]
    assert runs == [K1, PIN, CUBLAS]  # 0.98 at the cublas leaf's shape: below the floor
    # by default one shape is not evidence: the pinned leaf goes back to cublas
    assert [d.runs for d in decide_leaves(base, evidence, LeafRule())] == [K1, CUBLAS, CUBLAS]
    dispatch = policy_dispatch(base, evidence, "pinned", one)
    assert [p.key for p in dispatch.pinned] == [PIN] and dispatch.cublaslt_version == 130100
    assert dispatch.kernels[-2:] == (dispatch.pinned[0].enum_name, CUBLAS)
    assert K2 not in dispatch.kernels  # no leaf runs it any more
    text = render_gemm_header(dispatch)
    flat = text.replace("\n// ", " ")
    assert "kNumPinned = 1;" in text and "ahead of it by 2 % in geometric mean" in flat
    assert "only where at least 1 of the" in flat
    # the held-out figures: K1 measured, the pinned key not measured at the new shape
    held = _evidence([(32, 32, 32, K1, 120.0)], [(16, 2048, 64, PIN + "x", 1.1)])
    table = per_shape(header_choices(dispatch, held), held)
    assert table["choice"].tolist() == [PIN, K1 + ":H:1"]
    assert np.isnan(table["ratio"].iloc[0]) and table["ratio"].iloc[1] == 1.2
    row = summarise("header", table)
    assert (row.measured, row.shapes, row.pinned_shapes, row.regret_mean) == (1, 2, 1, 0.0)


def test_config_ratios_are_same_run_and_keyed() -> None:
    rows = pd.DataFrame(
        {"run": ["r1", "r1", "r1", "r2", "r2"], "config": ["cublas:heuristic", "cublas:algo0",
         "cublas:algo1", "cublas:heuristic", "cublas:algo3"], "M": 8, "N": 8, "K": 8,
         "status": "ok", "tflops": [100.0, 100.0, 110.0, 50.0, 60.0],
         "cublas_algo": [HEUR, HEUR, ALGO, HEUR, ALGO]}
    )  # fmt: skip
    out = config_ratios(rows).set_index("key")["ratio"]
    assert out[PIN] == np.exp((np.log(1.1) + np.log(1.2)) / 2)  # geomean over the two runs
    assert out["cublaslt:" + ";".join(HEUR.split(";")[:9])] == 1.0


def test_leave_one_out_reads_each_shape_with_its_leaf_decided_without_it() -> None:
    from benchspace.evaluation.deploy.leaf_policy import leave_one_out

    base = synthetic_dispatch()  # M <= 1024: N <= 1024 -> K1, else K2; M > 1024 cublas
    evidence = _evidence(
        [(64, 64, 64, K1, 110.0), (128, 128, 128, K1, 104.0), (256, 256, 256, K1, 90.0),
         (64, 4096, 64, K2, 101.0)],
        [(64, 4096, 64, PIN, 1.05)],
    )  # fmt: skip
    rule = LeafRule(policy="pinned", min_shapes=1)
    cv = leave_one_out(base, evidence, rule)
    # K1's leaf: each shape judged on the other two (110 and 104 reliable -> K1 at 256: 0.90;
    # with 90 among the two, not reliable -> cublas 1.0); K2's leaf: nothing left -> cublas
    assert (cv.shapes, cv.measured, cv.below_floor, cv.not_cublas) == (4, 4, 1, 1)
    assert cv.worst == 0.9 and abs(cv.geomean - 0.9**0.25) < 1e-12
    assert "at least 1 training shapes per leaf" in cv.line(rule)
    strict = leave_one_out(base, evidence, LeafRule(policy="pinned", min_shapes=3))
    assert (strict.geomean, strict.not_cublas) == (1.0, 0)  # no leaf keeps 3 shapes left
