"""Variant keys, commands and headers (pure)."""

from __future__ import annotations

from benchspace.harness.spaces.model import Bench, BuildSpec, Case
from benchspace.harness.variants.spec import (
    build_limit,
    compile_values,
    define_args,
    expand_command,
    header_text,
    tail,
    variant_key,
)

COMMAND = ("g++", "-O2", "{defines}", "-o", "{exe}", "{source_dir}/b.cc", "-I{build_dir}/inc")


def _bench(deliver: str = "define", command: tuple[str, ...] = COMMAND) -> Bench:
    return Bench(
        name="b",
        metric="t",
        compile=("UNROLL", "BLOCK"),
        build=BuildSpec(command=command, deliver=deliver),
        cases=(Case(index=0, fixed={"n": 1}, tune={"BLOCK": (8, 16), "UNROLL": (1, 2)}),),
    )


def test_values_follow_the_declared_order_not_the_grid_order() -> None:
    values = compile_values(_bench(), {"BLOCK": 16, "UNROLL": 2, "n": 1})
    assert values == (("UNROLL", 2), ("BLOCK", 16))
    assert define_args(values) == ["-DUNROLL=2", "-DBLOCK=16"]
    assert define_args((("FAST", True), ("T", "float"))) == ["-DFAST=1", "-DT=float"]


def test_defines_expand_to_one_word_each_and_placeholders_to_paths() -> None:
    argv = expand_command(
        _bench().build,  # type: ignore[arg-type]
        (("UNROLL", 2), ("BLOCK", 16)),
        exe="/v/b_benchmark",
        variant_dir="/v",
        source_dir="/src",
        build_dir="/build",
    )
    assert argv == [
        "g++", "-O2", "-DUNROLL=2", "-DBLOCK=16", "-o", "/v/b_benchmark", "/src/b.cc",
        "-I/build/inc",
    ]  # fmt: skip


def test_header_delivery_puts_the_variant_dir_on_the_include_path() -> None:
    argv = expand_command(
        _bench("header").build,  # type: ignore[arg-type]
        (("UNROLL", 2),),
        exe="/v/x",
        variant_dir="/v",
        source_dir="/s",
        build_dir="/b",
    )
    assert argv[2] == "-I/v"
    text = header_text("b", (("UNROLL", 2), ("BLOCK", 16)))
    assert text.splitlines()[1:] == ["#pragma once", "#define UNROLL 2", "#define BLOCK 16"]


def test_the_key_changes_with_values_compiler_inputs_and_command() -> None:
    bench = _bench()
    values = (("UNROLL", 2), ("BLOCK", 16))
    base = variant_key(bench, values, compiler="g++ 13", inputs=[("b.cc", "aa")])
    assert base == variant_key(bench, values, compiler="g++ 13", inputs=[("b.cc", "aa")])
    others = {
        variant_key(bench, (("UNROLL", 2), ("BLOCK", 8)), compiler="g++ 13", inputs=[]),
        variant_key(bench, values, compiler="g++ 14", inputs=[("b.cc", "aa")]),
        variant_key(bench, values, compiler="g++ 13", inputs=[("b.cc", "bb")]),
        variant_key(_bench(command=(*COMMAND, "-g")), values, compiler="g++ 13",
                    inputs=[("b.cc", "aa")]),
        variant_key(_bench("header"), values, compiler="g++ 13", inputs=[("b.cc", "aa")]),
        variant_key(bench, (("UNROLL", "2"), ("BLOCK", 16)), compiler="g++ 13",
                    inputs=[("b.cc", "aa")]),
    }  # fmt: skip
    assert base not in others and len(others) == 6


def test_the_build_limit_is_ten_times_the_first_build_unless_the_space_says() -> None:
    assert build_limit(None, None) == 3600.0
    assert build_limit(None, 4.0) == 40.0
    assert build_limit(None, 0.2) == 10.0  # never below 10 s
    assert build_limit(7.5, 100.0) == 7.5


def test_tail_keeps_the_last_lines() -> None:
    log = "\n".join(f"line {i}" for i in range(100))
    assert tail(log, lines=3) == "line 97\nline 98\nline 99"
