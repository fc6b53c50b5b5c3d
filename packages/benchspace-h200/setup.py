"""Build hook: the package ``benchspace_h200`` is the repository's ``evaluation/data`` folder.

The files are copied into the build tree at build time, so the repository keeps them once.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "evaluation" / "data"
PACKAGE = "benchspace_h200"
INIT = '"""benchspace\'s measured H200 data: the files beside this module."""\n'


class BuildPyWithData(build_py):
    """``build_py`` that lays ``evaluation/data`` out as the package ``benchspace_h200``."""

    def run(self) -> None:
        if not DATA.is_dir():
            raise SystemExit(f"{DATA}: no such folder; build benchspace-h200 from a checkout")
        out = Path(self.build_lib) / PACKAGE
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(DATA, out, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (out / "__init__.py").write_text(INIT, encoding="utf-8")


class DataDistribution(Distribution):
    """A distribution whose one package exists only once ``build_py`` has laid it out."""

    def has_pure_modules(self) -> bool:
        return True


setup(distclass=DataDistribution, cmdclass={"build_py": BuildPyWithData})
