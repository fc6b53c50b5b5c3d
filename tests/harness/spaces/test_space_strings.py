"""Strings no C++ build or subprocess can take, and GEMM shapes CUTLASS cannot, are refused
where they are read (issue 22, class 9): NUL characters and lone surrogates in a space (grid
values, env values, flags, row names) with their JSON path; shape files through the file layer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchspace.evaluation.deploy.user_shapes import parse_shape_word, read_user_shapes
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError

BENCH = {
    "bench": "fake",
    "exe": "fake_benchmark",
    "metric": "avg_ms",
    "arg_spec": ["n", "block"],
    "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
}


@pytest.mark.parametrize(
    ("edit", "where", "shown"),
    [
        ({"cases": [{"fixed": {"n": 64}, "tune": {"block": ["1\0"]}}]},
         "$.spaces[0].cases[0].tune.block[0]", "'1\\x00'"),
        ({"env": {"LANES": "\ud800"}}, "$.spaces[0].env.LANES", "'\\ud800'"),
        ({"flags": ["--x=\0"]}, "$.spaces[0].flags[0]", "'--x=\\x00'"),
        ({"row": "BM_\udcff"}, "$.spaces[0].row", "'BM_\\udcff'"),
    ],
)  # fmt: skip
def test_nul_and_lone_surrogates_are_refused_with_the_json_path(
    tmp_path: Path,
    fake_build: Path,
    edit: dict[str, object],
    where: str,
    shown: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"spaces": [{**BENCH, **edit}]}))  # ASCII: \u escapes
    for argv in (["validate", "--space", str(space)],
                 ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out",
                  str(tmp_path / "p.json")]):  # fmt: skip
        assert main(argv) == 1
        what = "a NUL character" if "x00" in shown else "a lone surrogate (not Unicode text)"
        assert capsys.readouterr().err == (
            f"error: {space}: {where}: {shown} holds {what}; remove it\n"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build", "space.json"]


def test_gemm_dimensions_are_below_2_to_the_31() -> None:
    with pytest.raises(UsageError) as err:
        parse_shape_word("2147483648x16x16")
    assert str(err.value) == (
        "--shape: '2147483648x16x16': M = 2147483648 must be below 2^31 (CUTLASS takes 32-bit "
        "dimensions)"
    )
    assert parse_shape_word("2147483647x1x1") == (2**31 - 1, 1, 1)


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"\xff\xfe1 2 3\n", "byte 0 is not UTF-8; save the file as UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "$: nested too deeply to be a shapes file"),
        (b'{"shapes": [[1, 2, 4294967296]]}',
         "$.shapes[0]: [1, 2, 4294967296]: K = 4294967296 must be below 2^31 (CUTLASS takes "
         "32-bit dimensions)"),
    ],
)  # fmt: skip
def test_shape_files_go_through_the_file_layer(tmp_path: Path, blob: bytes, message: str) -> None:
    path = tmp_path / "shapes.json"
    path.write_bytes(blob)
    with pytest.raises(UsageError) as err:
        read_user_shapes([path], [])
    assert str(err.value) == f"{path}: {message}"


def test_a_shape_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "shapes.json"
    path.write_bytes(b'\xef\xbb\xbf{"shapes": [[8, 16, 32]]}')
    assert read_user_shapes([path], []) == [(8, 16, 32)]
