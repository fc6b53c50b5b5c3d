"""Reviewing a generated header: changes, gains with noise, flags, and the three formats."""

from __future__ import annotations

import json

import pytest
from header_helpers import GOLDEN, PROFILES

from benchspace.generators.header_model import choose_header
from benchspace.generators.header_parse import ParsedHeader, parse_header
from benchspace.generators.review import Change, Review, review_header
from benchspace.generators.review_format import render_review, review_document
from benchspace.harness.errors import HeaderError
from benchspace.harness.profiles.model import Profile
from benchspace.harness.profiles.read import load_profile, parse_profile
from benchspace.harness.spaces.model import Space


def golden(name: str) -> ParsedHeader:
    return parse_header((GOLDEN / name).read_text(), f"tests/golden/{name}")


@pytest.fixture(scope="module")
def demo_review(demo_space: Space, demo_profile: Profile, checked_in: ParsedHeader) -> Review:
    return review_header(demo_space, demo_profile, golden("demo_like.hh"), checked_in)


def change(review: Review, name: str) -> Change:
    return next(c for c in review.changes if c.name == name)


def test_only_changed_values_are_listed(demo_review: Review) -> None:
    assert [(c.name, c.old, c.new) for c in demo_review.changes] == [
        ("MATMUL_BLOCK_TINY", 64, 32),
        ("MATMUL_BLOCK_LARGE", 64, 128),
        ("MATMUL_BLOCK_XLARGE", 32, 64),
        ("DOT_LANES_MEDIUM", 4, 8),
        ("DOT_LANES_LARGE", 4, 8),
        ("DOT_LANES_XLARGE", 4, 8),
        ("SORT_BRANCHLESS_MERGE_TINY", True, False),
        ("SORT_BRANCHLESS_MERGE_SMALL", False, True),
        ("SORT_BRANCHLESS_MERGE_MEDIUM", False, True),
    ]
    assert demo_review.unchanged == 11


def test_gain_is_the_measured_speed_up_with_its_noise(
    demo_review: Review, demo_profile: Profile
) -> None:
    tiny = change(demo_review, "MATMUL_BLOCK_TINY")
    rows = demo_profile.results["matmul"].case_rows(0)
    old = next(r for r in rows if r.params["block"] == 64)
    new = next(r for r in rows if r.params["block"] == 32)
    assert (tiny.cases[0].old, tiny.cases[0].new) == (old.value, new.value)
    # GFLOP/s: higher is better, so the gain is new/old - 1.
    assert tiny.gain == pytest.approx(new.value / old.value - 1)
    assert old.rel_error is not None and new.rel_error is not None
    assert tiny.noise == pytest.approx(2 * (old.rel_error**2 + new.rel_error**2) ** 0.5)
    assert tiny.flags == ()
    assert (tiny.env, tiny.env_old, tiny.env_new) == (
        "BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK",
        "64",
        "32",
    )
    assert tiny.consumers == ({"bench": "lu", "cases": (0, 1, 2, 3)},)


def test_flags(demo_review: Review) -> None:
    assert change(demo_review, "MATMUL_BLOCK_XLARGE").flags == ("fallback",)
    assert change(demo_review, "MATMUL_BLOCK_XLARGE").origin == "fallback"
    noisy = change(demo_review, "SORT_BRANCHLESS_MERGE_TINY")
    assert noisy.flags == ("within-noise", "inert")
    assert change(demo_review, "SORT_BRANCHLESS_MERGE_SMALL").flags == ()


def test_incumbent_not_measured(
    demo_space: Space, demo_profile: Profile, checked_in: ParsedHeader
) -> None:
    text = "".join(checked_in.lines).replace("DOT_LANES_TINY = 4;", "DOT_LANES_TINY = 3;")
    review = review_header(
        demo_space, demo_profile, golden("demo_like.hh"), parse_header(text, "h")
    )
    lanes = change(review, "DOT_LANES_TINY")
    assert (lanes.old, lanes.new, lanes.gain, lanes.cases[0].old) == (3, 4, None, None)
    assert lanes.flags == ("incumbent-not-measured",)


def test_aliased_and_inert_knobs(kinds_space: Space, kinds_profile: Profile) -> None:
    generated = golden("kinds.hh")
    text = "".join(generated.lines)
    text = text.replace("UNROLL_SMALL = 4;", "UNROLL_SMALL = 2;")
    text = text.replace("BIG_SMALL = 1;", "BIG_SMALL = 18446744073709551615ULL;")
    review = review_header(kinds_space, kinds_profile, generated, parse_header(text, "h"))
    assert [(c.name, c.flags) for c in review.changes] == [
        ("UNROLL_SMALL", ("aliased",)),
        ("BIG_SMALL", ("within-noise", "inert")),
    ]
    # Two cases in the bucket: the gain is their geometric mean.
    unroll = review.changes[0]
    assert len(unroll.cases) == 2
    speedups = [c.speedup for c in unroll.cases]
    assert None not in speedups
    assert unroll.gain == pytest.approx((speedups[0] * speedups[1]) ** 0.5 - 1)  # type: ignore[operator]


def test_one_sample_per_configuration_has_no_noise_estimate(
    batchlas_space: Space, batchlas_profile: Profile
) -> None:
    generated = golden("batchlas.hh")
    text = "".join(generated.lines).replace(
        "SYTRD_BLOCK_SIZE_LARGE = 16;", "SYTRD_BLOCK_SIZE_LARGE = 8;"
    )
    review = review_header(batchlas_space, batchlas_profile, generated, parse_header(text, "h"))
    (only,) = review.changes
    assert only.noise is None and only.gain is not None and only.gain > 0
    assert only.flags == ("aliased", "noise-unknown")


def test_a_header_from_another_profile_is_refused(
    kinds_space: Space, kinds_profile: Profile, demo_profile: Profile
) -> None:
    with pytest.raises(HeaderError) as info:
        review_header(kinds_space, demo_profile, golden("kinds.hh"), golden("kinds.hh"))
    assert str(info.value).startswith(
        "tests/golden/kinds.hh: was generated from another profile (// Generated by benchspace "
    )
    assert str(info.value).endswith(
        f"review it with that profile, not {demo_profile.source} ({demo_profile.sha256[:12]})"
    )
    hand = parse_header("inline constexpr int X = 1;\n", "hand.hh")
    with pytest.raises(HeaderError, match=r"^hand\.hh: not a generated header"):
        review_header(kinds_space, kinds_profile, hand, hand)


def test_markdown_is_a_pull_request_table(demo_review: Review) -> None:
    text = render_review(demo_review, "md")
    lines = text.splitlines()
    assert lines[0] == "## benchspace review"
    assert (
        "| constant | bucket | old → new | source | measured (old → new) | gain | noise | flags |"
        in lines
    )
    row = next(line for line in lines if line.startswith("| `SORT_BRANCHLESS_MERGE` | TINY"))
    assert "true → **false**" in row and "gain within noise" in row
    assert "knob moved nothing (possibly not read)" in row
    assert "| `MATMUL_BLOCK` | XLARGE (n > 512) | 32 → **64** | fallback |" in text
    assert "BENCHSPACE_DEMO_TUNE_DOT_LANES=8  # DOT_LANES_MEDIUM: 4 → 8" in lines


def test_json_is_the_list_of_proposed_changes(demo_review: Review) -> None:
    document = json.loads(render_review(demo_review, "json"))
    assert document == json.loads(json.dumps(review_document(demo_review)))
    assert (document["format"], document["version"]) == ("benchspace-review", 1)
    first = document["changes"][0]
    assert sorted(first) == sorted(
        [
            "constant",
            "bucket",
            "name",
            "old",
            "new",
            "old_text",
            "new_text",
            "env",
            "env_old",
            "env_new",
            "bucket_key",
            "bucket_above",
            "bucket_upto",
            "source",
            "origin",
            "metric",
            "direction",
            "cases",
            "gain",
            "noise",
            "flags",
            "consumers",
            "accepted",
        ]
    )
    assert first["source"] == {"bench": "matmul", "param": "block"}
    assert first["cases"][0]["fixed"] == {"n": 64}
    assert sorted(first["cases"][0]) == ["case_index", "fixed", "new", "old", "speedup"]
    assert (first["bucket_above"], first["bucket_upto"]) == (None, 64)
    assert first["accepted"] is True
    text = render_review(demo_review, "text")
    assert "MATMUL_BLOCK_XLARGE: 32 -> 64" in text


def test_a_pre_tuned_constant_says_so(
    demo_space: Space, demo_profile: Profile, checked_in: ParsedHeader
) -> None:
    text = "".join(checked_in.lines).replace(
        "SORT_INSERTION_CUTOFF_LARGE = 16;", "SORT_INSERTION_CUTOFF_LARGE = 8;"
    )
    review = review_header(
        demo_space, demo_profile, golden("demo_like.hh"), parse_header(text, "h")
    )
    cutoff = change(review, "SORT_INSERTION_CUTOFF_LARGE")
    # 8 ran only in the pre_tune phase (on n=256), never on the LARGE bucket's case.
    assert (cutoff.old, cutoff.new, cutoff.gain) == (8, 16, None)
    assert cutoff.flags == ("pre-tuned",)
    model_notes = choose_header(demo_space, demo_profile, {}).notes
    assert model_notes == (
        "SORT_INSERTION_CUTOFF: sort.cutoff is pre-tuned (on cases 2); every bucket it decides "
        "takes that one winner",
    )


def test_a_pre_tuned_constant_is_judged_on_its_phase_table(
    demo_space: Space, checked_in: ParsedHeader
) -> None:
    # A profile that keeps the phase's table: the evidence is the phase case (n=256) for
    # every bucket, with its noise from the table's stdevs.
    data = json.loads((PROFILES / "demo_like.json").read_text())
    sort = next(r for r in data["results"] if r["bench"] == "sort")
    sort["pre_tune"][0]["table"] = [
        {"params": {"cutoff": c}, "values": [v], "stdevs": [s], "n": [3], "score": None}
        for c, v, s in ((8, 2100.0, 21.0), (16, 2000.0, 20.0), (32, 2050.0, 20.0))
    ]
    sha256 = load_profile(PROFILES / "demo_like.json").sha256  # the header's banner
    profile = parse_profile(data, source="p.json", sha256=sha256)
    text = "".join(checked_in.lines).replace(
        "SORT_INSERTION_CUTOFF_LARGE = 16;", "SORT_INSERTION_CUTOFF_LARGE = 8;"
    )
    review = review_header(demo_space, profile, golden("demo_like.hh"), parse_header(text, "h"))
    cutoff = change(review, "SORT_INSERTION_CUTOFF_LARGE")
    assert [(e.case_index, e.old, e.new) for e in cutoff.cases] == [(2, 2100.0, 2000.0)]
    assert cutoff.gain == pytest.approx(2100.0 / 2000.0 - 1)
    rel = 0.01 / 3**0.5  # stdev / value / sqrt(n), the same for both
    assert cutoff.noise == pytest.approx(2 * (2 * rel**2) ** 0.5)
    assert cutoff.flags == ("pre-tuned",)


def _phase_decided(decided: dict[str, object] | None, table_sd: float) -> Profile:
    """demo_like.json with the sort phase's table (16 measured 2.5 % faster than 32, at
    `table_sd` relative stdev over 3 repeats) and its verdict `decided`."""
    data = json.loads((PROFILES / "demo_like.json").read_text())
    sort = next(r for r in data["results"] if r["bench"] == "sort")
    phase = sort["pre_tune"][0]
    phase["table"] = [
        {"params": {"cutoff": c}, "values": [v], "stdevs": [v * table_sd], "n": [3], "score": s}
        for c, v, s in ((8, 2100.0, 1.05), (16, 2000.0, 1.0), (32, 2050.0, 1.025))
    ]
    if decided is not None:
        phase["decided"] = decided
    sha256 = load_profile(PROFILES / "demo_like.json").sha256
    return parse_profile(data, source="p.json", sha256=sha256)


def test_a_pre_tuned_constant_is_settled_by_its_phase_verdict(demo_space: Space) -> None:
    """The checked-in header ships cutoff 32. The phase's verdict settles it, as a case's
    verdict settles a swept value: a cap that left 32 unbeaten keeps it (and a note says the
    cap could not resolve the margin); a phase that separated 16 replaces it, even where the
    table's spread alone (5 % stdev) would have kept 32; without a verdict the spread rule
    judges, as before."""
    buckets = ("TINY", "SMALL", "MEDIUM", "LARGE")  # XLARGE has no case: the fallback
    incumbents = {"SORT_INSERTION_CUTOFF": dict.fromkeys(buckets, 32)}

    def cutoff(profile: Profile) -> tuple[set[object], tuple[str, ...]]:
        model = choose_header(demo_space, profile, incumbents, keep_incumbents=True)
        choice = next(c for c in model.constants if c.constant.name == "SORT_INSERTION_CUTOFF")
        return {b.value for b in choice.buckets if b.origin == "profile"}, model.notes

    cap = {"decided": "cap", "confidence": 0.95, "samples": 30, "rounds": 30,
           "unbeaten": [{"cutoff": 16}, {"cutoff": 32}], "resolves_pct": 6.6,
           "rounds_for_margin": 999}  # fmt: skip
    values, notes = cutoff(_phase_decided(cap, 0.001))
    assert values == {32}
    assert notes[-1] == (
        "SORT_INSERTION_CUTOFF: 32 stands on a cap of its pre_tune phase: cutoff 16, 32 "
        "unbeaten, resolving only gaps over 6.6 % (the margin would take ~999 rounds); a "
        "retune may pick another of them"
    )
    separated = {"decided": "separated", "confidence": 0.95, "samples": 30, "rounds": 30}
    values, notes = cutoff(_phase_decided(separated, 0.05))
    assert values == {16} and not [n for n in notes if "stands on a cap" in n]
    assert cutoff(_phase_decided(None, 0.05))[0] == {32}  # the spread: within the noise
    assert cutoff(_phase_decided(None, 0.001))[0] == {16}  # beyond it
