"""``tune-shapes --per-kernel N``: the K slots of a shape spread over kernels, and two shortlists
of the same shapes timed as one space (scripts/device/space_union.py).

The selector is the shipped v2 one (it ranks raster and swizzle settings, so a kernel's knob
variants compete for the slots); nothing here is measured.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.batches import read_kernel_list
from benchspace.evaluation.deploy.select import rank_shapes
from benchspace.evaluation.deploy.shortlist import shortlist
from benchspace.evaluation.selector.model_file import load_selector
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError

ROOT = Path(__file__).parents[3]
V2 = ROOT / "evaluation" / "data" / "models" / "h200_selector_v2_train.json"
EVAL = ROOT / "evaluation" / "data" / "shapes" / "h200_v2_eval.txt"
SHAPES = ((352, 384, 352), (832, 1120, 992), (9888, 11712, 320))
UNION = ROOT / "scripts" / "device" / "space_union.py"


@pytest.fixture(scope="module")
def ranked() -> pd.DataFrame:
    return rank_shapes(load_selector(V2), list(SHAPES))


def test_per_kernel_one_takes_the_best_setting_of_the_first_distinct_kernels(
    ranked: pd.DataFrame,
) -> None:
    selector = load_selector(V2)
    plain = shortlist(selector, list(SHAPES), 8)
    spread = shortlist(selector, list(SHAPES), 8, per_kernel=1)
    for i in range(len(SHAPES)):
        mine = ranked[ranked["shape"] == i]
        first = mine.drop_duplicates("kernel").head(8)  # each kernel's best-scored setting
        got = spread[spread["shape"] == i]
        assert got["kernel"].tolist() == first["kernel"].tolist()
        assert got["raster"].tolist() == first["raster"].tolist()
        assert got["swizzle"].tolist() == first["swizzle"].tolist()
        assert got["rank"].tolist() == list(range(1, 9))
        # The plain top 8 holds a few kernels in several settings; every one of its kernels
        # keeps a slot (its best setting scores above the 8th plain entry).
        kernels = set(plain[plain["shape"] == i]["kernel"])
        assert len(kernels) < 8
        assert kernels <= set(got["kernel"])


def test_per_kernel_two_keeps_at_most_two_settings(ranked: pd.DataFrame) -> None:
    two = shortlist(load_selector(V2), list(SHAPES), 8, per_kernel=2)
    assert two.groupby(["shape", "kernel"]).size().max() == 2
    for i in range(len(SHAPES)):
        mine = ranked[ranked["shape"] == i]
        want = mine[mine.groupby("kernel").cumcount() < 2].head(8)
        assert two[two["shape"] == i]["kernel"].tolist() == want["kernel"].tolist()


def test_per_kernel_must_be_positive() -> None:
    with pytest.raises(UsageError, match="--per-kernel 0"):
        shortlist(load_selector(V2), [SHAPES[0]], 8, per_kernel=0)


def _tune_shapes(out: Path, *extra: str) -> None:
    assert main(["cutlass", "tune-shapes", str(EVAL), "--topk", "8", "--out", str(out),
                 *extra]) == 0  # fmt: skip


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 64 evaluation shapes written both ways by tune-shapes (plain, per kernel 1)."""
    folder = tmp_path_factory.mktemp("spaces")
    _tune_shapes(folder / "plain.json")
    _tune_shapes(folder / "distinct.json", "--per-kernel", "1")
    return folder


def test_committed_distinct_space_is_what_tune_shapes_writes(written: Path) -> None:
    committed = json.loads((ROOT / "spaces" / "tune_shapes_distinct.json").read_text())
    fresh = json.loads((written / "distinct.json").read_text())
    assert committed["spaces"] == fresh["spaces"]
    assert read_kernel_list(ROOT / "spaces" / "tune_shapes_distinct.kernels.txt") == (
        read_kernel_list(written / "distinct.kernels.txt")
    )
    short = pd.read_csv(ROOT / "spaces" / "tune_shapes_distinct.shortlist.csv")
    assert short.groupby("shape")["kernel"].nunique().eq(8).all()
    # The plain shortlist of the same shapes is the one the ranked spaces measured.
    plain = pd.read_csv(written / "plain.shortlist.csv")
    ranked = pd.concat(
        pd.read_csv(ROOT / "spaces" / f"tune_shapes_ranked{s}.shortlist.csv") for s in ("", "_rest")
    )

    def keyed(d: pd.DataFrame) -> set[tuple[int, int, int, int, str]]:
        return set(zip(d["M"], d["N"], d["K"], d["rank"], d["config"], strict=True))

    assert keyed(plain) == keyed(ranked)


def _union(*args: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(UNION), *map(str, args)], capture_output=True,
                          text=True, check=False)  # fmt: skip


def test_union_times_both_shortlists_in_one_process_per_shape(
    written: Path, tmp_path: Path
) -> None:
    done = _union(written / "plain.json", written / "distinct.json", tmp_path / "u")
    assert done.returncode == 0, done.stderr
    union = json.loads((tmp_path / "u.json").read_text())
    plain = json.loads((written / "plain.json").read_text())
    distinct = json.loads((written / "distinct.json").read_text())
    cases = zip(*(d["spaces"][0]["cases"] for d in (union, plain, distinct)), strict=True)
    for u, p, d in cases:
        assert u["fixed"] == p["fixed"] == d["fixed"]
        grid, mine, theirs = (c["tune"]["kernel"] for c in (u, p, d))
        assert grid[: len(mine)] == mine
        assert grid[len(mine) :] == [c for c in theirs if c not in mine]
        assert len(set(grid)) == len(grid)
    assert union["spaces"][0]["flags"] == plain["spaces"][0]["flags"]
    kernels = set(read_kernel_list(written / "plain.kernels.txt"))
    kernels |= set(read_kernel_list(written / "distinct.kernels.txt"))
    assert read_kernel_list(tmp_path / "u.kernels.txt") == sorted(kernels)
    rows = pd.read_csv(tmp_path / "u.shortlist.csv")
    assert rows["list"].value_counts().to_dict() == {"plain.json": 512, "distinct.json": 512}


def test_union_of_other_shapes_is_one_line(written: Path, tmp_path: Path) -> None:
    other = json.loads((written / "plain.json").read_text())
    other["spaces"][0]["cases"] = other["spaces"][0]["cases"][1:]
    (tmp_path / "other.json").write_text(json.dumps(other))
    done = _union(written / "plain.json", tmp_path / "other.json", tmp_path / "u")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "shapes differ" in done.stderr
    assert not (tmp_path / "u.json").exists()


DISTINCT = ROOT / "evaluation" / "data" / "h100" / "tune_shapes" / "distinct"
WIDE = ROOT / "evaluation" / "data" / "h100" / "tune_shapes" / "wide"


def _recorded(run: Path) -> tuple[pd.DataFrame, dict[tuple[int, int, int], list[str]]]:
    """A recorded run's measured table (its store's cuBLASLt configurations read) and its
    space's configurations per shape."""
    from benchspace.evaluation.deploy.measured_header import measured_table
    from benchspace.evaluation.deploy.store_algos import cublas_algos, store_beside
    from benchspace.harness.profiles.read import load_profile

    profile_path = run / "profile.json.gz"
    store = store_beside(profile_path)
    assert store is not None
    table = measured_table(
        load_profile(profile_path), algos=cublas_algos(store, "gemm_tune_shapes")
    )
    space = json.loads(gzip.decompress((run / "space.json.gz").read_bytes()))
    cases = {(c["fixed"]["M"], c["fixed"]["N"], c["fixed"]["K"]): list(c["tune"]["kernel"])
             for c in space["spaces"][0]["cases"]}  # fmt: skip
    return table, cases


def _confirmed_per_shape(table: pd.DataFrame) -> dict[object, int]:
    per_shape = table[table["confirmed"].eq(1)].groupby(["M", "N", "K"]).size()
    return {k: int(v) for k, v in per_shape.items()}


def _assert_header_runs_every_winner(table: pd.DataFrame, short: pd.DataFrame, n: int) -> None:
    """The header of ``short``'s top 8 judges all ``n`` shapes on confirmation rounds and
    dispatches each one's confirmed winner."""
    from benchspace.evaluation.deploy.measured_header import (
        dispatch_hits,
        measured_dispatch,
        restrict_to_top,
        shape_summary,
    )

    top = restrict_to_top(table, short, 8)
    summary = shape_summary(top)
    assert len(summary) == n and all(w.source == "confirmation" for w in summary)
    dispatch = measured_dispatch(top, 132, cublaslt_version=130100)
    assert dispatch_hits(dispatch, summary) == [True] * n


@pytest.mark.parametrize(
    ("run", "second"),
    [(DISTINCT, "tune_shapes_distinct"), (WIDE, "tune_shapes_wide")],
    ids=["distinct", "wide"],
)
def test_the_recorded_union_run_timed_both_shortlists_in_every_shapes_rounds(
    tmp_path: Path, run: Path, second: str
) -> None:
    """The H100 runs of a union (the plain top 8 and a second shortlist: --per-kernel 1, or the
    pool with the wide tiles; cuBLASLt's 9): every shape's configurations confirmed in 2 fresh
    processes, each shortlist's top 8 among them, so each is judged on the same rounds; the
    header of either runs every shape's confirmed winner."""
    from benchspace.evaluation.deploy.measured_header import restrict_to_top
    from benchspace.evaluation.deploy.shortlist import read_shortlist

    table, cases = _recorded(run)
    shapes = set(zip(table["M"], table["N"], table["K"], strict=True))
    assert len(shapes) == 64
    sizes = {shape: len(configs) for shape, configs in cases.items()}
    assert _confirmed_per_shape(table) == sizes
    copy = tmp_path / "store.sqlite"
    copy.write_bytes(gzip.decompress((run / "store.sqlite.gz").read_bytes()))
    with contextlib.closing(sqlite3.connect(copy)) as db:
        rounds = dict(db.execute(
            "SELECT repeat >= 1000000, count(*) FROM attempts WHERE status = 'ok' GROUP BY 1"
        ).fetchall())  # fmt: skip
    assert rounds == {0: sum(sizes.values()), 1: 2 * sum(sizes.values())}
    plain = pd.concat(
        read_shortlist(ROOT / "spaces" / f"tune_shapes_ranked{s}.shortlist.csv")
        for s in ("", "_rest")
    )
    spread = read_shortlist(ROOT / "spaces" / f"{second}.shortlist.csv")
    for short in (plain, spread):
        top = restrict_to_top(table, short, 8)
        cutlass = top[~top["config"].str.startswith("cublas")]
        assert cutlass.groupby(["M", "N", "K"])["config"].nunique().eq(8).all()
        _assert_header_runs_every_winner(table, short, 64)


def test_the_recorded_rerun_timed_the_wide_top_8_of_its_shapes() -> None:
    """evaluation/data/h100/tune_shapes/wide_rerun: the 24 shapes whose wide-pool top 8 holds
    wide tiles, each configuration of its space (that top 8 and cuBLASLt's 9) confirmed in a
    fresh process, and the header of that top 8 dispatches every shape's confirmed winner."""
    from benchspace.evaluation.deploy.shortlist import read_shortlist

    run = ROOT / "evaluation" / "data" / "h100" / "tune_shapes" / "wide_rerun"
    shapes = {
        tuple(int(v) for v in line.split())
        for line in (run / "shapes.txt").read_text().splitlines()
        if line.strip()
    }
    assert len(shapes) == 24
    wide = read_shortlist(ROOT / "spaces" / "tune_shapes_wide.shortlist.csv")
    extra = set(read_kernel_list(ROOT / "spaces" / "wide_tiles.kernels.txt"))
    holding = wide[wide["kernel"].isin(extra)]
    assert set(zip(holding["M"], holding["N"], holding["K"], strict=True)) == shapes
    table, cases = _recorded(run)
    assert set(cases) == shapes
    for (m, n, k), configs in cases.items():
        mine = wide[(wide["M"] == m) & (wide["N"] == n) & (wide["K"] == k)]
        assert list(mine.sort_values("rank")["config"]) == configs[:8]
    assert _confirmed_per_shape(table) == {s: len(c) for s, c in cases.items()}
    _assert_header_runs_every_winner(table, wide, 24)
