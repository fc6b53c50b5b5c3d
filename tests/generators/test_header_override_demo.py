"""The demo's checked-in header under -Werror: an override outside a constant's declared range
(a block size <= 0, more lanes than the kernel has, a value that does not fit) keeps the
compiled value, as BatchLAS's ``tuning_env_override`` does (tests/generators/
test_header_override_program.py holds the goldens to the same rule)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from header_helpers import ROOT, compile_cxx

PREFIX = "BENCHSPACE_DEMO_TUNE_"


@pytest.fixture(scope="module")
def program(gxx: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpp") / "read_demo_override"
    compile_cxx(gxx, [ROOT / "tests" / "cpp" / "read_demo_override.cc"], out, [ROOT / "include"])
    return out


def run(program: Path, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(PREFIX)}
    proc = subprocess.run(
        [str(program)], env={**clean, **env}, capture_output=True, text=True, check=True
    )
    return dict(line.split("=", 1) for line in proc.stdout.splitlines())


def of(values: dict[str, str], accessor: str) -> dict[str, str]:
    return {k: v for k, v in values.items() if k.startswith(accessor + "(")}


@pytest.mark.parametrize(
    ("variable", "text", "expected"),
    [
        ("MATMUL_BLOCK", "32", "32"),
        ("MATMUL_BLOCK", "0", None),  # a block of 0 elements is no size: compiled value kept
        ("MATMUL_BLOCK", "-5", None),
        ("MATMUL_BLOCK", "4097", None),  # above the declared maximum
        ("MATMUL_BLOCK", "2147483648", None),  # does not fit int32_t
        ("MATMUL_BLOCK", "12abc", None),
        ("DOT_LANES", "8", "8"),
        ("DOT_LANES", "0", None),
        ("DOT_LANES", "65", None),
        ("SORT_INSERTION_CUTOFF", "0", "0"),  # declared minimum 0: a value (no insertion sort)
        ("SORT_INSERTION_CUTOFF", "-1", None),
        ("SORT_BRANCHLESS_MERGE", "1", "1"),
        ("SORT_BRANCHLESS_MERGE", "2", None),
    ],
)
def test_an_override_outside_the_declared_range_keeps_the_compiled_value(
    program: Path, variable: str, text: str, expected: str | None
) -> None:
    accessor = variable.lower() + "_for_n"
    base = of(run(program), accessor)
    got = of(run(program, **{PREFIX + variable: text}), accessor)
    assert got == (base if expected is None else dict.fromkeys(base, expected))
