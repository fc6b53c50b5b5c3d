"""A race's tie keeps the incumbent; the decided lines review and compare print."""

from __future__ import annotations

from benchspace.generators.ties import tie_keeps
from benchspace.harness.profiles.decided_format import bench_line, case_lines
from benchspace.harness.profiles.model import BenchResult, MeasurementRow, TopEntry, Verdict
from benchspace.harness.spaces.model import Case


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
