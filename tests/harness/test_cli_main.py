"""The ``benchspace`` entry point: bare ``--help`` imports no subcommand; missing extras."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchspace.harness import cli


def test_bare_help_imports_no_subcommand() -> None:
    code = (
        "import sys\n"
        "from benchspace.harness import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('benchspace.harness.cli.')\n"
        "                and m != 'benchspace.harness.cli.exits'\n"
        "                or m.startswith(('benchspace.generators', 'benchspace.evaluation',\n"
        "                                 'scipy', 'pandas')))\n"
        "print('LOADED:' + ','.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "LOADED:"


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for name in cli.SUBCOMMANDS:
        assert name in out


def test_a_missing_extra_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(name: str) -> None:
        raise ModuleNotFoundError("No module named 'pandas'", name="pandas")

    monkeypatch.setattr(cli.importlib, "import_module", fail)
    assert cli.main(["cutlass", "summary"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "error: 'benchspace cutlass' needs pandas, which is not installed: "
        "pip install 'benchspace[cutlass]'\n"
    )


def test_an_optuna_search_names_the_hpo_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(name: str) -> None:
        raise ModuleNotFoundError("No module named 'optuna'", name="optuna")

    monkeypatch.setattr(cli.importlib, "import_module", fail)
    assert cli.main(["cutlass", "hpo"]) == 1
    assert capsys.readouterr().err.endswith("pip install 'benchspace[hpo]'\n")


#: Import names whose distribution is spelt otherwise.
DISTRIBUTIONS = {
    "cutlass_library": "nvidia-cutlass",
    "sklearn": "scikit-learn",
    "xgboost": "xgboost-cpu",
    "distributed": "dask",
}


def _setup_extras() -> dict[str, list[str]]:
    """setup.py's EXTRAS, read from its source: extra -> the distributions it names."""
    import ast
    import re
    from pathlib import Path

    tree = ast.parse((Path(__file__).resolve().parents[2] / "setup.py").read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "EXTRAS":
            assert isinstance(node.value, ast.Dict)
            return {
                ast.literal_eval(key): [
                    re.split(r"[\[<>=~! ]", item.value)[0]
                    for item in value.elts
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)
                ]
                for key, value in zip(node.value.keys, node.value.values, strict=True)
                if key is not None and isinstance(value, ast.List)
            }
    raise AssertionError("setup.py has no EXTRAS")


def test_every_extra_a_message_names_installs_its_package() -> None:
    extras = _setup_extras()
    assert extras["hpo"] == ["optuna"]
    wrong = {
        package: extra
        for package, extra in cli.EXTRAS.items()
        if DISTRIBUTIONS.get(package, package) not in extras.get(extra, [])
    }
    assert wrong == {}
