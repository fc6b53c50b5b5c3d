"""The sweep engine end to end with fake executables: search semantics, faults, cache."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main
from benchspace.harness.store import Store


def _bench(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": [
            {"fixed": {"n": 64}, "tune": {"block": [16, 32, 48]}},
            {"fixed": {"n": 256}, "tune": {"block": [16, 32, 48, 64]}},
        ],
    }
    entry.update(over)
    return entry


def _tune(space: Path, build: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = build / "tuning" / "profile.json"
    code = main(
        ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out), "--quiet",
         *extra]
    )  # fmt: skip
    profile = json.loads(out.read_text()) if out.exists() else {}
    return code, profile


def test_sweep_finds_per_case_and_cross_case_best(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    code, profile = _tune(write_space([_bench()]), fake_build)
    assert code == 0
    (result,) = profile["results"]
    assert [p["params"] for p in result["per_case_best"]] == [{"block": 32}, {"block": 32}]
    assert result["best"]["params"] == {"block": 32}
    assert result["best"]["score"] == pytest.approx(1.0)
    # block=64 is legal only for case 1: measured there, never in the cross-case ranking.
    assert {json.dumps(t["params"]) for t in result["top"]} == {
        '{"block": 16}', '{"block": 32}', '{"block": 48}'
    }  # fmt: skip
    assert len(result["measurements"]) == 7
    assert profile["format"] == "benchspace-profile" and profile["version"] == 2
    assert profile["meta"]["provenance"]["space_sha256"]


def test_cross_case_score_is_normalised_per_case(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    # FAKE_BEST=16 only for n=64 is not expressible; instead check the score arithmetic:
    _code, profile = _tune(write_space([_bench()]), fake_build)
    (result,) = profile["results"]
    by_params = {json.dumps(t["params"]): t["score"] for t in result["top"]}
    # value = n * (1 + ((block-32)/64)^2): ratio to the case best is independent of n.
    assert by_params['{"block": 16}'] == pytest.approx(1 + (16 / 64) ** 2)


def test_no_covering_combo_is_said_not_guessed(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    bench = _bench(
        cases=[
            {"fixed": {"n": 64}, "tune": {"block": [8, 16]}},
            {"fixed": {"n": 1024}, "tune": {"block": [32, 64]}},
        ]
    )
    code, profile = _tune(write_space([bench]), fake_build)
    (result,) = profile["results"]
    assert code == 0
    assert result["best"] is None and result["top"] == []
    assert result["coverage"]["complete"] is False
    assert "per_case_best" in result["coverage"]["note"]
    assert [p["params"]["block"] for p in result["per_case_best"]] == [16, 32]


def test_pre_tune_winner_is_fixed_and_recorded(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    bench = _bench(
        arg_spec=["n", "block", "extra"],
        pre_tune=[{"params": {"block": [16, 32, 64]}, "cases": [0]}],
        cases=[
            {"fixed": {"n": 64}, "tune": {"extra": [1, 2]}},
            {"fixed": {"n": 128}, "tune": {"extra": [1, 2]}},
        ],
    )
    code, profile = _tune(write_space([bench]), fake_build)
    (result,) = profile["results"]
    assert code == 0
    (phase,) = result["pre_tune"]
    assert phase["resolved_params"] == {"block": 32}
    assert all(m["params"]["block"] == 32 for m in result["measurements"])
    assert result["best"]["params"] == {"block": 32, "extra": 1}


def test_env_params_are_environment_not_argv(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    bench = _bench(
        env={"lanes": "FAKE_LANES"},
        cases=[{"fixed": {"n": 64, "block": 32}, "tune": {"lanes": [2, 4, 8, None]}}],
    )
    code, profile = _tune(write_space([bench]), fake_build)
    (result,) = profile["results"]
    assert code == 0
    assert result["best"]["params"] in ({"lanes": 4}, {"lanes": None})
    envs = [m["env"] for m in result["measurements"]]
    assert {"FAKE_LANES": None} in envs and {"FAKE_LANES": "8"} in envs
    assert all(m["argv"][-2:] == ["64", "32"] for m in result["measurements"])
    assert all(m["args"] == [64, 32] for m in result["measurements"])


@pytest.mark.parametrize(
    ("mode", "status"),
    [("crash", "crashed"), ("exit1", "failed"), ("garbage", "parse_error"),
     ("partial", "parse_error"), ("hang", "timeout")],
)  # fmt: skip
def test_each_fault_is_recorded_and_the_sweep_goes_on(
    fake_build: Path,
    write_space: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    status: str,
) -> None:
    monkeypatch.setenv(f"FAKE_{mode.upper()}_AT", "48")
    code, profile = _tune(write_space([_bench()]), fake_build, "--timeout", "2")
    (result,) = profile["results"]
    assert code == 1
    assert {(f["case_index"], f["status"]) for f in result["failures"]} == {
        (0, status),
        (1, status),
    }
    assert {f["params"]["block"] for f in result["failures"]} == {48}
    # The failed configuration stays visible in failures; measurements holds what has a value
    # (BatchLAS's sensitivity.py reads every measurement's value).
    assert len(result["measurements"]) == 5 and all("value" in m for m in result["measurements"])
    assert result["best"]["params"] == {"block": 32}
    assert profile["failures"]["by_status"] == {status: 2}


def test_allow_failures_exits_zero_but_keeps_the_failures(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CRASH_AT", "16")
    code, profile = _tune(write_space([_bench()]), fake_build, "--skip-failed")
    assert code == 0
    assert profile["failures"]["count"] == 2


def test_several_rows_without_row_is_an_error_naming_them(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_ROWS", "1")
    code, profile = _tune(write_space([_bench()]), fake_build)
    (result,) = profile["results"]
    assert code == 1
    assert all(f["status"] == "parse_error" for f in result["failures"])
    assert "BM_FAKE_SETUP" in result["failures"][0]["error"]
    code, profile = _tune(write_space([_bench(row="BM_FAKE_MAIN")], name="s2.json"), fake_build,
                          "--rerun")  # fmt: skip
    assert code == 0


def test_unchanged_rerun_executes_nothing_and_rebuild_remeasures(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    log = tmp_path / "runs.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    space = write_space([_bench()])
    assert _tune(space, fake_build)[0] == 0
    assert len(log.read_text().splitlines()) == 7
    assert _tune(space, fake_build)[0] == 0
    assert len(log.read_text().splitlines()) == 7
    assert _tune(space, fake_build, "--rerun")[0] == 0
    assert len(log.read_text().splitlines()) == 14
    exe = fake_build / "benchmarks" / "fake_benchmark"
    exe.write_text(exe.read_text() + "# rebuilt\n")
    assert _tune(space, fake_build)[0] == 0
    assert len(log.read_text().splitlines()) == 21
    with Store(fake_build / "tuning" / "profile.store.sqlite") as store:
        assert store.count() == 21


def test_repeats_are_interleaved_and_summarised(
    fake_build: Path, write_space: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    log = tmp_path / "runs.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    code, profile = _tune(write_space([_bench()]), fake_build, "--repeats", "3")
    assert code == 0
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 21
    # interleaved: the first 7 runs are 7 distinct configurations
    assert len({tuple(r[-2:]) for r in runs[:7]}) == 7
    m = profile["results"][0]["measurements"][0]
    assert m["n"] == 3 and len(m["samples"]) == 3 and m["stdev"] == 0.0


def test_missing_executable_is_reported_or_skipped(
    tmp_path: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench(exe="nowhere_benchmark")])
    build = tmp_path / "empty-build"
    code, profile = _tune(space, build)
    assert code == 1
    assert profile["results"][0]["failures"][0]["status"] == "missing"
    code, profile = _tune(space, build, "--skip-missing")
    assert code == 0 and profile["results"] == []
    assert "skipped (no executable): fake" in capsys.readouterr().out


def test_jobs_two_gives_the_same_profile(
    fake_build: Path, write_space: Callable[..., Path]
) -> None:
    space = write_space([_bench()])
    _, serial = _tune(space, fake_build)
    _, parallel = _tune(space, fake_build, "--jobs", "2", "--rerun")
    assert serial["results"][0]["best"] == parallel["results"][0]["best"]
    assert serial["results"][0]["measurements"] == parallel["results"][0]["measurements"]


def test_gbench_reader_end_to_end(fake_build: Path, write_space: Callable[..., Path]) -> None:
    code, profile = _tune(
        write_space([_bench(reader="gbench-json", metric="real_time", row="BM_FAKE")]), fake_build
    )
    assert code == 0
    assert profile["results"][0]["best"]["params"] == {"block": 32}


def test_validate_reports_one_line_per_bench(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space(
        [
            _bench(row="BM_FAKE"),
            _bench(bench="gb", reader="gbench-json", metric="real_time", row="BM_FAKE"),
            _bench(bench="drift", reader="gbench-json", metric="real_time", row="BM_FAKE",
                   arg_spec=["m", "block"], cases=[{"fixed": {"m": 64}, "tune": {"block": [8]}}]),
            _bench(bench="absent", exe="absent_benchmark", row="BM_FAKE"),
        ]
    )  # fmt: skip
    code = main(["tune", "--space", str(space), "--build-dir", str(fake_build), "--validate"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[0].startswith("ok       fake: fake_benchmark row 'BM_FAKE<float>'")
    assert out[1].startswith("ok       gb:")
    assert out[2].startswith("failed   drift: the executable reports arguments ['n', 'block']")
    assert out[3].startswith("missing  absent: no executable at")
