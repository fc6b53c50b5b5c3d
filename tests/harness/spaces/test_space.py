"""Space files: loading BatchLAS's real files unchanged, the model, defaults and the counts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from benchspace.harness.errors import SpaceError
from benchspace.harness.spaces.load import load_space, parse_space
from benchspace.harness.spaces.model import (
    DEFAULT_BUCKETS,
    ArgItem,
    Bench,
    Case,
    bench_invocations,
    count_invocations,
    count_with_repeats,
    union_values,
)
from benchspace.harness.spaces.schema import space_schema
from benchspace.harness.values import render_value

SPACES = Path(__file__).resolve().parents[2] / "data" / "spaces"


def test_batchlas_default_loads_unchanged() -> None:
    path = SPACES / "batchlas_default.json"
    space = load_space(path)
    assert [b.name for b in space.benches] == [
        "stedc",
        "sytrd_blocked",
        "ormqr_blocked",
        "gesvd",
        "sb2st",
        "syev",
        "sy2sb",
    ]
    assert space.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert space.format == 1 and space.version == 1 and space.header is None
    assert "_comment" in space.raw  # comments are kept for tools that write a copy
    sb2st = space.bench("sb2st")
    assert sb2st.row == "BM_SB2ST_HH_BACK"
    assert sb2st.metric == "Time (ms)"
    assert sb2st.reader == "minibench-csv" and sb2st.direction == "min"
    assert sb2st.env == {
        "back_tile": "BATCHLAS_TUNE_SB2ST_BACK_TILE",
        "back_subs": "BATCHLAS_TUNE_SB2ST_BACK_SUBS",
    }
    assert [a.text for a in sb2st.arg_spec] == ["n", "batch", "kd"]
    assert all(a.is_param for a in sb2st.arg_spec)
    stedc = space.bench("stedc")
    assert stedc.pre_tune[0].params == {"recursion_threshold": (8, 16, 32, 64)}
    assert stedc.pre_tune[0].cases == (0,)
    assert stedc.tune_params() == ("flat", "threads_per_root", "wg_multiplier")
    syev = space.bench("syev")
    assert syev.grid_union() == {
        "nb": (8, 12, 16, 24, 32, 48, 64),
        "wg": (0, 128),
        "fuse": (0, 1),
    }
    assert syev.cases[2].fixed == {"n": 256, "batch": 1024}
    assert syev.cases[2].tune["fuse"] == (0, 1)


def test_invocation_counts_match_batchlas() -> None:
    default = load_space(SPACES / "batchlas_default.json")
    assert [bench_invocations(b) for b in default.benches] == [64, 27, 46, 16, 36, 70, 10]
    assert count_invocations(default) == 269
    assert count_invocations(load_space(SPACES / "batchlas_unwired.json")) == 36


def test_batchlas_unwired_shares_an_executable_with_rows() -> None:
    space = load_space(SPACES / "batchlas_unwired.json")
    kd, block = space.bench("syev_two_stage_kd"), space.bench("sb2st_block")
    assert kd.exe == block.exe == "syev_two_stage_benchmark"
    assert kd.row == block.row == "BM_SYEV_TWO_STAGE"


def test_extensions_file() -> None:
    space = load_space(SPACES / "extensions.json")
    assert space.format == 1 and space.version == 3
    blocked = space.bench("blocked_sum")
    # defaults apply where the bench does not set the key
    assert blocked.reader == "gbench-json" and blocked.metric == "real_time"
    assert blocked.timeout_s == 30.0 and blocked.repeats == 3
    assert blocked.flags == ("--benchmark_min_time=0.05",)
    assert blocked.pre_tune[0].params["lanes"] == (None, 1, 2, 4)
    assert blocked.consumers[0].bench == "solver" and blocked.consumers[0].cases == (0,)
    assert blocked.consumers[1].exe == "demo_app"
    assert blocked.consumers[1].args == ("--size", "512")
    solver = space.bench("solver")
    assert solver.grid_union() == {"block": (None, 8, 16, 32, 64), "fused": (False, True)}
    zstd = space.bench("zstd_level")
    assert zstd.repeats == 1 and zstd.report_only and zstd.direction == "max"
    assert zstd.render_args({"level": 3, "input": "sample.txt"}) == ("-b3", "sample.txt")
    pick = space.bench("kernel_pick")
    assert pick.sample is not None and pick.sample.budget == 2 and pick.sample.seed == 7
    assert bench_invocations(pick) == 4  # the budget caps each case's 3 and 2 kernels at 2
    assert count_invocations(space) == 26
    assert count_with_repeats(space) == 72
    header = space.header
    assert header is not None and header.buckets == (("SMALL", 256), ("LARGE", None))
    assert header.guard == "DEMO_TUNING_PARAMS_HH"
    block = header.constants[0]
    assert [(s.bench, s.param) for s in block.sources] == [
        ("solver", "block"),
        ("blocked_sum", "block"),
    ]
    assert block.fallback == (16, 32)
    assert header.constants[3].enum_values == ("k128x128_s3", "k128x256_s4", "k64x64_s2")


def test_header_defaults() -> None:
    data = json.loads((SPACES / "extensions.json").read_text(encoding="utf-8"))
    del data["header"]["buckets"], data["header"]["bucket_key"], data["header"]["guard"]
    data["header"]["constants"][0]["fallback"] = 16
    header = parse_space(data, source="mem.json").header
    assert header is not None
    assert header.buckets == DEFAULT_BUCKETS and header.bucket_key == "n" and header.guard is None


def test_bench_lookup_names_the_known_benches() -> None:
    space = load_space(SPACES / "batchlas_unwired.json")
    with pytest.raises(SpaceError) as err:
        space.bench("steqr")
    assert str(err.value) == (
        f"{SPACES / 'batchlas_unwired.json'}: no bench 'steqr'; known benches: 'steqr_cta', "
        "'syev_two_stage_kd', 'sb2st_block'"
    )


def test_arg_items() -> None:
    bare = ArgItem.parse("nb")
    assert bare.is_param and bare.names == ("nb",)
    assert bare.render({"nb": 16}) == "16"
    template = ArgItem.parse("--m={m}x{n}")
    assert not template.is_param and template.names == ("m", "n")
    assert template.render({"m": 4, "n": 2.5}) == "--m=4x2.5"
    literal = ArgItem.parse("-v")
    assert literal.names == () and literal.render({}) == "-v"
    braces = ArgItem.parse("{{k}}={k}")
    assert braces.names == ("k",) and braces.render({"k": "fast"}) == "{k}=fast"
    assert ArgItem.parse("-b{level}").render({"level": True}) == "-b1"


def test_render_value_spelling() -> None:
    assert [render_value(v) for v in (True, False, 8, 0.5, "CUDA")] == [
        "1",
        "0",
        "8",
        "0.5",
        "CUDA",
    ]


def test_render_env_unsets_null_and_missing() -> None:
    bench = Bench(
        name="b",
        metric="t",
        env={"lanes": "LANES", "fused": "FUSED"},
        cases=(Case(index=0, fixed={}, tune={"lanes": (None, 2)}),),
    )
    assert bench.exe == "b_benchmark"
    assert bench.render_env({"lanes": None}) == {"LANES": None, "FUSED": None}
    assert bench.render_env({"lanes": 2, "fused": True}) == {"LANES": "2", "FUSED": "1"}


def test_union_values() -> None:
    assert union_values([(16, 8), (8.0, 32)]) == (8, 16, 32)  # 8 and 8.0 are one value
    assert union_values([(1, True)]) == (1, True)  # mixed kinds keep first-seen order
    assert union_values([("b", None), ("a",)]) == (None, "a", "b")


def test_parse_space_is_pure_and_matches_load() -> None:
    path = SPACES / "batchlas_default.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    parsed = parse_space(data, source="memory.json")
    loaded = load_space(path)
    assert parsed.benches == loaded.benches
    assert parsed.path == Path("memory.json") and parsed.sha256 == ""


def test_every_problem_of_a_file_is_reported(tmp_path: Path) -> None:
    data = json.loads((SPACES / "batchlas_unwired.json").read_text(encoding="utf-8"))
    data["spaces"][0]["rwo"] = "BM_STEQR"
    data["spaces"][1]["direction"] = "fastest"
    data["spaces"][2]["cases"][0]["tune"]["sb2st_block"] = 16
    path = tmp_path / "three.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SpaceError) as err:
        load_space(path)
    assert str(err.value).splitlines() == [
        f"{path}: $.spaces[0]: unknown key 'rwo' (did you mean 'row'?); remove it or prefix it "
        "with '_' to make it a comment",
        f"{path}: $.spaces[1].direction: value 'fastest' is not one of 'min', 'max'; use \"min\" "
        'for times, "max" for rates',
        f"{path}: $.spaces[2].cases[0].tune.sb2st_block: value 16 is not a list; write the grid "
        "as a list of values, e.g. [8, 16, 32]",
    ]


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(SpaceError) as err:
        load_space(tmp_path / "nope.json")
    assert str(err.value) == f"{tmp_path / 'nope.json'}: no such file; check the path"
    with pytest.raises(SpaceError) as err:
        load_space(tmp_path)
    assert str(err.value) == f"{tmp_path}: is a directory; give the path of a space file"


def test_comments_anywhere_are_ignored() -> None:
    data = {
        "_comment": ["top"],
        "defaults": {"_why": "x", "metric": "t"},
        "spaces": [
            {
                "_comment": "bench",
                "bench": "b",
                "arg_spec": ["n"],
                "env": {"_note": "x", "k": "K"},
                "cases": [{"_c": 1, "fixed": {"n": 1, "_f": 2}, "tune": {"_t": 3, "k": [1]}}],
            }
        ],
    }
    bench = parse_space(data, source="c.json").benches[0]
    assert bench.env == {"k": "K"}
    assert bench.cases[0].fixed == {"n": 1} and bench.cases[0].tune == {"k": (1,)}


def test_shipped_schema_is_valid_draft_2020_12() -> None:
    schema = space_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_a_grid_can_be_read_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "kernels.txt").write_text("# compiled kernels\nk1\nk2\n\nk3\n")
    doc = {
        "spaces": [
            {
                "bench": "gemm",
                "exe": "driver",
                "reader": "csv",
                "metric": "tflops",
                "arg_spec": ["M", "kernel"],
                "batch": {"param": "kernel", "size": 2},
                "cases": [{"fixed": {"M": 64}, "tune": {"kernel": {"file": "kernels.txt"}}}],
            }
        ]
    }
    path = tmp_path / "space.json"
    path.write_text(json.dumps(doc))
    space = load_space(path)
    assert space.benches[0].cases[0].tune["kernel"] == ("k1", "k2", "k3")
    assert space.raw["spaces"][0]["cases"][0]["tune"]["kernel"] == {"file": "kernels.txt"}
    before = space.sha256
    (tmp_path / "kernels.txt").write_text("k1\nk2\n")
    assert load_space(path).sha256 != before  # the listed values are part of its identity
    (tmp_path / "kernels.txt").unlink()
    with pytest.raises(SpaceError) as err:
        load_space(path)
    assert str(err.value) == (
        f"{path}: $.spaces[0].cases[0].tune.kernel.file: cannot read 'kernels.txt' "
        "(No such file or directory); the path is relative to the space file"
    )
