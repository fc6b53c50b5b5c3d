"""Stable retunes: a challenger replaces the incumbent only when it wins beyond the noise."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from header_helpers import profile_of

from benchspace.generators.generate import generate_header
from benchspace.generators.header_model import choose_header
from benchspace.generators.header_parse import parse_header
from benchspace.generators.render import Provenance
from benchspace.generators.review import review_header
from benchspace.generators.review_format import render_review
from benchspace.harness.cli import main
from benchspace.harness.spaces.model import Space

SpaceMaker = Callable[..., Space]
PROVENANCE = Provenance(
    benchspace_version="0", profile_sha256="f" * 64, space_path="s.json", space_sha256="e" * 64
)


def _space(make_space: SpaceMaker) -> Space:
    bench = {
        "bench": "k",
        "metric": "t",
        "arg_spec": ["n", "nb"],
        "cases": [{"fixed": {"n": n}, "tune": {"nb": [8, 16]}} for n in (32, 48)],
    }
    header = {
        "path": "include/x/tuning.hh",
        "namespace": "x::tuning",
        "env_prefix": "X_TUNE_",
        "buckets": [["TINY", None]],
        "constants": [
            {"name": "NB", "type": "int32_t", "sources": [{"bench": "k", "param": "nb"}]}
        ],
    }
    return make_space([bench], header)


def _profile(challenger: float, stdev: float = 0.05, n: int = 5) -> Any:
    """nb=8 (the incumbent) measures 1.0 in both cases, nb=16 `challenger` (lower is better)."""
    rows = []
    for case, size in enumerate((32, 48)):
        rows.append((case, {"n": size}, {"nb": 8}, 1.0, stdev, n))
        rows.append((case, {"n": size}, {"nb": 16}, challenger, stdev, n))
    return profile_of({"k": rows})


INCUMBENT = {"NB": {"TINY": 8}}
REL = 0.05 / 5**0.5
NOISE = 2 * (2 * REL**2 + 2 * (REL / 0.97) ** 2) ** 0.5 / 2


def test_a_challenger_within_noise_keeps_the_incumbent(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    # 3 % better; the relative standard errors are 0.05 / sqrt(5) / value (2.2 % and 2.3 %), so
    # the noise of the mean log speed-up over the two cases is 4.5 %.
    choice = choose_header(space, _profile(0.97), INCUMBENT, keep_incumbents=True)
    bucket = choice.constants[0].buckets[0]
    assert (bucket.value, bucket.origin, bucket.challenger) == (8, "profile", 16)
    assert bucket.challenger_gain is not None
    assert bucket.challenger_gain.gain == pytest.approx(1 / 0.97 - 1)
    assert bucket.challenger_gain.noise == pytest.approx(NOISE)
    text = generate_header(space, _profile(0.97), incumbents=INCUMBENT, provenance=PROVENANCE).text
    assert "inline constexpr int32_t NB_TINY = 8;" in text
    prose = " ".join(text.replace("//", " ").split())
    assert "TINY kept at 8: within noise (the profile's winner 16 gains +3.1 % +/- 4.5 %)." in prose
    assert "A bucket keeps the incumbent unless the winner beats it beyond the measured" in prose


def test_a_challenger_beyond_noise_replaces_it(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    bucket = choose_header(space, _profile(0.8), INCUMBENT, keep_incumbents=True)
    assert (bucket.constants[0].buckets[0].value, bucket.constants[0].buckets[0].challenger) == (
        16,
        None,
    )
    text = generate_header(space, _profile(0.8), incumbents=INCUMBENT, provenance=PROVENANCE).text
    assert "NB_TINY = 16;" in text and "kept at" not in text and "keeps the incumbent" not in text


def test_without_the_rule_the_best_score_wins(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    bucket = choose_header(space, _profile(0.97), INCUMBENT).constants[0].buckets[0]
    assert (bucket.value, bucket.challenger) == (16, None)
    text = generate_header(
        space, _profile(0.97), incumbents=INCUMBENT, provenance=PROVENANCE, keep_incumbents=False
    ).text
    assert "NB_TINY = 16;" in text


def test_an_unknown_noise_lets_the_challenger_win(make_space: SpaceMaker) -> None:
    space = _space(make_space)  # one sample per configuration: no spread, no noise estimate
    bucket = choose_header(space, _profile(0.999, 0.0, 1), INCUMBENT, keep_incumbents=True)
    assert bucket.constants[0].buckets[0].value == 16


def test_an_exact_tie_keeps_the_incumbent_either_way(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    for keep in (True, False):
        model = choose_header(space, _profile(1.0), INCUMBENT, keep_incumbents=keep)
        assert model.constants[0].buckets[0].value == 8


def test_a_previous_profiles_winner_is_the_incumbent(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    # The checked-in header ships 8; the previous profile chose 16 clearly; the new one prefers
    # 8 by 3 %, within its noise: 16 stays.
    previous = _profile(0.8)
    current = profile_of(
        {
            "k": [
                row
                for case, size in enumerate((32, 48))
                for row in (
                    (case, {"n": size}, {"nb": 8}, 0.97, 0.05, 5),
                    (case, {"n": size}, {"nb": 16}, 1.0, 0.05, 5),
                )
            ]
        }
    )
    kept = generate_header(
        space, current, incumbents=INCUMBENT, provenance=PROVENANCE, previous=previous
    )
    assert "NB_TINY = 16;" in kept.text
    assert (
        "NB_TINY = 8;"
        in generate_header(space, current, incumbents=INCUMBENT, provenance=PROVENANCE).text
    )


def test_review_says_kept_within_noise_in_every_format(make_space: SpaceMaker) -> None:
    space = _space(make_space)
    profile = _profile(0.97)
    checked_in = parse_header(
        generate_header(space, profile, incumbents=INCUMBENT, provenance=PROVENANCE).text, "h.hh"
    )
    review = review_header(space, profile, checked_in, checked_in)
    assert review.changes == () and review.unchanged == 1
    assert [(k.name, k.value, k.challenger) for k in review.kept] == [("NB_TINY", 8, 16)]
    line = "NB_TINY: 8 kept: within noise (the profile's winner 16: gain +3.1 %, noise ±4.5 %)"
    assert line in render_review(review, "text").splitlines()
    assert f"- `NB_TINY`:{line.removeprefix('NB_TINY:')}" in render_review(review, "md")
    doc = json.loads(render_review(review, "json"))
    assert doc["kept"] == [
        {
            "bucket": "TINY",
            "challenger": 16,
            "constant": "NB",
            "gain": pytest.approx(1 / 0.97 - 1),
            "how": "noise",
            "name": "NB_TINY",
            "noise": pytest.approx(NOISE),
            "reason": "kept: within noise",
            "value": 8,
        }
    ]
    beaten = _profile(0.8)
    assert review_header(space, beaten, checked_in, checked_in).kept == ()


def _profile_file(challenger: float) -> dict[str, Any]:
    measurements = [
        {
            "case_index": case,
            "fixed": {"n": size},
            "params": {"nb": nb},
            "value": value,
            "median": value,
            "stdev": 0.05,
            "n": 5,
        }
        for case, size in enumerate((32, 48))
        for nb, value in ((8, 1.0), (16, challenger))
    ]
    return {
        "format": "benchspace-profile",
        "version": 1,
        "meta": {},
        "results": [{"bench": "k", "direction": "min", "measurements": measurements}],
    }


def test_generate_keeps_by_default_and_challenger_wins_turns_it_off(
    make_space: SpaceMaker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = _space(make_space)  # tmp_path/s.json, header.path include/x/tuning.hh
    (tmp_path / ".git").mkdir()
    header = tmp_path / "include" / "x" / "tuning.hh"
    header.parent.mkdir(parents=True)
    header.write_text(
        generate_header(space, _profile(1.0), incumbents={}, provenance=PROVENANCE).text
    )
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps(_profile_file(0.97)))
    out = tmp_path / "h.hh"
    args = ["generate", "--profile", str(profile), "--space", str(space.path), "--out", str(out)]
    assert main(args) == 0
    assert "1 incumbents kept: the profile's winner won within noise" in capsys.readouterr().out
    assert "NB_TINY = 8;" in out.read_text()
    prose = " ".join(out.read_text().replace("//", " ").split())
    assert "TINY kept at 8: within noise (the profile's winner 16 gains +3.1 % +/- 4.5 %)." in prose
    kept = "8 kept: within noise (the profile's winner 16: gain +3.1 %, noise ±4.5 %)"
    for fmt, line in (("text", f"NB_TINY: {kept}"), ("md", f"- `NB_TINY`: {kept}")):
        review = ["review", "--generated", str(out), "--profile", str(profile),
                  "--space", str(space.path), "--format", fmt]  # fmt: skip
        assert main(review) == 0
        assert line in capsys.readouterr().out.splitlines()
    assert main([*args, "--challenger-wins"]) == 0
    assert "NB_TINY = 16;" in out.read_text()
    assert "incumbents kept" not in capsys.readouterr().out
    profile.write_text(json.dumps(_profile_file(0.8)))  # beyond noise: replaced by default
    assert main(args) == 0
    assert "NB_TINY = 16;" in out.read_text()
