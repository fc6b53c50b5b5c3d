"""The wheel ships what an installed benchspace needs beyond its modules."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_ships_the_driver_sources_the_cmake_helper_and_the_data(
    tmp_path: Path,
) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("benchspace-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "evaluation/cutlass/driver/cutlass_bench.cu",
        "evaluation/cutlass/driver/cb_kernel.hpp",
        "evaluation/cutlass/driver/cb_abi.h",
        "evaluation/cutlass/driver/batch.cu.j2",
        "harness/data/benchspace.cmake",
        "harness/data/cxx_macros.txt",
        "harness/schema/space-1.schema.json",
        "generators/templates/tuning_params.hh.j2",
        "evaluation/data/models/h200_selector.json",
        "evaluation/data/hardware/h200.json",
    ):
        assert name in names, name
