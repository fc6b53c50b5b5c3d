"""Shape sets: determinism, domain, classes, distinct evaluation shapes, the file and the CLI."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.hardware import Hardware, load_hardware
from benchspace.evaluation.cutlass.shape_draw import build_shape_sets
from benchspace.evaluation.cutlass.shape_file import (
    load_shape_sets,
    shape_cases,
    shape_sets_to_json,
    write_shape_sets,
)
from benchspace.evaluation.cutlass.shapes import (
    MAX_VOLUME,
    ShapeError,
    geometry_tags,
    intensity,
    size_tag,
    snap,
    working_set,
)
from benchspace.harness.cli import main

SHIPPED = Path(__file__).parents[3] / "evaluation" / "data" / "shapes" / "h200.json"


def triples(shapes: object) -> list[tuple[int, int, int]]:
    return [(s.M, s.N, s.K) for s in shapes]  # type: ignore[attr-defined]


def test_deterministic_for_a_seed(h200: Hardware) -> None:
    first = build_shape_sets(h200, 60, 16, seed=3)
    assert first == build_shape_sets(h200, 60, 16, seed=3)
    assert triples(first.train) != triples(build_shape_sets(h200, 60, 16, seed=4).train)


def test_domain_and_size_limit(h200: Hardware) -> None:
    sets = build_shape_sets(h200, 120, 16, seed=0)
    for m, n, k in triples(sets.train) + triples(sets.eval):
        for d in (m, n, k):
            assert d % 32 == 0 and 32 <= d <= 16384
        assert m * n * k <= MAX_VOLUME
    assert len(set(triples(sets.train))) == 120


def test_training_mix_follows_the_study(h200: Hardware) -> None:
    sets = build_shape_sets(h200, 60, 0, seed=0)
    construction = Counter(
        next((c for c in s.classes if c in ("neighbour", "transition")), "primary")
        for s in sets.train
    )
    # 60 * (297+172, 92, 32) / 593 by largest remainder: 30 + 18 primary, 9, 3.
    assert construction == {"primary": 48, "neighbour": 9, "transition": 3}
    kinds = Counter(c for s in sets.train for c in s.classes)
    for kind in ("tall", "wide", "skinny_k", "deep_k", "corner", "ridge", "llc"):
        assert kinds[kind] >= 1, kind
    assert (32, 32, 16384) in triples(sets.train) or (16384, 32, 32) in triples(sets.train)


def test_neighbours_change_one_dimension(h200: Hardware) -> None:
    sets = build_shape_sets(h200, 60, 0, seed=0)
    primary = [t for s, t in zip(sets.train, triples(sets.train), strict=True)
               if "neighbour" not in s.classes and "transition" not in s.classes]  # fmt: skip
    for s in sets.train:
        if "neighbour" in s.classes:
            t = (s.M, s.N, s.K)
            assert any(sum(a != b for a, b in zip(t, p, strict=True)) == 1 for p in primary)


def test_transitions_sit_near_the_ridge_and_llc(h200: Hardware) -> None:
    sets = build_shape_sets(h200, 400, 0, seed=1)
    ridge = [s for s in sets.train if "ridge" in s.classes]
    llc = [s for s in sets.train if "llc" in s.classes]
    assert ridge and llc
    for s in ridge:  # drawn within 0.8-1.25x of 206.1 flop/byte; snapping K moves it a little
        assert 0.6 < intensity(s.M, s.N, s.K) / h200.ridge_flops_per_byte < 1.6
    for s in llc:
        assert 0.6 < working_set(s.M, s.N, s.K) / h200.llc_bytes < 1.6


def test_evaluation_shapes_are_new_and_cover_geometry_and_size(h200: Hardware) -> None:
    sets = build_shape_sets(h200, 60, 16, seed=0)
    assert not set(triples(sets.eval)) & set(triples(sets.train))
    tags = Counter(c for s in sets.eval for c in s.classes)
    for tag in ("square", "tall", "wide", "skinny_k", "small", "medium", "large"):
        assert tags[tag] >= 3, tag
    strata = {
        (g, size_tag(s.M, s.N, s.K)) for s in sets.eval[:12] for g in geometry_tags(s.M, s.N, s.K)
    }
    for g in ("square", "tall", "wide", "skinny_k"):
        for size in ("small", "medium", "large"):
            assert (g, size) in strata


def test_classification() -> None:
    assert snap(47) == 32 and snap(49) == 64 and snap(10) == 32 and snap(99999) == 16384
    assert geometry_tags(4096, 4096, 4096) == ["square"]
    assert geometry_tags(8192, 256, 4096) == ["tall"]
    assert geometry_tags(4096, 4096, 256) == ["skinny_k"]
    assert size_tag(1024, 1024, 1024) == "small" and size_tag(4096, 4096, 4097) == "large"
    assert intensity(4096, 4096, 4096) == pytest.approx(4096 / 3)


def test_file_round_trip(tmp_path: Path, h200: Hardware) -> None:
    sets = build_shape_sets(h200, 12, 4, seed=0)
    path = tmp_path / "sub" / "shapes.json"
    write_shape_sets(path, sets)
    text = path.read_text()
    assert text.endswith("}\n") and json.loads(text)["format"] == "benchspace-cutlass-shapes"
    assert text == json.dumps(shape_sets_to_json(sets), indent=2, sort_keys=True) + "\n"
    assert load_shape_sets(path) == sets
    assert shape_cases(sets.eval[:1]) == [
        {"fixed": {"M": sets.eval[0].M, "N": sets.eval[0].N, "K": sets.eval[0].K}}
    ]


def test_shipped_file_is_current() -> None:
    shipped = load_shape_sets(SHIPPED)
    assert (shipped.gpu, len(shipped.train), len(shipped.eval)) == ("h200", 60, 16)
    assert shipped == build_shape_sets(load_hardware("h200"), 60, 16, seed=shipped.seed)


def test_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "benchspace-cutlass-shapes", "version": 9}')
    with pytest.raises(ShapeError, match=r"x\.json: \$\.version: 9 is not supported"):
        load_shape_sets(path)
    data = json.loads(SHIPPED.read_text())
    data["train"][2]["M"] = -4
    path.write_text(json.dumps(data))
    with pytest.raises(ShapeError, match=r"x\.json: \$\.train\[2\]\.M: -4 must be a positive"):
        load_shape_sets(path)


def test_cli_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "h200.json"
    argv = ["cutlass", "shapes", "--gpu", "h200", "--train", "10", "--eval", "4", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"{out}: 10 training and 4 evaluation shapes for h200")
    assert printed[1].startswith("train: ") and printed[2].startswith("eval: ")
    sets = load_shape_sets(out)
    assert (len(sets.train), len(sets.eval)) == (10, 4)


def test_layer_shape_sets_are_new_and_current() -> None:
    from benchspace.evaluation.cutlass.shape_draw import EVAL_MAX_VOLUME, build_layer_sets

    root = Path(__file__).parents[3] / "evaluation" / "data" / "shapes"
    v1 = load_shape_sets(root / "h200.json")
    v2 = load_shape_sets(root / "h200_v2.json")
    assert v2 == build_layer_sets(load_hardware("h200"), [v1], 240, seed=v2.seed)
    old = {(s.M, s.N, s.K) for s in (*v1.train, *v1.eval)}
    new = [(s.M, s.N, s.K) for s in (*v2.train, *v2.eval)]
    assert len(new) == len(set(new)) and not old & set(new)
    assert len(v2.eval) >= 64 and len(v2.train) >= 240
    assert all(m * n * k <= EVAL_MAX_VOLUME for m, n, k in new)
    layer = [s for s in v2.eval if "layer" in s.classes]
    assert layer and all(s.M % 8 == 0 for s in (*v2.train, *v2.eval))


@pytest.mark.parametrize("argv", [["shapes", "--layers"], ["shapes-v2"]])
def test_the_layers_action_and_its_old_spelling_write_v2_sets(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchspace.harness.cli import main

    root = Path(__file__).parents[3] / "evaluation" / "data" / "shapes"
    out = tmp_path / "v2.json"
    previous = ["--previous", str(root / "h200.json")]
    assert main(["cutlass", *argv, *previous, "--train", "12", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    sets = load_shape_sets(out)
    assert printed[0].startswith(f"{out}: {len(sets.train)} training and {len(sets.eval)} ")
    assert sets.seed == 2 and any("layer" in s.classes for s in sets.train)
    v1 = load_shape_sets(root / "h200.json")
    old = {(s.M, s.N, s.K) for s in (*v1.train, *v1.eval)}
    assert not old & {(s.M, s.N, s.K) for s in (*sets.train, *sets.eval)}


def test_previous_without_layers_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchspace.harness.cli import main

    argv = ["cutlass", "shapes", "--previous", "a.json", "--out", str(tmp_path / "s.json")]
    assert main(argv) == 2
    assert "add --layers" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()
