"""Static hardware-aware features phi(p, c, h) of (GEMM problem, CUTLASS kernel) pairs.

Every feature is known before execution: problem dimensions, the kernel's compile-time
configuration and the capacities and rates of a :class:`~evaluation.cutlass.hardware.Hardware`.
The functions are pure and vectorised over the rows of a DataFrame.

The selection study's formulas were lost; these are reconstructed from its prose. ``b`` is
bytes per element (A, B bf16: 2), ``S`` the resolved stage count, ``S_SM`` the SM count.

- grid: ``n_M = ceil(M/TM)``, ``n_N = ceil(N/TN)``, ``k_iters = ceil(K/TK)``;
  edge waste ``(n_M*TM - M) / (n_M*TM)`` per dimension (K likewise).
- waves: ``W = ceil(n_M*n_N / (S_SM*b_res))``, efficiency ``n_M*n_N / (W*S_SM*b_res)``;
  Stream-K proxy ``1 - efficiency`` (the idle tail Stream-K would rebalance), its product
  with the Stream-K flag.
- clusters: tiles per cluster dimension ``n_M/c_M``, ``n_N/c_N``; overshoot when
  ``c_M > n_M`` or ``c_N > n_N``; waste ``1 - n_M*n_N / (ceil(n_M/c_M)*ceil(n_N/c_N)*c_M*c_N)``.
- intensity: ``2MNK / (b_A*MK + b_B*KN + Q_epi)``, ``Q_epi = b_D*MN`` plus ``b_C*MN`` when C
  is read (non-void C and beta != 0); tile level ``2*TM*TN*TK / (b*(TM+TN)*TK)``, TK cancels.
- LLC: re-streaming when panels are not kept, ``b_A*MK*n_N + b_B*KN*n_M`` bytes, as a factor
  of the compulsory ``b_A*MK + b_B*KN`` and as HBM time over compute time; working set (A, B,
  epilogue bytes), a tile's K-deep panels ``b*(TM+TN)*K``, one wave's panels and the
  smaller operand, each over LLC capacity.
- shared memory: ``B_stage = (TM+TN)*TK*b``; epilogue storage, auto stages and the total by
  schedule as CUTLASS computes them (:mod:`evaluation.cutlass.smem`); ``f_smem = B_smem / smem per
  SM``; ``S*f_smem``.
- residency: ``b_smem = floor(smem per SM / (B_smem + 1 KiB reserved))``; accumulators per
  consumer thread (:func:`~benchspace.evaluation.cutlass.spill.accumulators_per_thread`); ``b_reg =
  floor(65536 / (threads * registers))`` with 168 registers at launch for the 384-thread
  kernels and ``min(255, ceil8(acc + 64))`` for the plain one; ``b_res = min(b_smem, b_reg,
  blocks and threads per SM)``.
- feed/compute: ``t_prod = B_stage / BW_TMA``, ``t_cons = 2*TM*TN*TK / (n_consumer *
  P_WGMMA)`` (two consumers on a cooperative tile, one otherwise); ratio ``t_cons / t_prod``.
- pipeline: fill ``k_iters / S``; amortisation ``k_iters * tiles per CTA / S`` (a persistent
  kernel primes its pipeline once for its ``W`` tiles, the plain kernel once per tile).

Feature set version 2 (:data:`FEATURE_VERSION`) adds, from the within-group correlations of the
v2 training data (``benchspace cutlass correlation``):

- the H200 static run-time estimate ``t`` of :func:`benchspace.evaluation.selector.static_time.
  estimated_time_ns` and its parts: cluster slots ``floor(S_SM * b_res / (c_M*c_N))``, waves of
  clusters over them (whole, fractional, efficiency), main-loop iterations per slot
  ``W_cl * k_iters``, the per-iteration time ``max(t_cons, t_prod)``; ``t`` against the
  problem's ideal compute time ``2MNK / P`` and against its roofline time ``max(2MNK / P,
  bytes / BW)`` (scale-free efficiencies, so they carry over to larger shapes);
- tile quantisation efficiency per dimension ``M / (n_M*TM)`` (N, K likewise) and the padding
  waste ``1 - useful_fraction``;
- wave quantisation ``tiles / (S_SM / (c_M*c_N))`` and its efficiency ``q / ceil(q)``;
- bytes per flop ``1 / intensity``, and the tile intensity over the H200 ridge.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import FIELDS
from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.smem import (
    effective_epilogue_schedule,
    effective_kernel_schedule,
    epilogue_storage_bytes,
    resolved_stages,
    round_up,
    smem_total_bytes,
)
from benchspace.evaluation.cutlass.spill import accumulators_per_thread, static_spill
from benchspace.evaluation.selector.static_time import estimated_time_ns

FEATURE_VERSION = 2
"""The feature set's version, stored with a saved model (1: before the static-time features)."""

ELEMENT_BYTES = {"bf16": 2, "f32": 4, "void": 0}
AB_BYTES = 2
"""A and B are bf16 throughout the catalogue."""

CONSUMER_REGISTERS = 232
"""Registers per consumer thread after ``setmaxnreg`` in CUTLASS's SM90 warp-specialized
persistent kernels (``MmaRegisterRequirement``)."""

LAUNCH_REGISTERS = 168
"""Registers per thread at launch of the 384-thread kernels (65536 / 384 rounded down to a
multiple of 8); every warp-specialized kernel of the H200 probe reported 168."""

REGISTER_OVERHEAD = 64
"""Assumed registers per consumer thread beyond the accumulators (addresses, descriptors, loop
state) for the plain warp-specialized kernel, which does not redistribute registers."""

CATEGORICAL_FEATURES: tuple[str, ...] = (
    "layout",
    "c_type",
    "kernel_schedule",
    "epilogue_schedule",
    "tile_scheduler",
    "schedule",
    "epilogue",
    "op_class",
    "engine",
)

PROBLEM_COLUMNS = ("M", "N", "K")


def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(-(-a // b), dtype=np.int64)


def _ints(frame: pd.DataFrame, name: str) -> np.ndarray:
    return np.asarray(frame[name].to_numpy(), dtype=np.int64)


def _config_features(configs: pd.DataFrame, hw: Hardware) -> dict[str, np.ndarray]:
    """The features that depend on the kernel and the hardware only (one row per kernel)."""
    tm, tn, tk = (_ints(configs, c) for c in ("tm", "tn", "tk"))
    cm, cn = _ints(configs, "cm"), _ints(configs, "cn")
    schedule = effective_kernel_schedule(configs["kernel_schedule"].to_numpy(dtype=object), tm)
    persistent = schedule != "warpspecialized"
    d_type = configs["d_type"] if "d_type" in configs.columns else ["bf16"] * len(configs)
    c: dict[str, np.ndarray] = {
        "tm": tm,
        "tn": tn,
        "tk": tk,
        "cm": cm,
        "cn": cn,
        "cluster_size": cm * cn,
        "stages": _ints(configs, "stages"),
        # WGMMA instruction: 64 rows per warpgroup, N the tile width up to 256, K 16 for bf16.
        "inst_m": np.full(len(configs), 64, dtype=np.int64),
        "inst_n": np.minimum(tn, 256),
        "inst_k": np.full(len(configs), 16, dtype=np.int64),
        "is_stream_k": (configs["tile_scheduler"].to_numpy(dtype=object) == "stream_k").astype(
            np.int64
        ),
        "is_persistent": persistent.astype(np.int64),
        "has_c": (configs["c_type"].to_numpy(dtype=object) != "void").astype(np.int64),
        "b_c": pd.Series(configs["c_type"].to_numpy(dtype=object)).map(ELEMENT_BYTES).to_numpy(),
        "b_d": pd.Series(np.asarray(d_type, dtype=object)).map(ELEMENT_BYTES).to_numpy(),
        "cooperative": (schedule == "cooperative").astype(np.int64),
    }
    # Shared memory: per stage, epilogue, total by schedule, fraction of the SM.
    stages = resolved_stages(configs, hw)
    smem = smem_total_bytes(configs, stages)
    c["stages_resolved"] = stages
    c["smem_per_stage"] = (tm + tn) * tk * AB_BYTES
    c["smem_epilogue"] = epilogue_storage_bytes(configs)
    c["smem_total"] = smem
    c["f_smem"] = smem / hw.smem_per_sm_bytes
    c["stages_x_f_smem"] = stages * c["f_smem"]
    # Residency: shared-memory bound, register bound (accumulators per consumer thread).
    threads = np.where(persistent, 384, 256)
    acc = accumulators_per_thread(configs)
    regs = np.where(
        persistent,
        LAUNCH_REGISTERS,
        np.minimum(hw.max_registers_per_thread, round_up(acc + REGISTER_OVERHEAD, 8)),
    )
    c["threads"] = threads
    c["acc_per_thread"] = acc
    c["acc_over_registers"] = acc / CONSUMER_REGISTERS
    c["spill_risk"] = static_spill(configs).to_numpy().astype(np.int64)
    c["b_smem"] = hw.smem_per_sm_bytes // (smem + hw.smem_reserved_per_block_bytes)
    c["b_reg"] = hw.registers_per_sm // (threads * regs)
    c["b_res"] = np.minimum.reduce(
        [c["b_smem"], c["b_reg"], np.full(len(configs), hw.max_blocks_per_sm),
         hw.max_threads_per_sm // threads]
    )  # fmt: skip
    c["tile_intensity"] = 2.0 * tm * tn / (AB_BYTES * (tm + tn))
    # Producer (TMA) and consumer (WGMMA) time per stage.
    t_producer = c["smem_per_stage"] / hw.tma_bytes_per_s_per_sm
    consumers = np.where(schedule == "cooperative", 2, 1)
    t_consumer = 2.0 * tm * tn * tk / (consumers * hw.wgmma_flops_per_s_per_warpgroup)
    c["t_producer_ns"], c["t_consumer_ns"] = t_producer * 1e9, t_consumer * 1e9
    c["producer_consumer_ratio"] = t_consumer / t_producer
    c["schedule"] = schedule
    c["epilogue"] = effective_epilogue_schedule(configs["epilogue_schedule"].to_numpy(dtype=object))
    for name in ("name", "layout", "c_type", "kernel_schedule", "epilogue_schedule",
                 "tile_scheduler"):  # fmt: skip
        c[name] = configs[name].to_numpy(dtype=object)
    return c


_PRIVATE = ("has_c", "b_c", "b_d", "cooperative")
_CATEGORICAL_FROM_CONFIG = ("layout", "c_type", "kernel_schedule", "epilogue_schedule",
                            "tile_scheduler", "schedule", "epilogue")  # fmt: skip


def features_for_pairs(pairs: pd.DataFrame, hw: Hardware) -> pd.DataFrame:
    """Features of aligned rows: each row holds M, N, K (optional ``beta``, default 0) and the
    :class:`~evaluation.cutlass.catalogue.KernelConfig` columns; the result keeps the row index.

    Kernel-only quantities are computed once per distinct kernel name and broadcast.
    """
    missing = [c for c in (*PROBLEM_COLUMNS, *FIELDS) if c not in pairs.columns]
    if missing:
        raise ValueError(f"pairs lack column(s) {missing}; join problems with a catalogue first")
    codes, _ = pd.factorize(pairs["name"])
    _, first = np.unique(codes, return_index=True)
    per_config = _config_features(pairs.iloc[first], hw)
    c = {key: value[codes] for key, value in per_config.items()}
    m, n, k = (_ints(pairs, col) for col in PROBLEM_COLUMNS)
    tm, tn, tk, cm, cn = c["tm"], c["tn"], c["tk"], c["cm"], c["cn"]
    beta = (
        np.asarray(pairs["beta"].to_numpy(), dtype=np.float64)
        if "beta" in pairs.columns
        else np.zeros(len(pairs))
    )
    f: dict[str, np.ndarray] = {"M": m, "N": n, "K": k}
    f.update({key: c[key] for key in ("tm", "tn", "tk", "cm", "cn", "cluster_size", "stages",
                                      "inst_m", "inst_n", "inst_k", "is_stream_k",
                                      "is_persistent")})  # fmt: skip
    f["c_read"] = ((c["has_c"] == 1) & (beta != 0)).astype(np.int64)

    # Output grid, reduction depth and per-dimension edge waste.
    n_m, n_n, k_iters = _ceil_div(m, tm), _ceil_div(n, tn), _ceil_div(k, tk)
    tiles = n_m * n_n
    f["n_m"], f["n_n"], f["tiles"], f["k_iters"] = n_m, n_n, tiles, k_iters
    f["waste_m"] = (n_m * tm - m) / (n_m * tm)
    f["waste_n"] = (n_n * tn - n) / (n_n * tn)
    f["waste_k"] = (k_iters * tk - k) / (k_iters * tk)
    f["useful_fraction"] = (m * n * k) / (n_m * tm * n_n * tn * k_iters * tk)

    # Shared memory and residency (kernel-only).
    for key in ("stages_resolved", "smem_per_stage", "smem_epilogue", "smem_total", "f_smem",
                "stages_x_f_smem", "threads", "acc_per_thread", "acc_over_registers",
                "spill_risk", "b_smem", "b_reg", "b_res"):  # fmt: skip
        f[key] = c[key]

    # Waves over the tile list, wave efficiency and the Stream-K proxy.
    slots = hw.sms * np.maximum(c["b_res"], 1)
    waves = _ceil_div(tiles, slots)
    f["waves"] = waves
    f["waves_fractional"] = tiles / slots
    f["wave_efficiency"] = tiles / (waves * slots)
    f["stream_k_proxy"] = 1.0 - f["wave_efficiency"]
    f["stream_k_gain"] = f["stream_k_proxy"] * c["is_stream_k"]

    # Clusters: tiles available per cluster dimension, overshoot, idle CTAs in launched clusters.
    clusters = _ceil_div(n_m, cm) * _ceil_div(n_n, cn)
    f["clusters"] = clusters
    f["cluster_fill_m"] = n_m / cm
    f["cluster_fill_n"] = n_n / cn
    f["cluster_overshoot"] = ((cm > n_m) | (cn > n_n)).astype(np.int64)
    f["cluster_waste"] = 1.0 - tiles / (clusters * cm * cn)

    # Problem and tile arithmetic intensity.
    flops = 2.0 * m * n * k
    q_epilogue = c["b_d"] * m * n + f["c_read"] * c["b_c"] * m * n
    q_inputs = AB_BYTES * (m * k + k * n)
    f["flops"] = flops
    f["bytes_epilogue"] = q_epilogue.astype(np.float64)
    f["arithmetic_intensity"] = flops / (q_inputs + q_epilogue)
    f["ai_over_ridge"] = f["arithmetic_intensity"] / hw.ridge_flops_per_byte
    f["tile_intensity"] = c["tile_intensity"]

    # LLC: re-streaming when panels are not kept, working set and panels against capacity.
    restream = AB_BYTES * (m * k * n_n + k * n * n_m)
    f["restream_bytes"] = restream.astype(np.float64)
    f["restream_factor"] = restream / q_inputs
    f["restream_time_ratio"] = (restream / hw.hbm_bytes_per_s) / (flops / hw.peak_bf16_flops)
    working_set = q_inputs + q_epilogue
    f["working_set_bytes"] = working_set.astype(np.float64)
    f["working_set_over_llc"] = working_set / hw.llc_bytes
    f["tile_panel_over_llc"] = AB_BYTES * (tm + tn) * k / hw.llc_bytes
    f["wave_panels_over_llc"] = np.minimum(tiles, slots) * AB_BYTES * (tm + tn) * k / hw.llc_bytes
    f["operand_panel_over_llc"] = AB_BYTES * np.minimum(m, n) * k / hw.llc_bytes

    # Feed/compute balance, pipeline fill and amortisation.
    for key in ("t_producer_ns", "t_consumer_ns", "producer_consumer_ratio"):
        f[key] = c[key]
    stages = np.maximum(c["stages_resolved"], 1)
    f["pipeline_fill"] = k_iters / stages
    tiles_per_block = np.where(c["is_persistent"] == 1, waves, 1)
    f["stage_amortisation"] = k_iters * tiles_per_block / stages

    out = pd.DataFrame(f, index=pairs.index)
    out.insert(0, "name", c["name"])
    for key in _CATEGORICAL_FROM_CONFIG:
        out[key] = c[key]
    out["op_class"] = "tensorop"
    out["engine"] = "wgmma"
    return _add_time_features(out, q_inputs + q_epilogue, hw)


def _add_time_features(out: pd.DataFrame, problem_bytes: np.ndarray, hw: Hardware) -> pd.DataFrame:
    """Version 2 features (module docstring): the static time estimate and quantisation."""

    def col(name: str) -> np.ndarray:
        return np.asarray(out[name].to_numpy(), dtype=np.float64)

    cluster, tiles = col("cluster_size"), col("tiles")
    slots = np.maximum(np.floor(hw.sms * np.maximum(col("b_res"), 1.0) / cluster), 1.0)
    waves = col("clusters") / slots
    pingpong = out["schedule"].to_numpy(dtype=object) == "pingpong"
    consumer = np.where(pingpong, col("t_consumer_ns") / 2.0, col("t_consumer_ns"))
    t = estimated_time_ns(out, hw)
    ideal = col("flops") / hw.peak_bf16_flops * 1e9
    memory = problem_bytes / hw.hbm_bytes_per_s * 1e9
    quantisation = tiles / (hw.sms / cluster)
    f: dict[str, np.ndarray] = {
        "cluster_slots": slots,
        "cluster_waves": np.ceil(waves),
        "cluster_waves_fractional": waves,
        "cluster_wave_efficiency": waves / np.ceil(waves),
        "mainloop_iterations": np.ceil(waves) * col("k_iters"),
        "iteration_ns": np.maximum(consumer, col("t_producer_ns")),
        "est_time_ns": t,
        "est_efficiency": ideal / t,
        "est_roofline_efficiency": np.maximum(ideal, memory) / t,
        "tile_efficiency_m": 1.0 - col("waste_m"),
        "tile_efficiency_n": 1.0 - col("waste_n"),
        "tile_efficiency_k": 1.0 - col("waste_k"),
        "padding_waste": 1.0 - col("useful_fraction"),
        "wave_quantisation": quantisation,
        "wave_quantisation_efficiency": quantisation / np.ceil(quantisation),
        "bytes_per_flop": 1.0 / col("arithmetic_intensity"),
        "tile_ai_over_ridge": col("tile_intensity") / hw.ridge_flops_per_byte,
    }
    return pd.concat([out, pd.DataFrame(f, index=out.index)], axis=1)


def cross_pairs(problems: pd.DataFrame, configs: pd.DataFrame) -> pd.DataFrame:
    """Every (problem, config) pair; when problems carry a ``layout`` only matching kernels pair.

    The result has a ``problem`` column (the problem's row position) before the config columns.
    """
    probs = problems.reset_index(drop=True).copy()
    probs["problem"] = np.arange(len(probs))
    keep = [c for c in probs.columns if c not in FIELDS or c == "layout"]
    probs = probs[keep]
    if "layout" in probs.columns:
        pairs = probs.merge(configs, on="layout", how="inner")
    else:
        pairs = probs.merge(configs, how="cross")
    return pairs.sort_values(["problem", "name"], kind="stable").reset_index(drop=True)


def compute_features(problems: pd.DataFrame, configs: pd.DataFrame, hw: Hardware) -> pd.DataFrame:
    """Features of the cross product of problems (M, N, K[, layout, beta]) and configs."""
    pairs = cross_pairs(problems, configs)
    out = features_for_pairs(pairs, hw)
    out.insert(0, "problem", pairs["problem"].to_numpy())
    return out


def numeric_feature_names(features: pd.DataFrame) -> list[str]:
    """The numeric feature columns of a :func:`features_for_pairs` result."""
    skip = {"name", "problem", *CATEGORICAL_FEATURES}
    return [c for c in features.columns if c not in skip]
