"""The cross-field rules of compile and build: one exact message per mistake."""

from __future__ import annotations

from typing import Any

import pytest

from benchspace.harness.errors import SpaceError
from benchspace.harness.spaces.load import parse_space

BUILD = {"command": ["g++", "{defines}", "-o", "{exe}", "b.cc"]}


def _space(**over: Any) -> dict[str, Any]:
    bench: dict[str, Any] = {
        "bench": "b",
        "metric": "t",
        "reader": "csv",
        "arg_spec": ["n"],
        "compile": ["LANES"],
        "build": BUILD,
        "cases": [{"fixed": {"n": 1}, "tune": {"LANES": [1, 2]}}],
    }
    bench.update(over)
    return {"spaces": [{k: v for k, v in bench.items() if v is not None}]}


def _message(data: dict[str, Any]) -> str:
    with pytest.raises(SpaceError) as err:
        parse_space(data, source="s.json")
    return str(err.value)


def test_a_valid_compile_bench_loads() -> None:
    space = parse_space(_space(), source="s.json")
    bench = space.benches[0]
    assert bench.compile == ("LANES",)
    assert bench.build is not None and bench.build.deliver == "define"
    assert bench.build.timeout_s is None and not bench.build.overlap


@pytest.mark.parametrize(
    ("over", "expected"),
    [
        (
            {"arg_spec": ["n", "LANES"]},
            "s.json: $.spaces[0].compile[0]: 'LANES' is compile-time, so it cannot also be an "
            "argument; remove it from arg_spec (the build delivers it)",
        ),
        (
            {"env": {"LANES": "LANES_ENV"}},
            "s.json: $.spaces[0].env.LANES: 'LANES' is compile-time, so it cannot also be an "
            "environment variable; remove it from env (the build delivers it)",
        ),
        (
            {"cases": [{"fixed": {"n": 1}, "tune": {}}]},
            "s.json: $.spaces[0].cases[0]: no value for 'LANES', which compile declares; add "
            "a grid for it to this case's tune",
        ),
        (
            {"build": None},
            's.json: $.spaces[0].compile: compile-time parameters need a build; add "build": '
            '{"command": ["c++", "-O2", "{defines}", "-o", "{exe}", "bench.cc"]}',
        ),
        (
            {"build": {"command": ["g++", "{defines}", "-o", "{exe}", "{srcdir}/b.cc"]}},
            "s.json: $.spaces[0].build.command[4]: unknown placeholder {srcdir} (did you mean "
            "'source_dir'?); the command knows {defines}, {exe}, {variant_dir}, {source_dir}, "
            "{build_dir}",
        ),
        (
            {"build": {"command": ["g++", "{defines}", "b.cc"]}},
            "s.json: $.spaces[0].build.command: the command never names {exe}, so the harness "
            'cannot find the executable it builds; write the output as "{exe}", e.g. "-o", '
            '"{exe}"',
        ),
        (
            {"build": {"command": ["g++", "-o", "{exe}", "b.cc"]}},
            "s.json: $.spaces[0].build.command: the command never names {defines}, so the "
            'compile-time values never reach the compiler; add "{defines}" as one word',
        ),
        (
            {"cases": [{"fixed": {"n": 1}, "tune": {"LANES": ["a b"]}}]},
            "s.json: $.spaces[0].cases[0].tune.LANES[0]: 'a b' is not one C++ token; a "
            "compile-time value is written into -D and #define as is: drop blanks, quotes "
            "and backslashes",
        ),
    ],
)
def test_each_mistake_has_its_message(over: dict[str, Any], expected: str) -> None:
    assert _message(_space(**over)) == expected


def test_the_schema_refuses_an_unknown_build_key_and_delivery() -> None:
    assert "$.spaces[0].build" in _message(_space(build={**BUILD, "jobs": 2}))
    assert "$.spaces[0].build.deliver" in _message(_space(build={**BUILD, "deliver": "env"}))
