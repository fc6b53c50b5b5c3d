"""Reading a generated GEMM header back: its CUTLASS kernels, pinned entries and ``cublas``."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_headers import KERNEL, PINNED, VERSION, legacy, small_header, with_pinned

from benchspace.evaluation.cutlass.library.header_read import parse_header, pinned_key
from benchspace.harness.errors import HeaderError

ROOT = Path(__file__).resolve().parents[4]
SHIPPED = ROOT / "include" / "benchspace" / "gemm_kernels.hh"


def test_the_shipped_header_lists_its_kernels() -> None:
    text = SHIPPED.read_text()
    header = parse_header(text, str(SHIPPED))
    assert header.namespace == "benchspace::gemm"
    assert header.env_var == "BENCHSPACE_GEMM_KERNEL"
    assert header.count == int(text.split("kGemmKernelCount = ")[1].split(";")[0])
    assert len(header.cutlass) == header.count - 1 - len(header.pinned)
    assert all(name.startswith("cutlass3x_sm90_") for name in header.cutlass)


def test_the_generators_header_has_the_pinned_block_with_no_entries() -> None:
    header = parse_header(small_header(), "h.hh")
    assert header.has_pinned_block
    assert header.pinned == ()
    assert header.cutlass == (KERNEL,)


def test_a_header_without_the_pinned_block() -> None:
    header = parse_header(legacy(small_header()), "h.hh")
    assert header.cutlass == (KERNEL,)
    assert header.pinned == ()
    assert not header.has_pinned_block
    assert header.cublaslt_version == 0
    assert header.count == 2


def test_pinned_entries_sit_between_the_kernels_and_cublas() -> None:
    header = parse_header(with_pinned(legacy(small_header())), "h.hh")
    assert header.has_pinned_block
    assert header.cutlass == (KERNEL,)
    assert [p.code for p in header.pinned] == [1, 2]
    assert [p.values for p in header.pinned] == list(PINNED)
    assert header.pinned[0].enumerator == "cublaslt_66_194_1_0_0_6_35_0_5"
    assert header.pinned[0].key == (
        "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"
    )
    assert header.pinned[0].key == pinned_key(PINNED[0])
    assert header.cublaslt_version == VERSION
    assert header.count == 4


def test_the_pinned_block_with_no_entries() -> None:
    header = parse_header(with_pinned(legacy(small_header()), pinned=()), "h.hh")
    assert header.has_pinned_block
    assert header.pinned == ()
    assert header.cutlass == (KERNEL,)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace("enum class GemmKernel", "enum GemmKernel"),
            "no `enum class GemmKernel",
        ),
        (lambda t: t.replace(" = 0,\n", " = 5,\n", 1), "expected 0"),
        (lambda t: t.replace("    cublas = 1,\n", ""), "does not end with `cublas`"),
        (
            lambda t: t.replace("kGemmKernelCount = 2;", "kGemmKernelCount = 3;"),
            "kGemmKernelCount is 3",
        ),
        (
            lambda t: t.replace(f'    "{KERNEL}",\n', '    "other",\n'),
            "kGemmKernelNames[0] is 'other'",
        ),
        (lambda t: t.replace("namespace benchspace::gemm {", "namespace {"), "no `namespace X {`"),
    ],
)
def test_a_damaged_header_is_refused_with_the_line_to_fix(edit, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(
        HeaderError, match="^h.hh: .*" + message.replace("[", r"\[").replace("(", r"\(")
    ) as info:
        parse_header(edit(small_header()), "h.hh")
    assert "\n" not in str(info.value)
    assert str(info.value).endswith(
        "regenerate it with `benchspace cutlass header`"
    ) or "GEMM kernel header" in str(info.value)


def test_a_pinned_entry_that_disagrees_with_its_row_is_refused() -> None:
    text = with_pinned(legacy(small_header())).replace(
        "{66, 194, 1, 0, 0, 6, 35, 0, 5}", "{66, 194, 1, 0, 0, 6, 35, 0, 6}"
    )
    with pytest.raises(HeaderError, match=r"h.hh: pinned entry 1 \(cublaslt_66_194"):
        parse_header(text, "h.hh")


def test_pinned_counts_that_miss_cublas_are_refused() -> None:
    text = with_pinned(legacy(small_header())).replace("kNumPinned = 2;", "kNumPinned = 1;")
    with pytest.raises(HeaderError, match="do not end just before `cublas`"):
        parse_header(text, "h.hh")
