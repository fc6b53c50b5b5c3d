"""confirm: changes from a review, their consumer cases by bucket, and verdicts on a fake."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchspace.generators.port import accepted_constants
from benchspace.harness.abtest.ab import ABResult, Side, case_params
from benchspace.harness.abtest.confirm import (
    Run,
    Target,
    judge,
    parse_changes,
    plan_targets,
)
from benchspace.harness.abtest.stats import compare
from benchspace.harness.cli import main
from benchspace.harness.errors import HeaderError
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Consumer, Space

FAKE_AB = Path(__file__).resolve().parents[2] / "fakes" / "fake_ab.py"


def _space_entries() -> list[dict[str, Any]]:
    block = [16, 32, 48]
    return [
        {"bench": "kern", "exe": "kern", "reader": "csv", "metric": "time_ms",
         "arg_spec": ["n", "block"],
         "consumers": [{"bench": "cons", "cases": [0, 1, 2, 3]},
                       {"exe": "cons", "args": ["512"], "metric": "time_ms"}],
         "cases": [{"fixed": {"n": 64}, "tune": {"block": block}},
                   {"fixed": {"n": 256}, "tune": {"block": block}}]},
        {"bench": "cons", "exe": "cons", "reader": "csv", "metric": "time_ms",
         "arg_spec": ["n", "batch"], "env": {"block": "TEST_TUNE_BLOCK"}, "report_only": True,
         "cases": [{"fixed": {"n": 64, "batch": 1}, "tune": {"block": block}},
                   {"fixed": {"n": 200, "batch": 1}, "tune": {"block": block}},
                   {"fixed": {"n": 256, "batch": 4}, "tune": {"block": block}},
                   {"fixed": {"m": 256, "batch": 4, "n": 1000}, "tune": {"block": block}},
                   {"fixed": {"n": 130, "batch": 1}, "tune": {"block": block}}]},
    ]  # fmt: skip


HEADER = {
    "path": "tuning.hh",
    "namespace": "demo::tuning",
    "env_prefix": "TEST_TUNE_",
    "constants": [
        {"name": "BLOCK", "type": "int32_t", "fallback": 32,
         "sources": [{"bench": "kern", "param": "block"}]}
    ],
}  # fmt: skip

BUCKETS = {"TINY": (None, 64), "MEDIUM": (128, 256), "LARGE": (256, 512), "XLARGE": (512, None)}


def _change(bucket: str, old: int, new: int, **over: Any) -> dict[str, Any]:
    above, upto = BUCKETS[bucket]
    entry = {
        "constant": "BLOCK", "bucket": bucket, "name": f"BLOCK_{bucket}", "old": old, "new": new,
        "old_text": str(old), "new_text": str(new), "env": "TEST_TUNE_BLOCK",
        "env_old": str(old), "env_new": str(new), "bucket_key": "n", "bucket_above": above,
        "bucket_upto": upto, "cases": [], "flags": [], "accepted": True,
    }  # fmt: skip
    entry.update(over)
    return entry


def _review(*changes: dict[str, Any]) -> dict[str, Any]:
    return {"format": "benchspace-review", "version": 1, "unchanged": 2, "changes": list(changes)}


@pytest.fixture
def space(write_space: Callable[..., Path]) -> Space:
    return load_space(write_space(_space_entries(), header=HEADER))


# ---------------------------------------------------------------- reading changes


def test_parse_changes_reads_the_review_shape() -> None:
    (change,) = parse_changes(_review(_change("MEDIUM", 32, 16)), "r.json")
    assert (change.name, change.env, change.env_old, change.env_new) == (
        "BLOCK_MEDIUM", "TEST_TUNE_BLOCK", "32", "16"
    )  # fmt: skip
    assert change.range_text() == "128 < n <= 256"
    assert [change.holds(v) for v in (128, 129, 256, 257, True, "200")] == [
        False, True, True, False, False, False
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"format": "benchspace-profile"}, "r.json: $.format: 'benchspace-profile' is not a "
         "review; pass the JSON written by `benchspace review --format json`"),
        ({"format": "benchspace-review", "version": 9}, "r.json: $.version: 9 is not a review "
         "version this benchspace reads (up to 1); upgrade benchspace"),
        (_review(_change("TINY", 32, 48, env=None)), "r.json: $.changes[0].env: None is not a "
         "str; regenerate the review with `benchspace review --format json`"),
    ],
)  # fmt: skip
def test_parse_changes_refuses_other_files(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(HeaderError) as err:
        parse_changes(doc, "r.json")
    assert str(err.value) == message


# ---------------------------------------------------------------- where a change is measured


def test_targets_are_the_consumer_cases_inside_the_bucket(space: Space) -> None:
    (medium,) = parse_changes(_review(_change("MEDIUM", 32, 16)), "r")
    targets, notes = plan_targets(space, medium)
    # Cases 1 (n=200) and 2 (n=256) lie in (128, 256]; case 4 (n=130) is not declared.
    assert [t.label for t in targets] == [
        "cons case 1 (n=200, batch=1)", "cons case 2 (n=256, batch=4)", "cons 512"
    ]  # fmt: skip
    assert notes == []
    (xlarge,) = parse_changes(_review(_change("XLARGE", 32, 48)), "r")
    targets, _ = plan_targets(space, xlarge)
    assert [t.case_index for t in targets] == [3, None]


def test_a_consumer_declared_twice_runs_once(write_space: Callable[..., Path]) -> None:
    entries = _space_entries()
    entries[0]["consumers"].append({"bench": "cons", "cases": [2, 2]})
    space = load_space(write_space(entries, header=HEADER))
    (medium,) = parse_changes(_review(_change("MEDIUM", 32, 16)), "r")
    targets, _ = plan_targets(space, medium)
    assert [t.case_index for t in targets] == [1, 2, None]


def test_a_case_without_the_bucket_key_is_noted(write_space: Callable[..., Path]) -> None:
    entries = _space_entries()
    entries[1]["cases"][0]["fixed"] = {"size": 64, "batch": 1}
    entries[1]["arg_spec"] = ["batch"]
    space = load_space(write_space(entries, header=HEADER))
    (tiny,) = parse_changes(_review(_change("TINY", 32, 48)), "r")
    targets, notes = plan_targets(space, tiny)
    assert [t.bench for t in targets] == [None]
    assert notes == ["cons case 0 fixes no 'n'; it cannot be placed in a bucket and is not run"]


def test_consumer_env_parameters_are_left_to_the_header(space: Space) -> None:
    assert case_params(space.bench("cons"), 0, {}) == {"block": None}
    assert case_params(space.bench("kern"), 1, {}) == {"block": 16}
    assert case_params(space.bench("kern"), 1, {"block": 48}) == {"block": 48}


# ---------------------------------------------------------------- verdicts


def _run(a: list[float], b: list[float]) -> Run:
    inv = Invocation(
        bench="cons", case_index=0, phase="ab", params={}, exe="cons", exe_path=None,
        exe_sha256="", argv=("cons",), env={}, reader="csv", pattern=None, row=None,
        metric="time_ms", timeout_s=1, repeat=0,
    )  # fmt: skip
    side = Side(label="A", invocation=inv)
    result = ABResult(
        a=side, b=side, direction="min", samples_a=tuple(a), samples_b=tuple(b), orders=(),
        comparison=compare(a, b, direction="min"), looks=(len(a),), stop="rounds",
        elapsed_s=0.0, seed=0,
    )  # fmt: skip
    target = Target(owner="kern", consumer=Consumer(bench="cons"), bench="cons", case_index=0,
                    fixed={"n": 64})  # fmt: skip
    return Run(target=target, result=result)


def test_judge_rejects_on_any_slower_consumer() -> None:
    (change,) = parse_changes(_review(_change("TINY", 32, 48)), "r")
    same = _run([100.0, 101, 99, 100, 100.5], [100.0, 100.5, 99.5, 101, 99])
    faster = _run([100.0, 101, 99, 100, 100.5], [80.0, 81, 79, 80, 80.5])
    slower = _run([100.0, 101, 99, 100, 100.5], [120.0, 121, 119, 120, 120.5])
    assert judge(change, [same, faster], accept_unconfirmed=False) == (
        "accepted", "no consumer slower (1 of 2 faster)"
    )  # fmt: skip
    status, reason = judge(change, [faster, slower], accept_unconfirmed=False)
    assert status == "rejected"
    assert reason.startswith("cons case 0 (n=64) is slower with 48: B/A 1.2000 (+20.0 %)")
    assert judge(change, [], accept_unconfirmed=False) == (
        "unconfirmed", "no declared consumer runs at n <= 64"
    )  # fmt: skip
    assert judge(change, [], accept_unconfirmed=True)[0] == "accepted"
    broken = Run(target=faster.target, error="ab: boom")
    assert judge(change, [faster, broken], accept_unconfirmed=False) == (
        "error", "cons case 0 (n=64): ab: boom"
    )  # fmt: skip


# ---------------------------------------------------------------- the command, on a fake


@pytest.fixture
def fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``cons`` and ``kern`` in a build dir; the consumer's cost depends on n and the block."""
    build = tmp_path / "build"
    (build / "benchmarks").mkdir(parents=True)
    for name in ("cons", "kern"):
        shim = build / "benchmarks" / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "{FAKE_AB}" "$@"\n')
        shim.chmod(0o755)
    monkeypatch.setenv("FAKE_AB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("FAKE_AB_LOG", str(tmp_path / "log.jsonl"))
    monkeypatch.setenv("FAKE_AB_NOISE", "0.01")
    monkeypatch.setenv("FAKE_AB_WATCH", "TEST_TUNE_BLOCK")
    # At n=64 the candidate 48 is 20 % faster; 16 is 20 % faster at n=200, 30 % slower at 256.
    monkeypatch.setenv("FAKE_AB_COSTS", "64/48:0.8,256/16:1.3,200/16:0.8")
    yield build


def test_confirm_rejects_the_consumer_loss_and_accepts_the_win(
    space: Space, fake_build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = _space_entries()
    entries[0]["consumers"] = [{"bench": "cons", "cases": [0, 1, 2]}]  # no exe: keep it short
    space_path = tmp_path / "confirm-space.json"
    space_path.write_text(json.dumps({"spaces": entries, "header": HEADER}))
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({
        "format": "benchspace-profile", "version": 1,
        "meta": {"build_dir": str(fake_build), "backend": "CPU", "dtype": "float"},
        "results": [],
    }))  # fmt: skip
    review = tmp_path / "review.json"
    review.write_text(json.dumps(_review(
        _change("TINY", 32, 48),
        _change("MEDIUM", 32, 16),
        _change("XLARGE", 32, 48),
        _change("LARGE", 32, 64, accepted=False),
    )))  # fmt: skip
    out = tmp_path / "confirmed.json"
    code = main(
        ["confirm", "--space", str(space_path), "--profile", str(profile), "--review",
         str(review), "--out", str(out), "--rounds", "10"]
    )  # fmt: skip
    assert code == 1
    table = capsys.readouterr().out
    assert "| `BLOCK_TINY` | 32 → 48 | cons case 0 (n=64, batch=1) |" in table
    assert "| new faster |" in table and "| new slower |" in table
    assert "- `BLOCK_MEDIUM`: **rejected** — cons case 2 (n=256, batch=4) is slower" in table
    assert "- `BLOCK_XLARGE`: **unconfirmed** — no declared consumer runs at 512 < n" in table
    assert "1 accepted, 1 rejected, 1 unconfirmed, 1 skipped of 4 changes." in table
    doc = json.loads(out.read_text())
    verdicts = {c["name"]: (c["accepted"], c["verdict"]) for c in doc["changes"]}
    assert verdicts == {
        "BLOCK_TINY": (True, "accepted"),
        "BLOCK_MEDIUM": (False, "rejected"),
        "BLOCK_XLARGE": (False, "unconfirmed"),
        "BLOCK_LARGE": (False, "skipped"),
    }
    medium = doc["changes"][1]
    assert [r["case_index"] for r in medium["runs"]] == [1, 2]
    assert [r["verdict"] for r in medium["runs"]] == ["B faster", "A faster"]
    assert medium["runs"][1]["argv"][1:] == ["256", "4"]
    assert doc["confirm"]["store"] == str(tmp_path / "profile.confirm.store.sqlite")
    # What port --accepted takes from it:
    assert accepted_constants(doc, str(out)) == {"BLOCK_TINY": "48"}
    # A sets the incumbent explicitly through the same variable, B the candidate.
    logged = [json.loads(line)["env"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert {e["TEST_TUNE_BLOCK"] for e in logged} == {"32", "48", "16"}


def test_confirm_only_selects_changes(
    space: Space, fake_build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text('{"format": "benchspace-profile", "version": 1, "meta": {}, "results": []}')
    review = tmp_path / "review.json"
    review.write_text(json.dumps(_review(_change("MEDIUM", 32, 16))))
    code = main(
        ["confirm", "--space", str(space.path), "--profile", str(profile), "--review",
         str(review), "--only", "NOPE"]
    )  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "error: --only NOPE: not a changed constant (changed: BLOCK, BLOCK_MEDIUM)"
    )
