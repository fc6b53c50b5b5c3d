"""Choosing each constant's value per bucket: jointly, with precedence, fallbacks and ties."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from header_helpers import profile_of

from benchspace.generators.header_model import choose_header, incumbents_from_header
from benchspace.generators.header_parse import parse_header
from benchspace.harness.errors import HeaderError
from benchspace.harness.spaces.model import Space

SpaceMaker = Callable[..., Space]


def bench(name: str, sizes: list[int], grid: list[Any], **extra: Any) -> dict[str, Any]:
    """A bench tuning ``nb`` over `grid` at each size."""
    return {
        "bench": name,
        "metric": "t",
        "arg_spec": ["n", "nb"],
        "cases": [{"fixed": {"n": n}, "tune": {"nb": grid}} for n in sizes],
        **extra,
    }


def header(*sources: str, **constant: Any) -> dict[str, Any]:
    """A header with one int32_t constant NB fed by `sources` (bench names, param nb)."""
    return {
        "path": "include/x/tuning.hh",
        "namespace": "x::tuning",
        "env_prefix": "X_TUNE_",
        "constants": [
            {
                "name": "NB",
                "type": "int32_t",
                "sources": [{"bench": s, "param": "nb"} for s in sources],
                **constant,
            }
        ],
    }


def values(space: Space, profile: Any, incumbents: Any = None) -> dict[str, Any]:
    model = choose_header(space, profile, incumbents or {})
    return {b.bucket: b.value for b in model.constants[0].buckets}


def test_a_bucket_is_chosen_jointly_over_its_cases(make_space: SpaceMaker) -> None:
    space = make_space(
        [bench("k", [32, 48, 100], [8, 16, 24])], header("k", fallback=[1, 2, 3, 4, 5])
    )
    profile = profile_of(
        {
            "k": [
                # n=32 is the cheapest case and prefers 8 ...
                (0, {"n": 32}, {"nb": 8}, 1.0),
                (0, {"n": 32}, {"nb": 16}, 1.05),
                (0, {"n": 32}, {"nb": 24}, 1.2),
                # ... but 8 costs n=48 30 %: jointly, 16 is best (geomean 1.025).
                (1, {"n": 48}, {"nb": 8}, 13.0),
                (1, {"n": 48}, {"nb": 16}, 10.0),
                (1, {"n": 48}, {"nb": 24}, 10.5),
                (2, {"n": 100}, {"nb": 8}, 50.0),
            ]
        }
    )
    model = choose_header(space, profile, {})
    tiny = model.constants[0].buckets[0]
    assert (tiny.value, tiny.origin, tiny.cases) == (16, "profile", (0, 1))
    assert [c.value for c in tiny.candidates] == [16, 24, 8]
    assert tiny.candidates[0].score == pytest.approx((1.05 * 1.0) ** 0.5)
    assert values(space, profile) == {"TINY": 16, "SMALL": 8, "MEDIUM": 3, "LARGE": 4, "XLARGE": 5}
    assert [b.origin for b in model.constants[0].buckets][2:] == ["fallback"] * 3


def test_only_values_measured_in_every_case_compete(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32, 48], [8, 16, 24])], header("k", fallback=0))
    profile = profile_of(
        {
            "k": [
                (0, {"n": 32}, {"nb": 8}, 2.0),
                (0, {"n": 32}, {"nb": 24}, 1.0),
                (1, {"n": 48}, {"nb": 8}, 2.0),
                (1, {"n": 48}, {"nb": 16}, 1.0),
            ]
        }
    )
    tiny = choose_header(space, profile, {}).constants[0].buckets[0]
    assert (tiny.value, tiny.partial) == (8, (16, 24))


def test_ties_go_to_the_incumbent_else_the_smaller_value(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32], [8, 16, 24])], header("k", fallback=0))
    profile = profile_of(
        {
            "k": [
                (0, {"n": 32}, {"nb": 24}, 2.0),
                (0, {"n": 32}, {"nb": 16}, 2.0),
                (0, {"n": 32}, {"nb": 8}, 3.0),
            ]
        }
    )
    assert values(space, profile)["TINY"] == 16
    assert values(space, profile, {"NB": {"TINY": 24}})["TINY"] == 24
    # An incumbent that is not tied for best does not win.
    assert values(space, profile, {"NB": {"TINY": 8}})["TINY"] == 16


def test_direction_max(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32], [8, 16], direction="max")], header("k", fallback=0))
    profile = profile_of(
        {"k": [(0, {"n": 32}, {"nb": 8}, 2.0), (0, {"n": 32}, {"nb": 16}, 3.0)]}, direction="max"
    )
    assert values(space, profile)["TINY"] == 16


def test_the_first_source_with_cases_in_a_bucket_decides_it(make_space: SpaceMaker) -> None:
    space = make_space(
        [bench("syev", [64], [8, 16]), bench("sytrd", [64, 128], [8, 16])],
        header("syev", "sytrd", fallback=0),
    )
    profile = profile_of(
        {
            "syev": [(0, {"n": 64}, {"nb": 8}, 1.0), (0, {"n": 64}, {"nb": 16}, 2.0)],
            "sytrd": [
                (0, {"n": 64}, {"nb": 8}, 2.0),
                (0, {"n": 64}, {"nb": 16}, 1.0),
                (1, {"n": 128}, {"nb": 8}, 2.0),
                (1, {"n": 128}, {"nb": 16}, 1.0),
            ],
        }
    )
    model = choose_header(space, profile, {})
    buckets = model.constants[0].buckets
    assert [(b.value, b.source.bench if b.source else None) for b in buckets[:3]] == [
        (8, "syev"),
        (16, "sytrd"),
        (0, None),
    ]


def test_buckets_without_cases_keep_the_incumbent_or_fail(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32], [8])], header("k"))
    profile = profile_of({"k": [(0, {"n": 32}, {"nb": 8}, 1.0)]})
    kept = {"NB": {"SMALL": 12, "MEDIUM": 12, "LARGE": 24, "XLARGE": 24}}
    model = choose_header(space, profile, kept)
    assert [(b.value, b.origin) for b in model.constants[0].buckets] == [
        (8, "profile"),
        (12, "incumbent"),
        (12, "incumbent"),
        (24, "incumbent"),
        (24, "incumbent"),
    ]
    with pytest.raises(HeaderError) as info:
        choose_header(space, profile, {})
    assert str(info.value) == (
        f"{space.path}: $.header.constants[0]: constant NB bucket SMALL: no case of 'k' falls "
        'in this bucket, there is no fallback and no checked-in value; add a "fallback" or a '
        "case in the bucket"
    )


def test_a_bucket_without_a_common_value_is_an_error(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32, 48], [8, 16])], header("k", fallback=0))
    profile = profile_of({"k": [(0, {"n": 32}, {"nb": 8}, 1.0), (1, {"n": 48}, {"nb": 16}, 1.0)]})
    with pytest.raises(HeaderError) as info:
        choose_header(space, profile, {})
    assert str(info.value) == (
        f"{space.path}: $.header.constants[0]: constant NB bucket TINY: no value of k.nb was "
        "measured in every case of the bucket (case 0: [8]; case 1: [16]); give those cases' "
        "grids a common value"
    )


def test_missing_results_are_errors(make_space: SpaceMaker) -> None:
    space = make_space([bench("k", [32, 48], [8])], header("k", fallback=0))
    with pytest.raises(HeaderError) as info:
        choose_header(space, profile_of({"other": []}), {})
    assert str(info.value) == (
        "p.json: $.results: no result for bench 'k', which feeds constant NB; re-run the sweep "
        f"with it (or remove it from the constant's sources in {space.path})"
    )
    with pytest.raises(HeaderError) as info:
        choose_header(space, profile_of({"k": [(0, {"n": 32}, {"nb": 8}, 1.0)]}), {})
    assert str(info.value) == (
        f"{space.path}: $.header.constants[0]: constant NB bucket TINY: case 1 of bench 'k' "
        "({'n': 48}) has no successful measurement in the profile; fix its failures and re-run "
        "the sweep"
    )


def test_incumbents_are_read_in_the_constants_types(make_space: SpaceMaker) -> None:
    space = make_space(
        [bench("k", [32], [0, 1])],
        {
            "path": "x.hh",
            "namespace": "x",
            "env_prefix": "X_",
            "buckets": [["SMALL", 64], ["LARGE", None]],
            "constants": [
                {"name": "FLAG", "type": "bool", "sources": [{"bench": "k", "param": "nb"}]},
            ],
        },
    )
    text = "inline constexpr bool FLAG_SMALL = true;\ninline constexpr bool FLAG_LARGE = 0;\n"
    assert incumbents_from_header(space, parse_header(text, "x.hh")) == {
        "FLAG": {"SMALL": True, "LARGE": False}
    }
    with pytest.raises(HeaderError) as info:
        incumbents_from_header(space, parse_header("constexpr bool FLAG_SMALL = 7;\n", "x.hh"))
    assert str(info.value) == (
        f"x.hh:1: FLAG_SMALL: 7 does not fit bool; use true, false, 0 or 1; fix the header or "
        f"the constant's type in {space.path}"
    )


def test_batchlas_mapping(batchlas_space: Space, batchlas_profile: Any) -> None:
    model = choose_header(batchlas_space, batchlas_profile, {})
    by_name = {c.constant.name: c for c in model.constants}
    assert len(by_name) == 12
    # ORMQR: both sides' cases at n=512 decide one value, from a grid that starts at 24.
    large = by_name["ORMQR_BLOCK_SIZE"].buckets[3]
    assert large.cases == (6, 7) and large.value == 24
    # syev decides every SYTRD bucket; sytrd_blocked never does.
    assert {b.source.bench for b in by_name["SYTRD_BLOCK_SIZE"].buckets if b.source} == {"syev"}
    # sb2st has no case below n=256: those buckets keep the "0 = heuristic" fallback.
    assert [b.origin for b in by_name["SB2ST_BACK_TILE"].buckets] == [
        "fallback",
        "fallback",
        "profile",
        "profile",
        "profile",
    ]
    # The pre-tuned threshold is the same in every bucket.
    assert {b.value for b in by_name["STEDC_RECURSION_THRESHOLD"].buckets} == {32}
