"""The header rules: every bench feeds a constant, every incumbent is in its grids."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from header_helpers import DATA, SPACES

from benchspace.generators.rules import (
    add_incumbents,
    case_grid,
    check_header_rules,
)
from benchspace.generators.session import check_space_header, space_with_incumbents
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Space

SHIPPED = {
    "MATMUL_BLOCK": {"TINY": 32, "SMALL": 32, "MEDIUM": 32, "LARGE": 32, "XLARGE": 32},
    "DOT_LANES": {b: 2 for b in ("TINY", "SMALL", "MEDIUM", "LARGE", "XLARGE")},
    "SORT_INSERTION_CUTOFF": {b: 16 for b in ("TINY", "SMALL", "MEDIUM", "LARGE", "XLARGE")},
    "SORT_BRANCHLESS_MERGE": {b: False for b in ("TINY", "SMALL", "MEDIUM", "LARGE", "XLARGE")},
}


def test_a_space_that_keeps_the_rules(demo_space: Space, batchlas_space: Space) -> None:
    assert check_header_rules(demo_space, SHIPPED) == []
    assert check_header_rules(batchlas_space, {}) == []


def test_every_bench_feeds_a_constant_or_is_report_only(demo_space: Space) -> None:
    assert demo_space.header is not None
    header = dataclasses.replace(demo_space.header, constants=demo_space.header.constants[:2])
    space = dataclasses.replace(demo_space, header=header)
    assert check_header_rules(space, {}) == [
        f"{space.path}: $.spaces[3]: bench 'sort' feeds no header constant; name it in a "
        'constant\'s sources or mark it "report_only": true'
    ]


def test_an_incumbent_missing_from_a_grid_is_named(demo_space: Space) -> None:
    incumbents = {
        **SHIPPED,
        "MATMUL_BLOCK": {**SHIPPED["MATMUL_BLOCK"], "SMALL": 48},
        "SORT_INSERTION_CUTOFF": {**SHIPPED["SORT_INSERTION_CUTOFF"], "LARGE": 12},
    }
    assert check_header_rules(demo_space, incumbents, header="include/t.hh") == [
        f"{demo_space.path}: $.spaces[0].cases[1]: constant MATMUL_BLOCK bucket SMALL: the "
        "incumbent 48 (include/t.hh) is not in the grid of matmul.block [16, 32, 64, 128]; add "
        "it to the grid, or pass --include-incumbent",
        # A pre-tuned parameter's grid is its pre_tune phase's.
        f"{demo_space.path}: $.spaces[3].cases[3]: constant SORT_INSERTION_CUTOFF bucket LARGE: "
        "the incumbent 12 (include/t.hh) is not in the grid of sort.cutoff [4, 8, 16, 32, 64]; "
        "add it to the grid, or pass --include-incumbent",
    ]


def test_a_boolean_incumbent_matches_a_0_1_grid(batchlas_space: Space) -> None:
    fuse = {"SYTRD_FUSE_PANEL_UPDATE": {"MEDIUM": True, "LARGE": True}}
    assert check_header_rules(batchlas_space, fuse) == [
        f"{batchlas_space.path}: $.spaces[5].cases[3]: constant SYTRD_FUSE_PANEL_UPDATE bucket "
        "LARGE: the incumbent True (the checked-in header) is not in the grid of syev.fuse [0]; "
        "add it to the grid, or pass --include-incumbent"
    ]


def test_include_incumbent_adds_it_where_it_is_missing(demo_space: Space) -> None:
    incumbents = {
        "MATMUL_BLOCK": {"SMALL": 48},
        "SORT_INSERTION_CUTOFF": {"LARGE": 12},
        "SORT_BRANCHLESS_MERGE": {"TINY": True},
    }
    space = add_incumbents(demo_space, incumbents)
    assert check_header_rules(space, incumbents) == []
    matmul, sort = space.bench("matmul"), space.bench("sort")
    assert case_grid(matmul, matmul.cases[1], "block") == (16, 32, 64, 128, 48)
    assert case_grid(matmul, matmul.cases[0], "block") == (16, 32, 64)
    assert sort.pre_tune[0].params["cutoff"] == (4, 8, 16, 32, 64, 12)
    assert case_grid(sort, sort.cases[0], "branchless") == (True, False)


def test_the_checked_in_header_is_found_under_the_repository_root(tmp_path: Path) -> None:
    """What ``tune`` calls: the header at header.path under the nearest ``.git`` above."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "spaces").mkdir()
    shutil.copy(SPACES / "demo_like.json", tmp_path / "spaces" / "demo.json")
    header = tmp_path / "include" / "benchspace_demo" / "tuning_params.hh"
    header.parent.mkdir(parents=True)
    space = load_space(tmp_path / "spaces" / "demo.json")
    assert check_space_header(space, False) == []  # no checked-in header yet
    header.write_text(
        (DATA / "demo_checked_in.hh")
        .read_text()
        .replace("DOT_LANES_TINY = 4;", "DOT_LANES_TINY = 3;")
    )
    assert check_space_header(space, False) == [
        f"{space.path}: $.spaces[2].cases[0]: constant DOT_LANES bucket TINY: the incumbent 3 "
        f"({header}) is not in the grid of matvec.lanes [1, 2, 4, 8, 16]; add it to the grid, "
        "or pass --include-incumbent"
    ]
    assert check_space_header(space, True) == []
    widened = space_with_incumbents(space)
    matvec = widened.bench("matvec")
    assert case_grid(matvec, matvec.cases[0], "lanes") == (1, 2, 4, 8, 16, 3)
    assert check_space_header(widened, False) == []
