"""A race's verdicts settle a bucket (the incumbent not beaten, the smallest of the tied); the
decided lines review and compare print."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from header_helpers import profile_of

from benchspace.generators.header_model import choose_header
from benchspace.generators.render import Provenance, render_header
from benchspace.generators.ties import settled, tie_keeps
from benchspace.harness.cli import main
from benchspace.harness.plan import Config, make_config
from benchspace.harness.profiles.decided_format import bench_line, case_lines
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, TopEntry, Verdict
from benchspace.harness.profiles.write import profile_data
from benchspace.harness.spaces.model import Case, Space
from benchspace.harness.sweep.incumbents import settled_combo
from benchspace.harness.sweep.race import CaseDecision

PROVENANCE = Provenance(
    benchspace_version="0", profile_sha256="f" * 64, space_path="s.json", space_sha256="e" * 64
)


def _best(case: int, block: int, decided: str, tied: tuple[int, ...] = ()) -> MeasurementRow:
    verdict = Verdict(decided=decided, confidence=0.95, samples=6, rounds=6,
                      tied=tuple({"block": t} for t in tied))  # fmt: skip
    return MeasurementRow(case_index=case, fixed={"n": 64}, params={"block": block}, median=1.0,
                          n=6, decided=verdict)  # fmt: skip


def _cases(*indices: int) -> list[Case]:
    return [Case(index=i, fixed={"n": 64}, tune={"block": (16, 32)}) for i in indices]


def test_tie_keeps_the_incumbent_only_when_tied_everywhere() -> None:
    tied = BenchResult(bench="m", per_case_best=(_best(0, 32, "tie", (32, 16)),
                                                  _best(1, 32, "tie", (32, 16))))  # fmt: skip
    assert tie_keeps(tied, _cases(0, 1), "block", 16, int)
    assert not tie_keeps(tied, _cases(0, 1), "block", 64, int)  # not among the tied
    half = BenchResult(bench="m", per_case_best=(_best(0, 32, "tie", (32, 16)),
                                                 _best(1, 32, "separated")))  # fmt: skip
    assert not tie_keeps(half, _cases(0, 1), "block", 16, int)
    assert not tie_keeps(BenchResult(bench="m"), _cases(0), "block", 16, int)


def test_decided_lines() -> None:
    best = TopEntry(params={"block": 32}, score=1.0, cases=(),
                    decided=Verdict(decided="tie", confidence=0.95, samples=12))  # fmt: skip
    bests = (_best(0, 32, "tie", (32, 16)), _best(1, 16, "separated"))
    result = BenchResult(bench="m", best=best, per_case_best=bests)
    assert bench_line(result) == ("m: best tie (12 samples, 95%); case winners: 1 separated, 1 tie")
    assert case_lines(result) == ["  case 0 block=32: tie (6 samples, 95%), tied with 1 others"]
    assert bench_line(BenchResult(bench="old")) is None
    cap = replace(_best(2, 16, "cap"), decided=Verdict(decided="cap", confidence=0.95, samples=10,
                  unbeaten=({"block": 16}, {"block": 32})))  # fmt: skip
    assert case_lines(BenchResult(bench="m", per_case_best=(cap,))) == [
        "  case 2 block=16: cap (10 samples, 95%), 1 others unbeaten"
    ]
    assert cap.decided is not None
    resolved = replace(cap, decided=replace(cap.decided, resolves_pct=4.87, rounds_for_margin=712))
    assert case_lines(BenchResult(bench="m", per_case_best=(resolved,))) == [
        "  case 2 block=16: cap (10 samples, 95%), 1 others unbeaten (the cap resolves gaps over"
        " 4.9 %; the margin: ~712 rounds)"
    ]
    assert resolved.decided is not None
    wider = replace(resolved, decided=replace(resolved.decided, resolves_pct=11.04))
    assert bench_line(BenchResult(bench="m", per_case_best=(resolved, wider))) == (
        "m: case winners: 2 cap (the caps resolve gaps over 4.9 to 11.0 %)"
    )
    assert bench_line(BenchResult(bench="m", per_case_best=(resolved, cap))) == (
        "m: case winners: 2 cap (the caps resolve gaps over 4.9 %)"
    )
    read = replace(resolved, decided=replace(resolved.decided, read_pct=0.62))
    assert case_lines(BenchResult(bench="m", per_case_best=(read,))) == [
        "  case 2 block=16: cap (10 samples, 95%), 1 others unbeaten (the cap resolves gaps over"
        " 4.9 %; they read within 0.6 % of the best; the margin: ~712 rounds)"
    ]


def _decided_profile(
    incumbent_slower: bool, decided: str, standing: tuple[int, ...], sd: float = 0.01
) -> tuple[Any, Any]:
    """One case (n = 32) of nb in {8, 16, 24}: 24 measured fastest, 16 1 % slower, 8 far;
    per_case_best carries the verdict `decided` with `standing` left."""
    slow = 2.02 if incumbent_slower else 2.0
    profile = profile_of({"k": [(0, {"n": 32}, {"nb": 24}, 2.0, sd, 5),
                                (0, {"n": 32}, {"nb": 16}, slow, sd, 5),
                                (0, {"n": 32}, {"nb": 8}, 3.0, sd, 5)]})  # fmt: skip
    result = profile.results["k"]
    best = MeasurementRow(case_index=0, fixed={"n": 32}, params={"nb": 24}, median=2.0, n=5)
    configs = tuple({"nb": v} for v in standing)
    verdict = Verdict(decided=decided, confidence=0.95, samples=5, rounds=5,
                      tied=configs if decided == "tie" else (),
                      unbeaten=configs if decided == "cap" else ())  # fmt: skip
    result = replace(result, per_case_best=(replace(best, decided=verdict),))
    return replace(profile, results={"k": result}), best


SPACE = {"bench": "k", "metric": "t", "arg_spec": ["n", "nb"],
         "cases": [{"fixed": {"n": 32}, "tune": {"nb": [8, 16, 24]}}]}  # fmt: skip
HEADER = {"path": "include/x/tuning.hh", "namespace": "x::tuning", "env_prefix": "X_TUNE_",
          "constants": [{"name": "NB", "type": "int32_t", "fallback": 0,
                         "sources": [{"bench": "k", "param": "nb"}]}]}  # fmt: skip


def _tiny(make_space: Callable[..., Space], profile: Any, incumbent: int | None) -> Any:
    space = make_space([SPACE], HEADER)
    incumbents = {} if incumbent is None else {"NB": {"TINY": incumbent}}
    return choose_header(space, profile, incumbents, keep_incumbents=True).constants[0].buckets[0]


def test_a_tie_without_the_incumbent_takes_the_smallest_tied(
    make_space: Callable[..., Space],
) -> None:
    """Whichever of the tied measured fastest, the bucket takes the same value: the smallest
    of those tied (24 measured fastest here, 16 is taken); with 16 measured fastest, 16."""
    for slower in (True, False):
        profile, _ = _decided_profile(slower, "tie", (24, 16))
        assert _tiny(make_space, profile, None).value == 16
        assert _tiny(make_space, profile, 8).value == 16  # the incumbent is not among them
        assert _tiny(make_space, profile, 24).value == 24


def test_an_incumbent_no_verdict_beat_stays(make_space: Callable[..., Space]) -> None:
    """A cap whose unbeaten set holds the incumbent keeps it, where the spread alone would not
    (a 1 % gap, beyond twice its standard error: 0.01 stdev at 5 samples); an incumbent the
    verdict beat is replaced; a cap without the incumbent is left to the score."""
    profile, _ = _decided_profile(True, "cap", (24, 16))
    assert _tiny(make_space, profile, 16).value == 16
    assert _tiny(make_space, profile, None).value == 24
    beaten, _ = _decided_profile(True, "separated", ())
    assert _tiny(make_space, beaten, 16).value == 24
    # The verdict beat the incumbent: the spread rule (a 1 % gain within twice its standard
    # error at stdev 0.1) no longer keeps it; one test decides.
    noisy, _ = _decided_profile(True, "separated", (), sd=0.1)
    assert _tiny(make_space, noisy, 16).value == 24


def test_settled_values() -> None:
    cap = BenchResult(bench="m", per_case_best=(_best(0, 32, "cap"),))
    assert settled(cap, _cases(0), "block", 16, int, int) is None
    tie = BenchResult(bench="m", per_case_best=(_best(0, 32, "tie", (32, 16)),
                                                _best(1, 16, "tie", (16, 32))))  # fmt: skip
    assert settled(tie, _cases(0, 1), "block", None, int, int) == 16
    assert settled(tie, _cases(0, 1), "block", 32, int, int) == 32
    assert settled(BenchResult(bench="m"), _cases(0), "block", 16, int, int) is None


def test_a_raced_phase_keeps_the_incumbent_combination() -> None:
    def cfg(k: int) -> Config:
        return make_config({"cutoff": k})

    combos = [cfg(4), cfg(16), cfg(32)]
    cap = CaseDecision(decided="cap", confidence=0.95, samples=10, rounds=10, winner=cfg(32),
                       unbeaten=(cfg(32), cfg(16)))  # fmt: skip
    assert settled_combo({2: cap}, combos, {"cutoff": 16}) == cfg(16)
    assert settled_combo({2: cap}, combos, {"cutoff": 4}) is None
    assert settled_combo({2: cap}, combos, {}) is None
    tie = replace(cap, decided="tie", unbeaten=(), tied=(cfg(32), cfg(16)))
    assert settled_combo({2: tie}, combos, {}) == cfg(16)  # the first in grid order
    sep = CaseDecision(decided="separated", confidence=0.95, samples=4, rounds=4, winner=cfg(32))
    assert settled_combo({2: sep}, combos, {"cutoff": 16}) is None


def test_a_value_standing_on_a_cap_coarser_than_the_margin_gets_a_note(
    make_space: Callable[..., Space],
) -> None:
    """A cap that left 24 and 16 unbeaten while resolving only gaps over 8.4 % (the margin: ~900
    rounds, where it ran 5) decides a value a retune may well move: generate says so; a cap
    that resolved the margin (rounds_for_margin within its rounds), or one profile written
    without the figures, gets no note."""
    profile, _ = _decided_profile(True, "cap", (24, 16))
    result = profile.results["k"]
    row = result.per_case_best[0]

    assert row.decided is not None
    decided = row.decided

    def with_verdict(**figures: Any) -> Any:
        verdict = replace(decided, **figures)
        return replace(profile, results={"k": replace(result, per_case_best=(
            replace(row, decided=verdict),))})  # fmt: skip

    space = make_space([SPACE], HEADER)
    coarse = choose_header(space, with_verdict(resolves_pct=8.4, rounds_for_margin=900),
                           {"NB": {"TINY": 16}}, keep_incumbents=True)  # fmt: skip
    assert coarse.constants[0].buckets[0].value == 16
    assert [n for n in coarse.notes if "stands on a cap" in n] == [
        "NB_TINY: 16 stands on a cap: case 0 left nb 24, 16 unbeaten, resolving only gaps over"
        " 8.4 % (the margin would take ~900 rounds); a retune may pick another of them"
    ]
    read = choose_header(space, with_verdict(resolves_pct=8.4, rounds_for_margin=900,
                         read_pct=2.31), {"NB": {"TINY": 16}}, keep_incumbents=True)  # fmt: skip
    assert [n for n in read.notes if "stands on a cap" in n] == [
        "NB_TINY: 16 stands on a cap: case 0 left nb 24, 16 unbeaten, resolving only gaps over"
        " 8.4 % (they read within 2.3 %; the margin would take ~900 rounds); a retune may pick"
        " another of them"
    ]
    for figures in ({"resolves_pct": 0.8, "rounds_for_margin": 4}, {}):
        fine = choose_header(space, with_verdict(**figures), {"NB": {"TINY": 16}},
                             keep_incumbents=True)  # fmt: skip
        assert not [n for n in fine.notes if "stands on a cap" in n]


def test_an_incumbent_the_verdicts_kept_is_reported_as_such(
    make_space: Callable[..., Space], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """generate's summary, the header's comment and review (text, Markdown, JSON) say that
    16 was kept because the verdicts left it unbeaten beside the profile's winner 24 (a cap
    on a 1 % gap the spread alone would have called), not that 24 won within noise."""
    space = make_space([SPACE], HEADER)
    (tmp_path / ".git").mkdir()
    header = tmp_path / "include" / "x" / "tuning.hh"
    header.parent.mkdir(parents=True)
    header.write_text(render_header(choose_header(space, _decided_profile(True, "separated", (
        ))[0], {}, keep_incumbents=False), PROVENANCE).replace("= 24;", "= 16;"))  # fmt: skip
    profile, _ = _decided_profile(True, "cap", (24, 16))
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profile_data(profile)))
    out = tmp_path / "h.hh"
    assert main(["generate", "--profile", str(path), "--space", str(space.path),
                 "--out", str(out)]) == 0  # fmt: skip
    said = capsys.readouterr().out
    assert "1 incumbents kept: the verdicts left them unbeaten" in said
    assert "within noise" not in said
    assert "NB_TINY = 16;" in out.read_text()
    prose = " ".join(out.read_text().replace("//", " ").split())
    assert "TINY at 16: not separated from the profile's winner 24 (the verdicts left it" in prose
    kept = "16 kept: not separated (the profile's winner 24; the verdicts left 16 unbeaten)"
    review = ["review", "--generated", str(out), "--profile", str(path), "--space",
              str(space.path)]  # fmt: skip
    for fmt, line in (("text", f"NB_TINY: {kept}"), ("md", f"- `NB_TINY`: {kept}")):
        assert main([*review, "--format", fmt]) == 0
        text = capsys.readouterr().out
        assert line in text.splitlines()
        assert "1 unchanged values were kept because the verdicts left them unbeaten" in text
    assert main([*review, "--format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["kept"]
    assert (entry["how"], entry["reason"], entry["challenger"]) == (
        "verdict", "kept: not separated", 24)  # fmt: skip
    # A tie without the incumbent (8) takes its smallest value, 16, over the winner 24.
    header.write_text(header.read_text().replace("= 16;", "= 8;"))
    tied, _ = _decided_profile(True, "tie", (24, 16))
    path.write_text(json.dumps(profile_data(tied)))
    assert main(["generate", "--profile", str(path), "--space", str(space.path),
                 "--out", str(out)]) == 0  # fmt: skip
    said = capsys.readouterr().out
    assert "1 values the smallest of a tie, not the profile's winner" in said
    assert "incumbents kept" not in said and "NB_TINY = 16;" in out.read_text()
