"""``tune-shapes --extra-kernels FILE``: kernels beyond the selector's pool (the wide tiles),
ranked beside it from their static facts; nothing here is measured."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.catalogue import operations_by_name
from benchspace.evaluation.cutlass.smem import resolved_stages
from benchspace.evaluation.deploy.select import rank_shapes
from benchspace.evaluation.selector.extra_kernels import (
    SIBLING_KEYS,
    extra_candidates,
    with_extra_kernels,
)
from benchspace.evaluation.selector.model_file import DeployedSelector, load_selector
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError

ROOT = Path(__file__).parents[3]
V2 = ROOT / "evaluation" / "data" / "models" / "h200_selector_v2_train.json"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
WIDE = [
    PREFIX + "128x160x64_1x1x1_0_tnn_align8_warpspecialized_pingpong_epi_tma",
    PREFIX + "128x192x64_2x1x1_0_tnn_align8_warpspecialized_pingpong_epi_tma",
    PREFIX + "128x160x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_tma",
]


@pytest.fixture(scope="module")
def selector() -> DeployedSelector:
    return load_selector(V2)


def test_an_extra_kernel_gets_its_siblings_knob_settings_and_resolved_stages(
    selector: DeployedSelector,
) -> None:
    rows = extra_candidates(selector, WIDE)
    pool = selector.candidates
    assert list(rows.columns) == list(pool.columns)
    assert set(rows["kernel"]) == set(WIDE)
    for name, mine in rows.groupby("kernel"):
        first = mine.iloc[0]
        same = pool
        for key in SIBLING_KEYS:
            same = same[same[key] == first[key]]
        assert len(same), name  # every one of these has pool kernels of its kind
        assert set(zip(mine["raster"], mine["swizzle"], strict=True)) == set(
            zip(same["raster"].astype(str), same["swizzle"].astype(int), strict=True)
        )
        assert int(first["tn"]) in (160, 192)
    stages = resolved_stages(rows.drop_duplicates("kernel"), selector.hardware)
    assert (stages > 0).all()
    assert (rows.drop_duplicates("kernel")["stages"].to_numpy() == stages).all()


def test_kernels_already_in_the_pool_are_not_added_twice(selector: DeployedSelector) -> None:
    known = str(selector.candidates["kernel"].iloc[0])
    assert extra_candidates(selector, [known]).empty
    assert with_extra_kernels(selector, [known]) is selector


def test_an_extra_kernel_of_another_layout_is_refused(selector: DeployedSelector) -> None:
    other = WIDE[0].replace("_tnn_", "_ntn_")
    with pytest.raises(UsageError, match="layout 'ntn'"):
        extra_candidates(selector, [other])


def test_the_selector_ranks_wide_tiles_into_some_top_8(selector: DeployedSelector) -> None:
    """The model never saw a 160- or 192-wide tile measured; it still scores them from their
    static facts, and on a large-M shape with N = 3040 they reach the top 8."""
    shapes = [(16384, 3040, 1536), (352, 384, 352)]
    ranked = rank_shapes(with_extra_kernels(selector, WIDE), shapes)
    top = ranked.groupby("shape").head(8)
    wide_in = top[top["kernel"].isin(WIDE)].groupby("shape").size()
    assert wide_in.get(0, 0) >= 1
    plain = rank_shapes(selector, shapes).groupby("shape").head(8)
    assert not plain["kernel"].isin(WIDE).any()


def test_build_finds_wide_names_at_a_later_level() -> None:
    """``operations_by_name`` with several levels enumerates the later ones only for the names
    the earlier lack (here level 0003, whose WGMMA shapes include N = 160)."""
    name = PREFIX + "128x160x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
    with pytest.raises(UsageError, match="not in the 'default' catalogue"):
        operations_by_name([name], level="default")
    found = operations_by_name([name], level=("default", "0003"))
    assert found[name].procedural_name() == name


def test_tune_shapes_with_extra_kernels_writes_them_to_build(tmp_path: Path) -> None:
    extra = tmp_path / "wide.txt"
    extra.write_text("# wide tiles\n" + "\n".join(WIDE) + "\n")
    out = tmp_path / "ts.json"
    argv = ["cutlass", "tune-shapes", "--shape", "16384x3040x1536", "--topk", "8",
            "--extra-kernels", str(extra), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    short = pd.read_csv(tmp_path / "ts.shortlist.csv")
    kernels = (tmp_path / "ts.kernels.txt").read_text()
    assert "with wide.txt's kernels" in kernels
    assert set(short["kernel"]) & set(WIDE) <= set(kernels.splitlines())
    assert short["kernel"].isin(WIDE).any()


def test_an_empty_extra_kernel_list_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "none.txt"
    extra.write_text("# nothing\n")
    out = tmp_path / "ts.json"
    argv = ["cutlass", "tune-shapes", "--shape", "4096x4096x4096", "--extra-kernels",
            str(extra), "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "none.txt: no kernel names" in err[0]
    assert not out.exists() and not list(tmp_path.glob("ts.*"))


def test_committed_wide_space_is_what_tune_shapes_writes(tmp_path: Path) -> None:
    """spaces/tune_shapes_wide.* come from tune-shapes over the 64 evaluation shapes with
    spaces/wide_tiles.kernels.txt; adding candidates only pushes pool kernels down, so every
    row that is not a wide tile is one of the plain shortlist's (the run's union relies on it)."""
    from benchspace.evaluation.cutlass.batches import read_kernel_list

    out = tmp_path / "wide.json"
    argv = ["cutlass", "tune-shapes", str(ROOT / "evaluation" / "data" / "shapes" /
            "h200_v2_eval.txt"), "--topk", "8", "--extra-kernels",
            str(ROOT / "spaces" / "wide_tiles.kernels.txt"), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    committed = ROOT / "spaces" / "tune_shapes_wide"
    assert json_spaces(committed.with_suffix(".json")) == json_spaces(out)
    assert read_kernel_list(committed.with_suffix(".kernels.txt")) == read_kernel_list(
        tmp_path / "wide.kernels.txt"
    )
    short = pd.read_csv(f"{committed}.shortlist.csv")
    extra = set(read_kernel_list(ROOT / "spaces" / "wide_tiles.kernels.txt"))
    plain = pd.concat(
        pd.read_csv(ROOT / "spaces" / f"tune_shapes_ranked{s}.shortlist.csv") for s in ("", "_rest")
    )
    keyed = set(zip(plain["M"], plain["N"], plain["K"], plain["config"], strict=True))
    mine = short[~short["kernel"].isin(extra)]
    assert set(zip(mine["M"], mine["N"], mine["K"], mine["config"], strict=True)) <= keyed
    assert short["kernel"].isin(extra).any()


def json_spaces(path: Path) -> object:
    import json

    return json.loads(path.read_text())["spaces"]
