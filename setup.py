"""Build hook: ship the CUTLASS driver sources and the CMake helper inside the wheel.

They live where the project's layout puts them (benchmarks/cutlass/, cmake/) and are copied
into the packages at build time, so an installed benchspace finds them beside its modules
(evaluation/cutlass/driver/, harness/data/). An editable install reads them in place.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
ASSETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "evaluation/cutlass/driver": ("benchmarks/cutlass", ("*.cu", "*.hpp", "*.h", "*.j2", "*.md")),
    "harness/data": ("cmake", ("benchspace.cmake",)),
}


class BuildPyWithAssets(build_py):
    """``build_py`` that also copies the non-package assets into the build tree."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for dest, (src, patterns) in ASSETS.items():
            out = Path(self.build_lib) / dest
            out.mkdir(parents=True, exist_ok=True)
            for pattern in patterns:
                for path in sorted((ROOT / src).glob(pattern)):
                    shutil.copy2(path, out / path.name)


setup(cmdclass={"build_py": BuildPyWithAssets})
