"""scripts/figures.py: the docs' figure blocks are what their commands print."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_module import load_script

ROOT = Path(__file__).resolve().parents[1]


def _figures() -> ModuleType:
    return load_script("scripts/figures.py", "figures")


@pytest.mark.skipif(
    os.environ.get("BENCHSPACE_FIGURES_CHECKED") == "1",
    reason="scripts/test.sh ran `python scripts/figures.py --check` before the tests",
)
def test_the_checked_in_blocks_do_not_drift() -> None:
    assert _figures().main(["--check"]) == 0


def test_a_drifted_block_fails_and_is_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = _figures()
    doc = tmp_path / "doc.md"
    doc.write_text("x\n<!-- figures: batchlas-sensitivity -->\n```text\nold 5.0 %\n```\n"
                   "<!-- /figures -->\n")  # fmt: skip
    monkeypatch.setattr(figures, "documents", lambda: [doc])
    assert figures.main(["--check"]) == 1
    assert "figure 'batchlas-sensitivity' drifted" in capsys.readouterr().err
    assert "old 5.0 %" in doc.read_text()  # --check writes nothing
    assert figures.main(["--write", "batchlas-sensitivity"]) == 0
    assert "7 benches, 265 measurements" in doc.read_text()
    assert figures.main(["--check", "batchlas-sensitivity"]) == 0
    doc.write_text("<!-- figures: nope -->\n<!-- /figures -->\n")
    assert figures.main(["--check"]) == 1
    assert "block 'nope' names no figure" in capsys.readouterr().err


def test_a_slow_block_is_not_re_run_but_must_carry_its_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = _figures()
    slow = figures.Figure("python -c 'print(42)'", fast=False)
    monkeypatch.setattr(figures, "FIGURES", {"answer": slow})
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- figures: answer -->\n```text\n$ x\n41\n```\n<!-- /figures -->\n")
    monkeypatch.setattr(figures, "documents", lambda: [doc])
    assert figures.main(["--check"]) == 1  # no stamp: when was it printed?
    assert "slow figure 'answer' carries no '# printed DATE" in capsys.readouterr().err
    assert figures.main(["--write"]) == 0  # the fast ones only: the slow block stays
    assert "41" in doc.read_text()
    assert figures.main(["--write", "--slow"]) == 0
    text = doc.read_text()
    assert "\n42\n# printed " in text and " at commit " in text
    assert figures.main(["--check"]) == 0  # stamped; not re-run


def test_no_document_carries_a_measured_figure_outside_a_block() -> None:
    figures = _figures()
    texts = [doc.read_text(encoding="utf-8") for doc in figures.documents()]
    quoted = figures.block_figures(texts)
    strays = [
        f"{doc.relative_to(ROOT)}:{line}: {figure}"
        for doc, text in zip(figures.documents(), texts, strict=True)
        for line, figure in figures.stray_figures(text, quoted)
    ]
    assert strays == [], "\n".join(strays)


def test_what_counts_as_a_measured_figure() -> None:
    figures = _figures()
    found = [f for _, f in figures.figures_in(
        "took 1.5 ms and 12 s (3.2 min), 4.09 % mean, 1.002× or 0.95x, 283 MB, 19 of 64 ahead,\n"
        "69 → 42 invocations; sizes 4 MiB to 1 GiB, goal ≤ 5 %, mean <= 1.00 %, 1 ± 2%,\n"
        "--stop rse:0.5% and version 4.2.0, a 256 x 4 tile, 650 kernels, shapes 64x128x64\n"
    )]  # fmt: skip
    assert found == [
        "1.5 ms", "12 s", "3.2 min", "4.09 %", "1.002×", "0.95x", "283 MB", "19 of 64",
        "69 → 42",
    ]  # fmt: skip
    block = "<!-- figures: x -->\n```text\nmean 4.09 %, ratio 1.002, 19 of 64\n```\n"
    block += "<!-- /figures -->\n"
    quoted = figures.block_figures([block])
    text = block + "quoted: 4.09 % and 1.002× and 19 of 64; not printed: 4.1 % and 3 s\n"
    assert [f for _, f in figures.stray_figures(text, quoted)] == ["4.1 %", "3 s"]
    assert figures.stray_figures(block, set()) == []  # inside its block a figure is at home
