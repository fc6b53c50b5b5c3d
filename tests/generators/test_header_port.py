"""Porting chosen constants into a hand-maintained header changes only their value lines."""

from __future__ import annotations

import difflib
import json
import os
import stat
from pathlib import Path

import pytest
from header_helpers import DATA, GOLDEN

from benchspace.generators.header_parse import ParsedHeader, parse_header
from benchspace.generators.port import accepted_constants, port_values, select_constants
from benchspace.harness.cli import main
from benchspace.harness.errors import HeaderError


def golden() -> ParsedHeader:
    return parse_header((GOLDEN / "demo_like.hh").read_text(), "tests/golden/demo_like.hh")


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines of a diff."""
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
    removed = [d[1:] for d in diff if d.startswith("-") and not d.startswith("---")]
    added = [d[1:] for d in diff if d.startswith("+") and not d.startswith("+++")]
    return removed, added


def test_only_the_chosen_value_lines_change(checked_in: ParsedHeader) -> None:
    names = select_constants(golden(), ["MATMUL_BLOCK", "SORT_BRANCHLESS_MERGE_SMALL"])
    assert names == [
        "MATMUL_BLOCK_TINY",
        "MATMUL_BLOCK_SMALL",
        "MATMUL_BLOCK_MEDIUM",
        "MATMUL_BLOCK_LARGE",
        "MATMUL_BLOCK_XLARGE",
        "SORT_BRANCHLESS_MERGE_SMALL",
    ]
    before = "".join(checked_in.lines)
    after, edits = port_values(checked_in, golden(), names)
    assert [(e.name, e.old_text, e.new_text) for e in edits] == [
        ("MATMUL_BLOCK_TINY", "64", "32"),
        ("MATMUL_BLOCK_LARGE", "64", "128"),
        ("MATMUL_BLOCK_XLARGE", "32", "64"),
        ("SORT_BRANCHLESS_MERGE_SMALL", "false", "true"),
    ]
    removed, added = changed_lines(before, after)
    assert removed == [
        "inline constexpr int32_t MATMUL_BLOCK_TINY = 64;  // hand-picked: L1 holds three "
        "64x64 tiles",
        "inline constexpr int32_t MATMUL_BLOCK_LARGE = 64;",
        "inline constexpr int32_t MATMUL_BLOCK_XLARGE = 32;",
        "inline constexpr bool SORT_BRANCHLESS_MERGE_SMALL = false;",
    ]
    assert added == [
        "inline constexpr int32_t MATMUL_BLOCK_TINY = 32;  // hand-picked: L1 holds three "
        "64x64 tiles",
        "inline constexpr int32_t MATMUL_BLOCK_LARGE = 128;",
        "inline constexpr int32_t MATMUL_BLOCK_XLARGE = 64;",
        "inline constexpr bool SORT_BRANCHLESS_MERGE_SMALL = true;",
    ]


def test_crlf_headers_stay_crlf() -> None:
    header = parse_header("// note\r\ninline constexpr int32_t DOT_LANES_MEDIUM = 4;\r\n", "h")
    text, _ = port_values(header, golden(), ["DOT_LANES_MEDIUM"])
    assert text == "// note\r\ninline constexpr int32_t DOT_LANES_MEDIUM = 8;\r\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "",
            "h: DOT_LANES_MEDIUM is not defined; add `inline constexpr TYPE DOT_LANES_MEDIUM = "
            "VALUE;` by hand first",
        ),
        (
            "inline constexpr int32_t DOT_LANES_MEDIUM =\n    4;\n",
            "h: line 2: DOT_LANES_MEDIUM is not defined as one `constexpr TYPE DOT_LANES_MEDIUM = "
            "LITERAL;` line, so port cannot edit it safely; edit it by hand",
        ),
        (
            "#define DOT_LANES_MEDIUM 4\n",
            "h: line 2: DOT_LANES_MEDIUM is not defined as one `constexpr TYPE DOT_LANES_MEDIUM = "
            "LITERAL;` line, so port cannot edit it safely; edit it by hand",
        ),
        (
            "inline constexpr int32_t DOT_LANES_MEDIUM = /* tuned */ 4;\n",
            "h: line 2: DOT_LANES_MEDIUM is not defined as one `constexpr TYPE DOT_LANES_MEDIUM = "
            "LITERAL;` line, so port cannot edit it safely; edit it by hand",
        ),
        (
            "inline constexpr int32_t DOT_LANES_MEDIUM = DOT_LANES_SMALL * 2;\n",
            "h: line 2: DOT_LANES_MEDIUM = DOT_LANES_SMALL * 2 is not a plain literal, so port "
            "cannot edit it safely; edit it by hand",
        ),
        (
            "#if A\ninline constexpr int32_t DOT_LANES_MEDIUM = 4;\n#else\n"
            "inline constexpr int32_t DOT_LANES_MEDIUM = 2;\n#endif\n",
            "h: DOT_LANES_MEDIUM is defined on lines 3, 5; keep one definition or edit it by hand",
        ),
        (
            "inline constexpr int DOT_LANES_MEDIUM = 4;\n",
            "h:2: DOT_LANES_MEDIUM has type int, the generated header int32_t; change the type by "
            "hand (or the space's constant type)",
        ),
    ],
)
def test_refusals(line: str, message: str) -> None:
    header = parse_header("inline constexpr int32_t DOT_LANES_LARGE = 4;\n" + line, "h")
    with pytest.raises(HeaderError) as info:
        port_values(header, golden(), ["DOT_LANES_LARGE", "DOT_LANES_MEDIUM"])
    assert str(info.value) == message


def test_unknown_names_are_refused() -> None:
    with pytest.raises(HeaderError) as info:
        select_constants(golden(), ["MATMUL"])
    assert str(info.value) == (
        "tests/golden/demo_like.hh: defines no constant or family 'MATMUL'; name a family "
        "(DOT_LANES, MATMUL_BLOCK, SORT_BRANCHLESS_MERGE, SORT_INSERTION_CUTOFF) or one of its "
        "constants"
    )


def test_review_documents_are_checked() -> None:
    with pytest.raises(HeaderError, match=r"^r.json: \$.format: 'x' is not a review"):
        accepted_constants({"format": "x"}, "r.json")
    with pytest.raises(HeaderError, match=r"^r.json: \$.changes\[0\].accepted: 'yes' is not"):
        accepted_constants(
            {
                "format": "benchspace-review",
                "version": 1,
                "changes": [{"name": "A", "new_text": "1", "accepted": "yes"}],
            },
            "r.json",
        )


def _copy_checked_in(tmp_path: Path) -> Path:
    header = tmp_path / "tuning_params.hh"
    header.write_bytes((DATA / "demo_checked_in.hh").read_bytes())
    header.chmod(0o640)
    return header


def test_port_command_writes_in_place_and_keeps_the_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = _copy_checked_in(tmp_path)
    before = header.read_text()
    code = main(
        [
            "port",
            "--generated",
            str(GOLDEN / "demo_like.hh"),
            "--header",
            str(header),
            "--only",
            "DOT_LANES",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert f"{header}:69: DOT_LANES_MEDIUM: 4 -> 8" in out
    assert "ported 3 values" in out and "(2 already equal)" in out
    assert stat.S_IMODE(os.stat(header).st_mode) == 0o640
    removed, added = changed_lines(before, header.read_text())
    assert [r.split()[3] for r in removed] == [
        "DOT_LANES_MEDIUM",
        "DOT_LANES_LARGE",
        "DOT_LANES_XLARGE",
    ]
    assert all(a.endswith("= 8;") for a in added)


def test_a_refused_port_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = tmp_path / "h.hh"
    header.write_text("inline constexpr int32_t DOT_LANES_TINY = 1;\n")
    code = main(
        [
            "port",
            "--generated",
            str(GOLDEN / "demo_like.hh"),
            "--header",
            str(header),
            "--only",
            "DOT_LANES",
        ]
    )
    assert code == 1
    assert header.read_text() == "inline constexpr int32_t DOT_LANES_TINY = 1;\n"
    assert "DOT_LANES_SMALL is not defined" in capsys.readouterr().err


def test_port_accepted_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = _copy_checked_in(tmp_path)
    review = tmp_path / "review.json"
    args = [
        "review",
        "--generated",
        str(GOLDEN / "demo_like.hh"),
        "--header",
        str(header),
        "--profile",
        "tests/data/profiles/demo_like.json",
        "--space",
        "tests/generators/spaces/demo_like.json",
        "--format",
        "json",
        "--out",
        str(review),
    ]
    assert main(args) == 0
    document = json.loads(review.read_text())
    for change in document["changes"]:
        change["accepted"] = change["name"].startswith("SORT_")
    review.write_text(json.dumps(document))
    before = header.read_text()
    assert (
        main(
            [
                "port",
                "--generated",
                str(GOLDEN / "demo_like.hh"),
                "--header",
                str(header),
                "--accepted",
                str(review),
            ]
        )
        == 0
    )
    removed, _ = changed_lines(before, header.read_text())
    assert [r.split()[3] for r in removed] == [
        "SORT_BRANCHLESS_MERGE_TINY",
        "SORT_BRANCHLESS_MERGE_SMALL",
        "SORT_BRANCHLESS_MERGE_MEDIUM",
    ]
    # A review of another generated header is refused.
    document["changes"][6]["new_text"] = "true"
    review.write_text(json.dumps(document))
    capsys.readouterr()
    assert (
        main(
            [
                "port",
                "--generated",
                str(GOLDEN / "demo_like.hh"),
                "--header",
                str(header),
                "--accepted",
                str(review),
            ]
        )
        == 1
    )
    assert "SORT_BRANCHLESS_MERGE_TINY: the review proposes true" in capsys.readouterr().err
