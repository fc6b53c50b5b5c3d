"""docs/architecture.md names every module: a new module without its row fails here.

The rule the document states: in the section ``### <folder>/`` (``harness/``, ``generators/``,
``evaluation/``), each module is named by its path below that folder in backticks
(``execute/readers.py``), each package by its folder (``execute/``); the top folder's own
``__init__.py`` is its section. Several modules may share a row. Paths are used rather than
dotted names because the tables read as the source tree does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
FOLDERS = ("harness", "generators", "evaluation")


def _sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^### ", text, flags=re.MULTILINE)
    out: dict[str, str] = {}
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        folder = heading.split("/")[0].strip()
        if folder in FOLDERS:
            out[folder] = out.get(folder, "") + body
    return out


def _named(body: str) -> set[str]:
    """Every backticked path in a section; ``a.py``, ``b.py`` and ``dir/`` alike."""
    return {m for m in re.findall(r"`([^`\s]+)`", body)}


def _modules(folder: str) -> list[str]:
    out: list[str] = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT / folder)
        if rel == Path("__init__.py"):
            continue
        out.append(f"{rel.parent.as_posix()}/" if rel.name == "__init__.py" else rel.as_posix())
    return out


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_module_is_in_the_architecture_doc(folder: str) -> None:
    sections = _sections()
    assert folder in sections, f"docs/architecture.md has no '### {folder}/' section"
    named = _named(sections[folder])
    missing = [m for m in _modules(folder) if m not in named]
    assert missing == [], f"add a row to docs/architecture.md, section {folder}/, for each"


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_module_the_doc_names_exists(folder: str) -> None:
    named = _named(_sections()[folder])
    paths = [n for n in named if n.endswith(".py") and "*" not in n]
    assert [p for p in paths if not (ROOT / folder / p).is_file()] == []


def test_the_check_bites() -> None:
    # A module left out of a section is reported: the section's text without one row.
    body = _sections()["harness"].replace("`execute/process.py`", "")
    assert "execute/process.py" in _modules("harness")
    assert "execute/process.py" not in _named(body)
