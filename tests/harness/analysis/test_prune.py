"""prune and ``sensitivity --write-pruned``: pins, trims, incumbents, comments, counts, refusals."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.analysis.prune import incumbents, invocation_counts, prune_space
from benchspace.harness.analysis.sensitivity import analyse_profile
from benchspace.harness.analysis.sensitivity_report import SensitivityReport
from benchspace.harness.cli import main
from benchspace.harness.errors import SpaceError
from benchspace.harness.plan import count_invocations
from benchspace.harness.profiles.read import load_profile, parse_profile
from benchspace.harness.spaces.load import load_space, parse_space
from benchspace.harness.spaces.model import Space

PROFILES = Path(__file__).resolve().parents[2] / "data" / "profiles"
CRAFTED = PROFILES / "sensitivity_crafted.json"

_GRID = {"block": [16, 32, 64, 128], "pad": [0, 1], "unroll": [1, 2], "lanes": [None, 2, 4]}
# The space sensitivity_crafted.json swept, with a header mapping added.
SPACE: dict[str, Any] = {
    "format": 1,
    "_comment": "crafted space of the sensitivity tests",
    "spaces": [
        {
            "bench": "tile",
            "exe": "tile_benchmark",
            "metric": "real_time",
            "direction": "min",
            "arg_spec": ["n", "block", "pad", "unroll"],
            "env": {"lanes": "DEMO_TUNE_LANES"},
            "_comment": ["a bench comment that must survive"],
            "cases": [
                {"fixed": {"n": n}, "tune": copy.deepcopy(_GRID), "_comment": f"n={n}"}
                for n in (64, 256, 1024)
            ],
        },
        {
            "bench": "rate",
            "exe": "rate_benchmark",
            "metric": "GFLOP/s",
            "direction": "max",
            "arg_spec": ["n", "tile"],
            "cases": [{"fixed": {"n": n}, "tune": {"tile": [1, 2, 4]}} for n in (128, 512)],
        },
    ],
    "header": {
        "path": "include/tile_tuning.hh",
        "namespace": "demo::tuning",
        "env_prefix": "DEMO_TUNE_",
        "constants": [
            {"name": name, "type": ctype, "sources": [{"bench": bench, "param": param}]}
            for name, ctype, bench, param in (
                ("TILE_BLOCK", "int32_t", "tile", "block"),
                ("TILE_PAD", "bool", "tile", "pad"),
                ("RATE_TILE", "int32_t", "rate", "tile"),
            )
        ],
    },
}
BUCKETS = ("TINY", "SMALL", "MEDIUM", "LARGE", "XLARGE")
HEADER_VALUES: dict[str, list[str]] = {
    # TILE_BLOCK_TINY = 16 is a never-winning value: it must stay in the n=64 grid.
    "int32_t TILE_BLOCK": ["16", "32", "32", "64", "64"],
    # A bool incumbent matches the grid's 1.
    "bool TILE_PAD": ["true"] * 5,
    "int32_t RATE_TILE": ["2"] * 5,
}


def _header_text() -> str:
    lines = ["#pragma once", "#include <cstdint>", "namespace demo::tuning {"]
    for decl, values in HEADER_VALUES.items():
        lines += [
            f"inline constexpr {decl}_{b} = {v};" for b, v in zip(BUCKETS, values, strict=True)
        ]
    return "\n".join([*lines, "}  // namespace demo::tuning", ""])


@pytest.fixture(scope="module")
def space() -> Space:
    return parse_space(copy.deepcopy(SPACE), source="spaces/tile.json")


@pytest.fixture(scope="module")
def report() -> SensitivityReport:
    return analyse_profile(load_profile(CRAFTED), source=str(CRAFTED))


def _values() -> dict[str, dict[str, Any]]:
    """Family -> bucket -> value, as the checked-in header ships them."""
    out: dict[str, dict[str, Any]] = {}
    for decl, values in HEADER_VALUES.items():
        name = decl.split()[1]
        for bucket, text in zip(BUCKETS, values, strict=True):
            out.setdefault(name, {})[bucket] = {"true": True, "false": False}.get(text) or int(text)
    return out


def _prune(space: Space, report: SensitivityReport) -> dict[str, Any]:
    result = prune_space(
        space, report, incumbent_values=incumbents(space, _values()), profile="p.json"
    )
    return result.raw


def test_incumbents_follow_the_case_bucket(space: Space) -> None:
    found = incumbents(space, _values())
    assert found[("tile", "block")] == {0: 16, 1: 32, 2: 64}  # n = 64, 256, 1024
    assert found[("tile", "pad")] == {0: True, 1: True, 2: True}
    assert found[("rate", "tile")] == {0: 2, 1: 2}


def test_incumbents_of_an_env_override_consumer(space: Space) -> None:
    # A bench sweeping DEMO_TUNE_TILE_BLOCK through its env has TILE_BLOCK's incumbents.
    data = copy.deepcopy(SPACE)
    data["spaces"][0]["env"] = {"lanes": "DEMO_TUNE_TILE_BLOCK"}
    found = incumbents(parse_space(data, source="s.json"), _values())
    assert found[("tile", "lanes")] == {0: 16, 1: 32, 2: 64}


def test_dead_parameter_pinned_at_the_incumbent(space: Space, report: SensitivityReport) -> None:
    raw = _prune(space, report)
    for case in raw["spaces"][0]["cases"]:
        assert "pad" not in case["tune"]
        # The header says true; the grid spells it 1; pad=0 won, but the incumbent is kept.
        assert case["fixed"]["pad"] == 1 and not isinstance(case["fixed"]["pad"], bool)


def test_dead_env_parameter_without_header_pinned_at_the_winner(
    space: Space, report: SensitivityReport
) -> None:
    raw = _prune(space, report)
    best = report.bench("tile").best_params
    assert best is not None
    for case in raw["spaces"][0]["cases"]:
        assert "lanes" not in case["tune"]
        if best["lanes"] is None:
            assert "lanes" not in case["fixed"]  # unset: nothing to write
        else:
            assert case["fixed"]["lanes"] == best["lanes"]


def test_never_winning_values_trimmed_but_incumbents_kept(
    space: Space, report: SensitivityReport
) -> None:
    raw = _prune(space, report)
    grids = [c["tune"]["block"] for c in raw["spaces"][0]["cases"]]
    assert grids == [[16, 32, 64], [32, 64], [32, 64]]
    assert [c["tune"]["unroll"] for c in raw["spaces"][0]["cases"]] == [[1, 2]] * 3  # flat
    assert [c["tune"]["tile"] for c in raw["spaces"][1]["cases"]] == [[2, 4], [2, 4]]


def test_comments_kept_and_a_note_added(space: Space, report: SensitivityReport) -> None:
    result = prune_space(
        space, report, incumbent_values=incumbents(space, _values()), profile="p.json"
    )
    raw = result.raw
    assert raw["_comment"][0] == "crafted space of the sensitivity tests"
    assert raw["_comment"][1] == "pruned by `benchspace sensitivity` from profile p.json:"
    assert raw["_comment"][2:] == list(result.notes)
    assert any(
        n.startswith("tile.pad: dead (max spread 0.50 % <= noise 1.14 %") for n in result.notes
    )
    assert any(
        "tile.block: trimmed 16, 128" in n and "kept 16 (incumbent)" in n for n in result.notes
    )
    assert raw["spaces"][0]["_comment"] == ["a bench comment that must survive"]
    assert [c["_comment"] for c in raw["spaces"][0]["cases"]] == ["n=64", "n=256", "n=1024"]
    assert list(raw) == list(SPACE)  # key order as written
    assert space.raw == SPACE  # the input is untouched


def test_invocation_counts_before_and_after(space: Space, report: SensitivityReport) -> None:
    raw = _prune(space, report)
    # tile: 3 cases x 4 x 2 x 2 x 3; rate: 2 x 3. After: block x unroll per case, tile 2 x 2.
    assert invocation_counts(space, raw, source="out.json") == (150, 6 + 4 + 4 + 4)
    assert count_invocations(parse_space(raw, source="out.json")) == 18


def test_per_case_trim_keeps_winners_near_bests_incumbents_and_the_best(
    space: Space, report: SensitivityReport
) -> None:
    result = prune_space(
        space, report, incumbent_values=incumbents(space, _values()), profile="p", per_case=True
    )
    cases = result.raw["spaces"][0]["cases"]
    # block: 32 is the cross-case best (stays everywhere); 64 is 4 % behind at n <= 256, won
    # n=1024; 16 stays at n=64 only as its incumbent.
    assert [c["tune"]["block"] for c in cases] == [[16, 32], [32], [32, 64]]
    # unroll=2 ties at n <= 256 and is 5 % behind at n=1024.
    assert [c["tune"]["unroll"] for c in cases] == [[1, 2], [1, 2], [1]]
    block = next(t for t in result.trims if t.param == "block")
    assert block.removed == ((16, (1, 2)), (64, (0, 1)), (128, (0, 1, 2)))
    assert block.everywhere == (16, 128)
    assert any("trimmed per case 64 from cases 0, 1" in n for n in result.notes)
    assert any("tile.unroll: trimmed per case 2 from case 2 " in n for n in result.notes)
    # rate: tile=2 is 3 % behind at n=512 but is the incumbent; 4 is the cross-case best.
    assert [c["tune"]["tile"] for c in result.raw["spaces"][1]["cases"]] == [[2, 4], [2, 4]]
    assert invocation_counts(space, result.raw, source="o.json") == (150, 4 + 2 + 2 + 2 + 2)


def test_a_grid_is_never_emptied() -> None:
    cases = [{"fixed": {"n": 1}, "tune": {"b": [1, 2]}}, {"fixed": {"n": 2}, "tune": {"b": [3, 4]}}]
    data = {"spaces": [{"bench": "k", "metric": "t", "arg_spec": ["n", "b"], "cases": cases}]}
    space = parse_space(data, source="k.json")
    failures = [{"case_index": 1, "params": {"b": b}, "status": "crashed"} for b in (3, 4)]
    measurements = [
        {"case_index": 0, "fixed": {"n": 1}, "params": {"b": b}, "value": v, "median": v, "n": 1}
        for b, v in ((1, 10.0), (2, 20.0))
    ]
    profile = {"results": [{"bench": "k", "metric": "t", "direction": "min", "best": None,
                            "measurements": measurements, "failures": failures}]}  # fmt: skip
    report = analyse_profile(parse_profile(profile, source="k.json"), source="k.json")
    assert report.bench("k").param("b").never_winning == (2, 3, 4)
    raw = prune_space(space, report, incumbent_values={}, profile="k.json").raw
    assert [c["tune"]["b"] for c in raw["spaces"][0]["cases"]] == [[1], [3]]


def test_invalid_result_is_reported_not_written(space: Space) -> None:
    raw = copy.deepcopy(SPACE)
    raw["spaces"][0]["cases"][0]["tune"]["block"] = []
    with pytest.raises(SpaceError, match="the pruned space does not validate"):
        invocation_counts(space, raw, source="out.json")


# ---------------------------------------------------------------- the command


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository root with the space under spaces/ and its header under include/."""
    (tmp_path / ".git").mkdir()  # header.path is relative to the repository root
    (tmp_path / "spaces").mkdir()
    (tmp_path / "include").mkdir()
    (tmp_path / "spaces" / "tile.json").write_text(json.dumps(SPACE, indent=2))
    (tmp_path / "include" / "tile_tuning.hh").write_text(_header_text())
    return tmp_path


def test_cli_writes_the_pruned_space_and_prints_counts(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = project / "spaces" / "tile.json"
    before = space.read_bytes()
    out = project / "spaces" / "tile.pruned.json"
    code = main(["sensitivity", str(CRAFTED), "--space", str(space), "--write-pruned", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "invocations per repeat: 150 before, 18 after (88.0 % fewer)" in text
    assert "tile.pad: dead" in text and "pinned into fixed at the incumbent 1" in text
    assert space.read_bytes() == before
    pruned = load_space(out)
    assert pruned.benches[0].cases[0].tune["block"] == (16, 32, 64)
    assert out.read_text().endswith("}\n")


def test_cli_json_reports_the_pruning(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    space, out = project / "spaces" / "tile.json", project / "pruned.json"
    argv = ["sensitivity", str(CRAFTED), "--space", str(space), "--write-pruned", str(out)]
    assert main([*argv, "--format", "json"]) == 0
    pruned = json.loads(capsys.readouterr().out)["pruned"]
    assert (pruned["invocations_before"], pruned["invocations_after"]) == (150, 18)
    assert {(p["bench"], p["param"]) for p in pruned["pinned"]} == {
        ("tile", "pad"),
        ("tile", "lanes"),
    }
    assert {(t["bench"], t["param"]) for t in pruned["trimmed"]} == {
        ("tile", "block"),
        ("rate", "tile"),
    }


def test_cli_refuses_to_overwrite_the_space(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = project / "spaces" / "tile.json"
    before = space.read_bytes()
    argv = ["sensitivity", str(CRAFTED), "--space", str(space), "--write-pruned", str(space)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --write-pruned: {space} is the space ({space}); write the pruned space to a "
        "new file\n"
    )
    assert space.read_bytes() == before


def test_cli_needs_a_space_to_prune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pruned.json"
    assert main(["sensitivity", str(CRAFTED), "--write-pruned", str(out)]) == 2
    assert (
        "names no space file that exists here; pass --space SPACE.json" in capsys.readouterr().err
    )
    assert not out.exists()


def test_cli_missing_header_is_an_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "include" / "tile_tuning.hh").unlink()
    space, out = project / "spaces" / "tile.json", project / "pruned.json"
    argv = ["sensitivity", str(CRAFTED), "--space", str(space), "--write-pruned", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "$.header.path: include/tile_tuning.hh not found (looked for " in err
    assert not out.exists()


def test_cli_refuses_a_profile_of_another_space(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = json.loads(CRAFTED.read_text())
    profile["meta"]["provenance"]["space_sha256"] = "ab" * 32
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(profile))
    space, out = project / "spaces" / "tile.json", project / "pruned.json"
    assert main(["sensitivity", str(path), "--space", str(space), "--write-pruned", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: $.meta.provenance.space_sha256: abababababab… but ")
    assert "the space changed since this sweep" in err
    assert not out.exists()
