"""A BatchLAS-style minibench client end to end: backend and type from the space's defaults,
parenthesised templated row names, and rows timed once (an unknown spread, not a zero one)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space

DATA = Path(__file__).resolve().parents[2] / "data" / "spaces"


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "sb2st",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "row": "BM_FAKE<float",
        "cases": [
            {"fixed": {"n": 64}, "tune": {"block": [16, 32, 48]}},
            {"fixed": {"n": 128}, "tune": {"block": [16, 32, 48]}},
        ],
    }
    entry.update(over)
    return entry


def _tune(space: Path, build: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = build / "tuning" / "profile.json"
    argv = ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out)]
    code = main([*argv, "--quiet", *extra])
    return code, json.loads(out.read_text()) if out.exists() else {}


@pytest.fixture(autouse=True)
def batchlas_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_NAMES", "batchlas")


def test_batchlas_s_own_space_files_load_unchanged() -> None:
    for name in ("batchlas_default.json", "batchlas_unwired.json"):
        assert load_space(DATA / name).benches


def test_backend_and_type_default_to_netlib_float(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    code, profile = _tune(write_space([_bench()]), fake_build)
    assert code == 0
    assert (profile["meta"]["backend"], profile["meta"]["dtype"]) == ("NETLIB", "float")
    (m, *_) = profile["results"][0]["measurements"]
    assert "--backend=NETLIB" in m["argv"] and "--type=float" in m["argv"]


def test_backend_and_type_from_the_space_s_defaults(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    defaults = {"backend": "CUDA", "type": "double"}
    space = write_space(
        [_bench(row="(BM_FAKE<double, batchlas::Backend::CUDA>)")], defaults=defaults
    )
    code, profile = _tune(space, fake_build)
    assert code == 0
    (m, *_) = profile["results"][0]["measurements"]
    assert "--backend=CUDA" in m["argv"] and "--type=double" in m["argv"]
    assert profile["meta"]["backend"] == "CUDA" and profile["meta"]["dtype"] == "double"
    # The command line wins, and a backend no benchmark registers keeps its clear error.
    code, profile = _tune(space, fake_build, "--backend", "CPU", "--rerun")
    assert code == 1
    err = capsys.readouterr()
    assert "the output has no rows; was the benchmark compiled out for this backend/type" in (
        err.out + err.err
    )


def test_rows_timed_once_have_no_spread_and_sensitivity_says_what_it_needs(
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_ITERATIONS", "1")
    code, profile = _tune(write_space([_bench()]), fake_build)
    assert code == 0
    rows = profile["results"][0]["measurements"]
    assert all(m["spread"] is None and m["n"] == 1 for m in rows)
    path = fake_build / "tuning" / "profile.json"
    capsys.readouterr()
    assert main(["sensitivity", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "sb2st: noise unknown: no repeats and no reported spread; using 1 % for the verdicts; "
        "measuring it needs `benchspace tune --repeats 3` or more (or set --noise PCT)"
    ) in out
    assert "0.00 %" not in out
    # With process repeats the floor is measured from them.
    code, _ = _tune(write_space([_bench()]), fake_build, "--repeats", "3")
    assert code == 0
    capsys.readouterr()
    assert main(["sensitivity", str(path), "--format", "json"]) == 0
    (bench,) = json.loads(capsys.readouterr().out)["benches"]
    assert bench["noise"]["source"] == "repeats"
    assert load_profile(path).results["sb2st"].measurements[0].n == 3
