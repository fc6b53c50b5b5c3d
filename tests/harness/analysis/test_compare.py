"""benchspace compare on two crafted profiles of one space: winners, ratios, noise, header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.analysis.compare import compare_profiles
from benchspace.harness.cli import main
from benchspace.harness.errors import ProfileError
from benchspace.harness.profiles.read import load_profile, parse_profile

TESTS = Path(__file__).resolve().parents[2]
PROFILES = TESTS / "data" / "profiles"
SPACE = TESTS / "generators" / "spaces" / "demo_like.json"


def _doc() -> dict[str, Any]:
    return json.loads((PROFILES / "demo_like.json").read_text())


def _scale(doc: dict[str, Any], bench: str, case: int, params: dict[str, Any], k: float) -> None:
    """Multiply one configuration's samples by `k`, then re-pick that case's best."""
    (result,) = [r for r in doc["results"] if r["bench"] == bench]
    for m in result["measurements"]:
        if m["case_index"] == case and m["params"] == params:
            m["samples"] = [s * k for s in m["samples"]]
            for key in ("value", "median", "mean"):
                m[key] *= k
            m["stdev"] *= k
    rows = [m for m in result["measurements"] if m["case_index"] == case]
    pick = max if result["direction"] == "max" else min
    best = pick(rows, key=lambda m: m["value"])
    result["per_case_best"] = [
        best if b["case_index"] == case else b for b in result["per_case_best"]
    ]


def _new() -> dict[str, Any]:
    """NEW: other hardware where matmul's n=512 prefers block=256 by 40 %, all else the same."""
    doc = _doc()
    doc["meta"]["hostname"] = "newbox"
    _scale(doc, "matmul", 3, {"block": 256}, 1.4)
    return doc


def _write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_a_changed_winner_its_ratio_noise_and_what_the_old_winner_costs() -> None:
    old = parse_profile(_doc(), source="old.json")
    new = parse_profile(_new(), source="new.json")
    comparison = compare_profiles(old, new)
    assert [(d.key, d.old, d.new) for d in comparison.differences] == [
        ("hostname", "crafted", "newbox")
    ]
    matmul = comparison.benches[0]
    assert matmul.bench == "matmul" and matmul.direction == "max"
    same, changed = matmul.cases[0], matmul.cases[3]
    assert same.same_winner and same.ratio == pytest.approx(1.0)
    assert same.verdict == "equal" and same.noise is not None and same.noise > 0
    # The noise is the bench's pooled floor (from repeats), the same for every case.
    assert {c.noise for c in matmul.cases} == {same.noise}
    assert changed.fixed == {"n": 512} and not changed.same_winner
    assert changed.old is not None and changed.new is not None
    assert dict(changed.old.params) == {"block": 128} and dict(changed.new.params) == {"block": 256}
    assert changed.ratio is not None and changed.ratio > 1.2 and changed.verdict == "better"
    # NEW measured OLD's winner too: keeping it costs what NEW's block=128 value says.
    assert changed.old_winner_on_new == pytest.approx(changed.old.value)


def test_the_text_table_and_the_header_values_that_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path, "old.json", _doc())
    new = _write(tmp_path, "new.json", _new())
    assert main(["compare", str(old), str(new), "--space", str(SPACE)]) == 0
    out = capsys.readouterr().out
    assert "differs:\n  hostname: crafted → newbox" in out
    assert "matmul (GFLOP/s, higher is better): NEW/OLD geometric mean" in out
    assert "same winner in 3 of 4 cases" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("n=512  block=128"))
    assert "block=256" in line and "better" in line and "OLD's winner on NEW: 9.021" in line
    assert "1 of 20 values change" in out
    assert "MATMUL_BLOCK  LARGE   128  256  profile → profile" in out


def test_markdown_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _write(tmp_path, "old.json", _doc())
    new = _write(tmp_path, "new.json", _new())
    assert main(["compare", str(old), str(new), "--space", str(SPACE), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "| case | OLD winner | OLD | NEW winner | NEW | NEW/OLD | noise | verdict |" in md
    assert main(["compare", str(old), str(new), "--space", str(SPACE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "benchspace-compare" and doc["version"] == 1
    (change,) = doc["header"]
    assert (change["constant"], change["bucket"], change["old"], change["new"]) == (
        "MATMUL_BLOCK",
        "LARGE",
        128,
        256,
    )
    case = doc["benches"][0]["cases"][3]
    assert case["old"]["params"] == {"block": 128} and case["new"]["params"] == {"block": 256}


def test_profiles_of_different_spaces_are_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _new()
    other["meta"]["provenance"]["space_sha256"] = "ab" * 32
    old = _write(tmp_path, "old.json", _doc())
    new = _write(tmp_path, "new.json", other)
    assert main(["compare", str(old), str(new)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: {old} and {new} were tuned with different spaces: "
        "$.meta.provenance.space_sha256 3955add11c5f… (tests/generators/spaces/demo_like.json) "
        "against abababababab… (tests/generators/spaces/demo_like.json) (same benches, "
        "arg_specs and cases); compare profiles of one space, or pass --allow-different-spaces\n"
    )
    assert main(["compare", str(old), str(new), "--allow-different-spaces"]) == 0
    out = capsys.readouterr().out
    assert "space_sha256: 3955add11c5f" in out and "→ abababab" in out
    with pytest.raises(ProfileError, match="different spaces"):
        compare_profiles(load_profile(old), load_profile(new))
    # What differs, as far as the profiles record it.
    other["results"] = [r for r in other["results"] if r["bench"] != "lu"]
    other["results"][0]["arg_spec"] = ["n", "nb"]
    other["results"][0]["per_case_best"].pop()
    with pytest.raises(ProfileError) as info:
        compare_profiles(load_profile(old), parse_profile(other, source="new.json"))
    assert (
        '(benches only in OLD: lu; matmul.arg_spec ["n", "block"] → ["n", "nb"]; matmul: 1 '
        "cases only in OLD, 0 only in NEW);"
    ) in str(info.value)


def test_a_bench_or_case_in_one_profile_only_and_unknown_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _doc()
    new["results"] = [r for r in new["results"] if r["bench"] != "lu"]
    # BatchLAS-like: one sample per configuration, no spread, so the noise is unknown.
    for m in [*new["results"][0]["per_case_best"], *new["results"][0]["measurements"]]:
        m.update(n=1, stdev=0.0, samples=[m["value"]], spread=None)
    new["results"][0]["per_case_best"].pop()
    comparison = compare_profiles(
        parse_profile(_doc(), source="old.json"), parse_profile(new, source="new.json")
    )
    by_name = {b.bench: b for b in comparison.benches}
    assert by_name["lu"].only_in == "OLD" and by_name["lu"].cases[0].verdict == "only in OLD"
    matmul = by_name["matmul"]
    assert matmul.cases[0].noise is None and matmul.cases[-1].verdict == "only in OLD"
    path_old = _write(tmp_path, "old.json", _doc())
    path_new = _write(tmp_path, "new.json", new)
    assert main(["compare", str(path_old), str(path_new), "--space", str(SPACE)]) == 0
    out = capsys.readouterr().out
    assert "lu (real_time, lower is better): only in OLD" in out
    assert "unknown" in out


def test_batchlas_profiles_record_no_provenance_and_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    batchlas = str(PROFILES.parent / "batchlas_real" / "profile.json")
    assert main(["compare", batchlas, batchlas]) == 0
    out = capsys.readouterr().out
    assert "OLD and NEW record no provenance (BatchLAS profiles): space, executables and host " in (
        out
    )
    assert "same host" not in out and "neither profile names a space file" in out
    assert "equal" in out
