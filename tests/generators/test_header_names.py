"""Names and texts that validate accepts compile; the ones generate would refuse, validate refuses.

The edge cases of issue 14 class 10: macros used as identifiers (``NULL``, ``errno``,
``EXIT_SUCCESS``; ``linux`` and ``unix`` under g++'s default -std=gnu++17), bucket edges at the
int64 limit, a single bucket (its accessor must not leave the size parameter unused under
-Wextra), docs with question marks, names with a trailing newline.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from header_helpers import compile_cxx, profile_of

from benchspace.generators.generate import generate_header
from benchspace.generators.render import Provenance
from benchspace.harness.cxx_macros import cxx_macros
from benchspace.harness.cxx_types import check_comment, check_identifier
from benchspace.harness.errors import SpaceError
from benchspace.harness.spaces.model import Space

SpaceMaker = Callable[..., Space]
PROVENANCE = Provenance(
    benchspace_version="0", profile_sha256="f" * 64, space_path="s.json", space_sha256="e" * 64
)
GNU_FLAGS = ("-std=gnu++17", "-Wall", "-Wextra", "-Werror")


def _bench(sizes: tuple[int, ...] = (8, 300)) -> dict[str, Any]:
    return {
        "bench": "k",
        "metric": "t",
        "arg_spec": ["n", "nb"],
        "cases": [{"fixed": {"n": n}, "tune": {"nb": [4, 8]}} for n in sizes],
    }


def _header(**extra: Any) -> dict[str, Any]:
    constant = {
        "name": "NB",
        "type": "int32_t",
        "sources": [{"bench": "k", "param": "nb"}],
        "fallback": 4,
    }
    constant.update(extra.pop("constant", {}))
    return {
        "path": "x.hh",
        "namespace": "x::tuning",
        "env_prefix": "X_TUNE_",
        "constants": [constant],
        **extra,
    }


def _generate(space: Space, sizes: tuple[int, ...] = (8, 300)) -> str:
    rows = [(i, {"n": n}, {"nb": nb}, 1.0 + nb / 100) for i, n in enumerate(sizes) for nb in (4, 8)]
    return generate_header(
        space, profile_of({"k": rows}), incumbents={}, provenance=PROVENANCE
    ).text


def _compiles(text: str, gxx: str, tmp_path: Path) -> None:
    (tmp_path / "gen.hh").write_text(text)
    accessor = text.split("inline int32_t ", 1)[1].split("(", 1)[0]
    namespace = text.split("namespace ", 1)[1].split(" ", 1)[0]
    unit = tmp_path / "use.cc"
    unit.write_text(
        f'#include "gen.hh"\nint main() {{ return {namespace}::{accessor}(5) > 0 ? 0 : 1; }}\n'
    )
    compile_cxx(gxx, [unit], tmp_path / "use", [tmp_path], flags=GNU_FLAGS)


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(_header(buckets=[["ALL", None]]), id="single-bucket"),
        pytest.param(
            _header(buckets=[["SMALL", 0], ["BIG", 9223372036854775807], ["HUGE", None]]),
            id="edges-at-the-int64-limits",
        ),
        pytest.param(
            _header(constant={"doc": "Why? ? / Really?? No: '?' and \"??\" and ?? then."}),
            id="question-marks-that-are-no-trigraph",
        ),
        pytest.param(_header(namespace="linux_tuning::unix_"), id="macro-like-namespace"),
        pytest.param(
            _header(constant={"name": "EXIT"}, buckets=[["OK", 64], ["BAD", None]]),
            id="macro-like-constant",
        ),
    ],
)
def test_what_validate_accepts_compiles_under_gnu17_wextra(
    header: dict[str, Any], make_space: SpaceMaker, gxx: str, tmp_path: Path
) -> None:
    space = make_space([_bench()], header)
    _compiles(_generate(space), gxx, tmp_path)


def test_a_single_bucket_marks_its_size_parameter_maybe_unused(make_space: SpaceMaker) -> None:
    text = _generate(make_space([_bench()], _header(buckets=[["ALL", None]])))
    assert "nb_default_for_n([[maybe_unused]] int64_t n) noexcept {\n    return NB_ALL;\n}" in text
    two = _generate(make_space([_bench()], _header(buckets=[["A", 64], ["B", None]])))
    assert "[[maybe_unused]]" not in two


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (
            _header(namespace="linux::tuning"),
            "$.header.namespace: namespace part 'linux' is a macro of the compiler or of the "
            "headers the generated file includes, so it cannot be declared; rename it",
        ),
        (
            _header(guard="EXIT_SUCCESS"),
            "$.header.guard: include guard 'EXIT_SUCCESS' is a macro of the compiler or of the "
            "headers the generated file includes, so it cannot be declared; rename it",
        ),
        (
            _header(constant={"type": "enum", "values": ["NULL", "B"]}),
            "$.header.constants[0].values[0]: enumerator 'NULL' is a macro of the compiler or of "
            "the headers the generated file includes, so it cannot be declared; rename it",
        ),
        (
            _header(constant={"doc": "the path ??/ splices"}),
            "$.header.constants[0].doc: the doc contains the trigraph '??/', which g++ warns "
            "about under -Wall; write the question marks apart",
        ),
    ],
)
def test_validate_refuses_what_generate_would(
    header: dict[str, Any], message: str, make_space: SpaceMaker
) -> None:
    with pytest.raises(SpaceError) as info:
        make_space([_bench()], header)
    assert message in str(info.value).splitlines()[0]


def test_the_macro_list_is_the_captured_one() -> None:
    macros = cxx_macros()
    assert {"NULL", "errno", "EXIT_SUCCESS", "EXIT_FAILURE", "linux", "unix"} <= macros
    assert not any(m.startswith("#") or not m for m in macros)
    with pytest.raises(ValueError, match="'unix' is a macro"):
        check_identifier("unix", "namespace part")
    assert check_identifier("unix_", "namespace part") == "unix_"
    with pytest.raises(ValueError, match="control character '\\\\x7f'"):
        check_comment("a \x7f b", "the doc")
