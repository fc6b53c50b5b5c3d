"""Static register-spill risk of catalogue kernels, overridable by a ptxas report."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.smem import effective_kernel_schedule

SPILL_ACCUMULATORS = 256
"""fp32 accumulators per consumer thread at which a kernel spills: more than the 232-240
registers ``setmaxnreg`` grants a consumer warpgroup (255 without it)."""


def accumulators_per_thread(configs: pd.DataFrame) -> np.ndarray:
    """fp32 accumulators each consumer thread holds for one tile.

    A cooperative kernel splits the tile over two consumer warpgroups (``TM*TN/256``); a
    ping-pong consumer and the plain kernel's single consumer hold the whole tile
    (``TM*TN/128``).
    """
    tm = np.asarray(configs["tm"].to_numpy(), dtype=np.int64)
    tn = np.asarray(configs["tn"].to_numpy(), dtype=np.int64)
    schedule = effective_kernel_schedule(configs["kernel_schedule"].to_numpy(), tm)
    return np.asarray(np.where(schedule == "cooperative", tm * tn // 256, tm * tn // 128))


def static_spill(
    configs: pd.DataFrame, ptxas_spill_bytes: Mapping[str, int] | None = None
) -> pd.Series:
    """True for kernels expected to spill registers (index and order of ``configs``).

    The static rule, ``accumulators_per_thread >= 256``, reproduces every spill the H200
    probe found: each 256x256 tile (any schedule), each ping-pong kernel with a 128x256,
    256x128 or 256x256 tile, and the plain ``TmaWarpSpecialized`` 128x256 (and, by the same
    count, its 256x128). A ptxas report (kernel name -> spill store bytes, from
    ``-Xptxas=-v`` or ``localSizeBytes``) overrides the rule for the kernels it names.
    """
    risk = pd.Series(
        accumulators_per_thread(configs) >= SPILL_ACCUMULATORS, index=configs.index, name="spill"
    )
    if ptxas_spill_bytes:
        reported = configs["name"].map(ptxas_spill_bytes)
        known = reported.notna()
        risk[known] = reported[known].astype(np.int64) > 0
    return risk.astype(bool)
