"""The CLI stays thin: no function in harness/cli/ over 60 lines (measured with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 60


def _lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted((ROOT / "harness" / "cli").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                name = f"{path.relative_to(ROOT).as_posix()}:{node.lineno}:{node.name}"
                out[name] = node.end_lineno - node.lineno + 1
    return out


def test_no_cli_function_is_over_60_lines() -> None:
    lengths = _lengths()
    assert len(lengths) > 50  # the walk found the CLI's functions
    assert {name: n for name, n in lengths.items() if n > LIMIT} == {}
