"""The one-way layering, read from the source: who may import whom, no cycles, pure modules.

harness (the core) never imports generators or evaluation, except its CLI package and the
thin script shims that hand over to it; no module imports itself back through a chain of
imports, local (function-level) imports included; the pure modules open no files, start no
processes and read neither the environment nor the clock.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "generators", "evaluation")
#: Scripts that exist so ``python harness/tune.py ...`` keeps working: they hand over to the CLI.
SHIMS = {
    "benchspace.harness.tune",
    "benchspace.harness.sensitivity",
    "benchspace.generators.generate_tuning_header",
}
#: Modules that compute and must stay free of IO (plan, readers, features, render, header model).
PURE = (
    "benchspace.harness.plan",
    "benchspace.harness.execute.readers",
    "benchspace.harness.values",
    "benchspace.harness.variants.spec",
    "benchspace.harness.cxx_types",
    "benchspace.harness.profiles.model",
    "benchspace.harness.profiles.scoring",
    "benchspace.harness.profiles.results",
    "benchspace.harness.profiles.batchlas",
    "benchspace.harness.profiles.upgrade",
    "benchspace.harness.execute.describe",
    "benchspace.harness.analysis.compare",
    "benchspace.harness.analysis.compare_format",
    "benchspace.harness.analysis.sensitivity",
    "benchspace.harness.analysis.noise",
    "benchspace.harness.analysis.slices",
    "benchspace.generators.header_model",
    "benchspace.generators.generate",
    "benchspace.generators.render",
    "benchspace.evaluation.selector.features",
    "benchspace.evaluation.selector.encoding",
)
#: Names whose use means IO, processes, environment or clock.
IMPURE_CALLS = {
    "open",
    "subprocess",
    "os.environ",
    "os.getenv",
    "os.system",
    "os.popen",
    "time.time",
    "time.monotonic",
    "time.perf_counter",
    "datetime.now",
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(("benchspace", *parts))] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[str]:
    """Every project module ``name`` imports, at any depth of the file (local imports too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target in MODULES:
                yield target


GRAPH = {name: sorted(set(_imports(name, path))) for name, path in MODULES.items()}


def _is_cli(name: str) -> bool:
    return name == "benchspace.harness.cli" or name.startswith("benchspace.harness.cli.")


def test_the_core_never_imports_upward() -> None:
    bad = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if name.startswith("benchspace.harness") and not _is_cli(name) and name not in SHIMS
        for target in targets
        if target.startswith(("benchspace.generators", "benchspace.evaluation"))
    ]
    assert bad == []


def test_only_the_cli_and_the_shims_import_the_cli() -> None:
    bad = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if not _is_cli(name) and name not in SHIMS
        for target in targets
        if _is_cli(target)
    ]
    assert bad == []


def test_generators_never_import_evaluation() -> None:
    bad = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if name.startswith("benchspace.generators")
        for target in targets
        if target.startswith("benchspace.evaluation")
    ]
    assert bad == []


def test_no_import_cycle() -> None:
    # Package __init__ modules are implied by their submodules' imports: skip those edges so a
    # package importing its own members is not a cycle.
    graph = {
        name: [t for t in targets if not name.startswith(t + ".") and not t.startswith(name + ".")]
        for name, targets in GRAPH.items()
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == []


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                found.add(func.id)
            elif isinstance(func, ast.Attribute):
                found.add(func.attr)
                if isinstance(func.value, ast.Name):
                    found.add(f"{func.value.id}.{func.attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names]
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            found.update(n for n in [mod, *names] if n in {"subprocess"})
    return found


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_do_no_io(name: str) -> None:
    assert name in MODULES, f"{name} is listed as pure but does not exist"
    assert sorted(_calls(MODULES[name]) & IMPURE_CALLS) == []


def test_no_module_is_too_large_and_no_folder_too_crowded() -> None:
    big = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    assert {n: lines for n, lines in big.items() if lines > 400} == {}
    folders: dict[Path, int] = {}
    for path in MODULES.values():
        folders[path.parent] = folders.get(path.parent, 0) + 1
    assert {str(f.relative_to(ROOT)): n for f, n in folders.items() if n > 25} == {}


def test_no_script_folder_shadows_the_standard_library() -> None:
    # ``python harness/tune.py`` puts harness/ first on sys.path: a harness/profile.py there
    # would be imported instead of the standard library's ``profile``.
    import sys

    folders = {MODULES[shim].parent for shim in SHIMS}
    shadowing = [
        str(path.relative_to(ROOT))
        for path in MODULES.values()
        if path.parent in folders and path.stem in sys.stdlib_module_names
    ]
    assert shadowing == []
