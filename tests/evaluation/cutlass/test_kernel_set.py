"""The measured kernel set: order, coverage, spill exclusion, and the committed list."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchspace.evaluation.cutlass.batches import read_kernel_list
from benchspace.evaluation.cutlass.catalogue import load_catalogue
from benchspace.evaluation.cutlass.kernel_set import (
    COVERED_FIELDS,
    DEFAULT_SIZE,
    LIST_FORMAT,
    SMALL_TILE_M,
    _keys,
    choose_kernel_set,
    render_kernel_list,
    widen_kernel_set,
)
from benchspace.evaluation.cutlass.spill import static_spill
from benchspace.harness.errors import UsageError

COMMITTED = Path(__file__).parents[3] / "evaluation" / "data" / "h200" / "kernel_set_tnn.txt"


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    """The default-level tnn kernels, C bf16 and void (118)."""
    return load_catalogue("default", ["tnn"])


def test_default_kernels_first_then_central_then_the_rest(pool: pd.DataFrame) -> None:
    defaults = set(pool.loc[pool["c_type"] == "void", "name"])
    names = choose_kernel_set(pool, defaults, size=70, seed=3)
    assert len(names) == len(set(names)) == 70
    safe_defaults = sorted(defaults - set(pool.loc[static_spill(pool), "name"]))
    assert names[: len(safe_defaults)] == safe_defaults
    keyed = _keys(pool).set_index("name").loc[names[len(safe_defaults) :]]
    central = keyed["central"].tolist()
    assert central == sorted(central, reverse=True)
    assert choose_kernel_set(pool, defaults, size=70, seed=3) == names
    assert choose_kernel_set(pool, defaults, size=70, seed=4) != names


def test_every_value_is_covered_and_nothing_spills(pool: pd.DataFrame) -> None:
    names = choose_kernel_set(pool, set(), size=12, seed=0)
    safe = _keys(pool[~static_spill(pool)])
    chosen = safe.set_index("name").loc[names]
    for field in COVERED_FIELDS:
        assert set(chosen[field]) == set(safe[field]), field
    assert not static_spill(pool.set_index("name").loc[names].reset_index()).any()


def test_size_must_hold_the_default_kernels(pool: pd.DataFrame) -> None:
    defaults = set(pool.loc[pool["c_type"] == "void", "name"])
    with pytest.raises(UsageError, match=r"^--size 5 is smaller than the 32 default-level"):
        choose_kernel_set(pool, defaults, size=5)
    assert len(choose_kernel_set(pool, set(), size=10_000)) == int((~static_spill(pool)).sum())


def test_list_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "k.txt"
    path.write_text(render_kernel_list(["k1", "k2"], ["a comment"]))
    assert path.read_text() == f"{LIST_FORMAT}\n# a comment\nk1\nk2\n"
    assert read_kernel_list(path) == ["k1", "k2"]


def test_committed_list_is_what_the_generator_writes() -> None:
    """Regenerate: benchspace cutlass kernel-set --out evaluation/data/h200/kernel_set_tnn.txt"""
    committed = read_kernel_list(COMMITTED)
    assert COMMITTED.read_text().startswith(LIST_FORMAT + "\n")
    assert len(committed) == DEFAULT_SIZE
    full = load_catalogue("max", ["tnn"])
    default = load_catalogue("default", ["tnn"])
    names = choose_kernel_set(
        full[full["c_type"] == "void"],
        set(default.loc[default["c_type"] == "void", "name"]),
        DEFAULT_SIZE,
        seed=0,
    )
    assert committed == names


def test_cli_writes_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import benchspace.harness.cli.cutlass.kernel_set as action
    from benchspace.harness.cli import main

    monkeypatch.setattr(action, "layout_kernel_set", lambda layout, size, seed: ["k1", "k2"])
    out = tmp_path / "sub" / "k.txt"
    argv = ["cutlass", "kernel-set", "--layout", "tnn", "--size", "2", "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"{out}: 2 kernels\n"
    assert read_kernel_list(out) == ["k1", "k2"]
    assert out.read_text().startswith(LIST_FORMAT + "\n# layout tnn, C void, bf16 D; 2 kernels")


V2 = COMMITTED.parent / "kernel_set_tnn_v2.txt"
COMPILED_V1 = COMMITTED.parent / "kernels_compiled_tnn.txt"


def test_widened_set_keeps_the_previous_one_and_adds_every_small_tile() -> None:
    full = load_catalogue("max", ["tnn"])
    pool = full[full["c_type"] == "void"]
    default = load_catalogue("default", ["tnn"])
    defaults = set(default.loc[default["c_type"] == "void", "name"])
    previous = read_kernel_list(COMPILED_V1)
    names = widen_kernel_set(pool, defaults, previous, size=1300, seed=0)
    assert names == read_kernel_list(V2)
    assert len(names) == len(set(names)) == 1300
    assert set(previous) <= set(names)
    safe = _keys(pool[~static_spill(pool)])
    small = set(safe.loc[safe["tm"] == SMALL_TILE_M, "name"])
    assert small <= set(names)
    head = names[: len(defaults & set(names))]
    assert set(head) == defaults & set(safe["name"])
    # The prefix after the default level alternates small tiles and the previous set's rest.
    after = names[len(head) : len(head) + 40]
    assert sum(n in small for n in after) == 20
