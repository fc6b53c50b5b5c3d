"""The static spill rule against the H200 probe's findings, and the ptxas override."""

from __future__ import annotations

import pandas as pd

from benchspace.evaluation.cutlass.spill import accumulators_per_thread, static_spill


def kernels(catalogue: pd.DataFrame, tile: tuple[int, int], schedule: str) -> pd.DataFrame:
    rows = catalogue[
        (catalogue["tm"] == tile[0])
        & (catalogue["tn"] == tile[1])
        & (catalogue["kernel_schedule"] == schedule)
    ]
    assert len(rows) > 0
    return rows


def test_probe_findings(catalogue: pd.DataFrame) -> None:
    spills = static_spill(catalogue)
    # Every 256x256 tile, whatever the schedule.
    assert spills[catalogue["tm"].eq(256) & catalogue["tn"].eq(256)].all()
    # Ping-pong 128x256 and 256x128, plain warp-specialized 128x256.
    for tile in ((128, 256), (256, 128)):
        assert spills[kernels(catalogue, tile, "TmaWarpSpecializedPingpong").index].all()
    assert spills[kernels(catalogue, (128, 256), "TmaWarpSpecialized").index].all()
    # Cooperative 128x256 / 256x128, any 128x128 and the 64x256 ping-pong do not.
    for tile in ((128, 256), (256, 128)):
        assert not spills[kernels(catalogue, tile, "TmaWarpSpecializedCooperative").index].any()
    assert not spills[catalogue["tm"].eq(128) & catalogue["tn"].eq(128)].any()
    assert not spills[kernels(catalogue, (64, 256), "TmaWarpSpecializedPingpong").index].any()


def test_accumulators_per_thread(catalogue: pd.DataFrame) -> None:
    coop = kernels(catalogue, (128, 256), "TmaWarpSpecializedCooperative").head(1)
    pingpong = kernels(catalogue, (128, 256), "TmaWarpSpecializedPingpong").head(1)
    auto = kernels(catalogue, (64, 256), "ScheduleAuto").head(1)
    assert accumulators_per_thread(coop)[0] == 128 * 256 // 256  # two consumer warpgroups
    assert accumulators_per_thread(pingpong)[0] == 128 * 256 // 128  # one warpgroup per tile
    assert accumulators_per_thread(auto)[0] == 64 * 256 // 128  # Auto with TM 64 is ping-pong


def test_ptxas_report_overrides(catalogue: pd.DataFrame) -> None:
    risky = catalogue[static_spill(catalogue)]["name"].iloc[0]
    safe = catalogue[~static_spill(catalogue)]["name"].iloc[0]
    spills = static_spill(catalogue, {risky: 0, safe: 48})
    named = catalogue.set_index("name").index
    assert not spills[named.get_loc(risky)]
    assert spills[named.get_loc(safe)]
    assert spills.sum() == static_spill(catalogue).sum()
