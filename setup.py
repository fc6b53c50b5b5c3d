"""Build hook: the extras, and the CUTLASS driver sources and CMake helper inside the wheel.

The driver sources and the CMake helper live where the project's layout puts them
(benchmarks/cutlass/, cmake/) and are copied into the packages at build time, so an installed
benchspace finds them beside its modules (benchspace/evaluation/cutlass/driver/,
benchspace/harness/data/). An editable install reads them in place.

The study's data is a distribution of its own, ``benchspace-h200`` (packages/benchspace-h200,
built from evaluation/data/), so that the core wheel stays small. The ``[cutlass]`` extra
requires it: from a checkout by a file reference to that folder (so ``pip install
'.[cutlass]'`` works with nothing published), elsewhere by name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
ASSETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "benchspace/evaluation/cutlass/driver": (
        "benchmarks/cutlass",
        ("*.cu", "*.hpp", "*.h", "*.j2", "*.md"),
    ),
    "benchspace/harness/data": ("cmake", ("benchspace.cmake",)),
}
DATA_DIST = ROOT / "packages" / "benchspace-h200"


def _data_requirement() -> str:
    """``benchspace-h200``: the folder beside this file in a checkout, else by name."""
    if (DATA_DIST / "pyproject.toml").is_file() and (ROOT / "evaluation" / "data").is_dir():
        return f"benchspace-h200 @ {DATA_DIST.as_uri()}"
    return "benchspace-h200>=0.1,<0.2"


EXTRAS: dict[str, list[str]] = {
    # The kernel-selection study (benchspace cutlass ...). The versions the committed data was
    # measured with are recorded in its provenance, not pinned here.
    "cutlass": [
        _data_requirement(),
        "nvidia-cutlass>=4.2,<5",
        "pandas>=2.1,<4",
        "xgboost-cpu>=2.1,<4",
        "scikit-learn>=1.3,<2",
    ],
    "hpo": ["optuna>=3.5,<5"],
    "plot": ["matplotlib>=3.8,<4"],
    # benchspace export --format parquet
    "parquet": ["pandas>=2.1,<4", "pyarrow>=14"],
    "progress": ["rich>=13"],
    "dist": ["dask[distributed]>=2024.1"],
    "mlp": ["torch>=2.4"],
    # NVIDIA's nvMatmulHeuristics (proprietary licence): the evaluate command's baseline row.
    "nvmmh": ["nvidia-matmul-heuristics>=0.1,<0.2"],
    "dev": [
        "benchspace[cutlass,plot,progress,parquet]",
        "pytest>=8",
        "pytest-xdist>=3.5",
        "ruff>=0.6",
        "mypy>=1.10",
        "types-jsonschema",
        "pandas-stubs",
    ],
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


setup(cmdclass={"build_py": BuildPyWithAssets}, extras_require=EXTRAS)
