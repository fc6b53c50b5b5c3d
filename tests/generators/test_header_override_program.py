"""A compiled program reads the accessors with and without their env variables set."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from header_helpers import GOLDEN, ROOT, compile_cxx

from benchspace.generators.header_parse import parse_header

DEMO = "BENCHSPACE_DEMO_TUNE_"
SIZES = (-1, 0, 64, 65, 128, 256, 512, 513, 100000)
BUCKETS = ("TINY", "TINY", "TINY", "SMALL", "SMALL", "MEDIUM", "LARGE", "XLARGE", "XLARGE")


@pytest.fixture(scope="module")
def program(gxx: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpp") / "read_override"
    compile_cxx(gxx, [ROOT / "tests" / "cpp" / "read_override.cc"], out, [GOLDEN])
    return out


def run(program: Path, **env: str) -> dict[str, str]:
    """name(size) -> printed value, with `env` set on top of an environment without overrides."""
    prefixes = (DEMO, "KINDS_TUNE_", "BATCHLAS_TUNE_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    proc = subprocess.run(
        [str(program)], env={**clean, **env}, capture_output=True, text=True, check=True
    )
    return dict(line.split("=", 1) for line in proc.stdout.splitlines())


def compiled(constant: str) -> dict[str, str]:
    """The golden's value of `constant` at every size the program prints, as it prints them."""
    parsed = parse_header((GOLDEN / "demo_like.hh").read_text(), "demo_like.hh")
    out = {}
    for size, bucket in zip(SIZES, BUCKETS, strict=True):
        value = parsed.value(f"{constant}_{bucket}")
        out[f"{constant.lower()}_for_n({size})"] = str(int(value) if value is not None else "")
    return out


def block(values: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in values.items() if k.startswith("matmul_block_for_n")}


def test_without_the_variable_each_size_gets_its_buckets_value(program: Path) -> None:
    values = run(program)
    assert block(values) == compiled("MATMUL_BLOCK")
    assert {k: v for k, v in values.items() if k.startswith("sort_branchless")} == compiled(
        "SORT_BRANCHLESS_MERGE"
    )
    # The compiled buckets differ, so the bucket edges are exercised.
    assert len(set(block(values).values())) > 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48", "48"),  # a valid override replaces every bucket
        ("0", "0"),  # 0 is a value, not "unset"
        ("-5", "-5"),
        ("", None),  # empty: keep the compiled value
        ("12abc", None),  # trailing garbage
        ("abc", None),
        ("48 ", None),
        ("2147483648", None),  # out of int32_t's range
        ("99999999999999999999", None),  # out of long long's range
    ],
)
def test_matmul_block_override(program: Path, text: str, expected: str | None) -> None:
    got = block(run(program, **{DEMO + "MATMUL_BLOCK": text}))
    want = compiled("MATMUL_BLOCK") if expected is None else dict.fromkeys(got, expected)
    assert got == want
    # Other constants are untouched.
    assert (
        run(program, **{DEMO + "MATMUL_BLOCK": text})["dot_lanes_for_n(64)"]
        == run(program)["dot_lanes_for_n(64)"]
    )


@pytest.mark.parametrize(
    ("text", "expected"), [("1", "1"), ("0", "0"), ("2", None), ("true", None)]
)
def test_boolean_override(program: Path, text: str, expected: str | None) -> None:
    got = {
        k: v
        for k, v in run(program, **{DEMO + "SORT_BRANCHLESS_MERGE": text}).items()
        if k.startswith("sort_branchless")
    }
    want = compiled("SORT_BRANCHLESS_MERGE") if expected is None else dict.fromkeys(got, expected)
    assert got == want


@pytest.mark.parametrize(
    ("variable", "text", "printed"),
    [
        ("KERNEL_VARIANT", "Scalar", "0"),  # by name
        ("KERNEL_VARIANT", "2", "2"),  # by code
        ("KERNEL_VARIANT", "3", None),  # no such code
        ("KERNEL_VARIANT", "scalar", None),  # names are case-sensitive
        ("UNROLL", "255", "255"),
        ("UNROLL", "256", None),
        ("UNROLL", "-1", None),
        ("OFFSET", "-128", "-128"),
        ("SCALE", "2.5", "2.5"),
        ("SCALE", "nan", None),
        ("SCALE", "1e999", None),
        ("CHUNK", "0", "0"),
        # strtoll stops at LLONG_MAX: larger uint64_t values can only be compiled in.
        ("BIG", "9223372036854775807", "9223372036854775807"),
        ("BIG", "18446744073709551615", None),
    ],
)
def test_kinds_overrides(program: Path, variable: str, text: str, printed: str | None) -> None:
    accessor = variable.lower() + "_for_m"
    base = run(program)
    got = run(program, **{"KINDS_TUNE_" + variable: text})
    for m in ("1000", "1001"):
        key = f"{accessor}({m})"
        assert got[key] == (base[key] if printed is None else printed)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48", "48"),
        ("1", "1"),
        # A size (the space declares "min": 1): what BatchLAS's tuning_env_override ignores
        # keeps the compiled value here too.
        ("0", None),
        ("-5", None),
        ("2147483648", None),
        ("12abc", None),
        ("", None),
    ],
)
def test_a_size_override_follows_batchlas(program: Path, text: str, expected: str | None) -> None:
    def sizes(values: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in values.items() if k.startswith("ormqr_block_size_for_n")}

    base = sizes(run(program))
    assert len(set(base.values())) > 1  # the buckets differ: a kept value is the bucket's
    got = sizes(run(program, BATCHLAS_TUNE_ORMQR_BLOCK_SIZE=text))
    assert got == (base if expected is None else dict.fromkeys(base, expected))


def test_a_zero_that_means_keep_the_heuristic_is_a_value(program: Path) -> None:
    # SB2ST_BACK_TILE declares no minimum: 0 ("keep the built-in heuristic") is a value.
    got = run(program, BATCHLAS_TUNE_SB2ST_BACK_TILE="0")
    assert {v for k, v in got.items() if k.startswith("sb2st_back_tile")} == {"0"}
