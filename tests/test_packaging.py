"""The wheels: the core ships one top-level package and no study data; the data ships apart."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE_LIMIT = 2 * 1024 * 1024


def _wheel(source: Path, out: Path, pattern: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob(pattern)
    return wheel


def test_the_core_wheel_is_one_namespace_with_the_driver_sources_and_no_data(
    tmp_path: Path,
) -> None:
    wheel = _wheel(ROOT, tmp_path, "benchspace-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"benchspace"}
    for name in (
        "benchspace/__init__.py",
        "benchspace/evaluation/cutlass/driver/cutlass_bench.cu",
        "benchspace/evaluation/cutlass/driver/cb_kernel.hpp",
        "benchspace/evaluation/cutlass/driver/cb_abi.h",
        "benchspace/evaluation/cutlass/driver/batch.cu.j2",
        "benchspace/harness/data/benchspace.cmake",
        "benchspace/harness/data/cxx_macros.txt",
        "benchspace/harness/schema/space-1.schema.json",
        "benchspace/generators/templates/tuning_params.hh.j2",
    ):
        assert name in names, name
    assert not [n for n in names if n.startswith("benchspace/evaluation/data/")]
    assert wheel.stat().st_size <= CORE_LIMIT, wheel.stat().st_size


def test_the_data_wheel_holds_the_study_data(tmp_path: Path) -> None:
    wheel = _wheel(ROOT / "packages" / "benchspace-h200", tmp_path, "benchspace_h200-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"benchspace_h200"}
    for name in (
        "benchspace_h200/__init__.py",
        "benchspace_h200/models/h200_selector.json",
        "benchspace_h200/hardware/h200.json",
        "benchspace_h200/shapes/h200_v2.json",
        "benchspace_h200/h200/provenance.json",
        "benchspace_h200/h200/v2/provenance.json",
    ):
        assert name in names, name


def test_the_cutlass_extra_requires_the_data_distribution() -> None:
    metadata = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.metadata('benchspace'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wanted = [line for line in metadata.splitlines() if "benchspace-h200" in line]
    assert wanted and all('extra == "cutlass"' in line for line in wanted), wanted
