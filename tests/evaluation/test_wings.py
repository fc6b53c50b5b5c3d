"""evaluation/'s wings depend one way (cutlass → selector → study → deploy), read from imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evaluation"
WINGS = ("cutlass", "selector", "study", "deploy")
"""In dependency order: a wing may import the wings before it, never one after it."""


def _imports(path: Path) -> set[str]:
    """Every module a file imports, local (function-level) imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "data" not in p.relative_to(PACKAGE).parts)


def test_every_module_sits_in_a_wing() -> None:
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert loose == []
    folders = {p.relative_to(PACKAGE).parts[0] for p in _modules() if p.parent != PACKAGE}
    assert folders == set(WINGS)


def test_wings_import_only_earlier_wings() -> None:
    wrong = []
    for path in _modules():
        parts = path.relative_to(PACKAGE).parts
        rank = WINGS.index(parts[0]) if len(parts) > 1 else -1
        for name in sorted(_imports(path)):
            pieces = name.removeprefix("benchspace.").split(".")
            if pieces[0] != "evaluation" or len(pieces) < 2 or pieces[1] not in WINGS:
                continue
            if WINGS.index(pieces[1]) > rank:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_nothing_in_evaluation_imports_the_cli() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules()
        for name in sorted(_imports(path))
        if name.startswith("benchspace.harness.cli")
    ]
    assert wrong == []


def test_modules_and_folders_stay_small() -> None:
    long = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    ]
    assert long == []
    for folder in (PACKAGE, *(PACKAGE / w for w in WINGS), ROOT / "harness" / "cli" / "cutlass"):
        assert len(list(folder.glob("*.py"))) <= 25, folder
