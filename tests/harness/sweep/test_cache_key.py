"""What the cache knows: a stored measurement serves only an invocation that would measure the
same value (executable, argv, env, the case's fixed values, the reader and its settings, a
timeout that did not decide it, the host), and is filed under the case that asks for it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main


def _bench(cases: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "bench": "fake",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block"],
        "cases": cases,
    }
    entry.update(over)
    return entry


def _case(n: int, **fixed: Any) -> dict[str, Any]:
    return {"fixed": {"n": n, **fixed}, "tune": {"block": [16, 32]}}


def _tune(
    space: Path, build: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any], str, str]:
    out = build / "tuning" / "profile.json"
    code = main(
        ["tune", "--space", str(space), "--build-dir", str(build), "--out", str(out), "--quiet",
         *extra]
    )  # fmt: skip
    captured = capsys.readouterr()
    profile = json.loads(out.read_text()) if out.exists() else {}
    return code, profile, captured.out, captured.err


def _by_case(profile: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    rows: dict[int, list[dict[str, Any]]] = {}
    for m in profile["results"][0]["measurements"]:
        rows.setdefault(m["case_index"], []).append(m)
    return rows


def test_swapped_cases_keep_their_own_values(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench([_case(64), _case(256)])])
    code, first, _, _ = _tune(space, fake_build, capsys)
    assert code == 0
    value = {tuple(m["argv"][-2:]): m["median"] for m in first["results"][0]["measurements"]}
    space = write_space([_bench([_case(256), _case(64)])])
    code, second, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "0 invocations run, 4 from the store" in out
    for case_index, rows in _by_case(second).items():
        n = 256 if case_index == 0 else 64
        for m in rows:
            assert m["argv"][-2] == str(n)  # the case's own argv, its own value
            assert m["median"] == value[tuple(m["argv"][-2:])]


def test_removed_case_is_no_index_error(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench([_case(64), _case(128), _case(256)])])
    assert _tune(space, fake_build, capsys)[0] == 0
    space = write_space([_bench([_case(256)])])
    code, profile, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "0 invocations run, 2 from the store" in out
    assert set(_by_case(profile)) == {0}


def test_changed_metric_measures_again(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _tune(write_space([_bench([_case(64)])]), fake_build, capsys)[0] == 0
    space = write_space([_bench([_case(64)], metric="avg_ms")])
    code, profile, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "2 invocations run, 0 from the store" in out
    first = write_space([_bench([_case(64)])], name="again.json")
    _, back, out, _ = _tune(first, fake_build, capsys)
    assert "0 invocations run, 2 from the store" in out
    new = {m["params"]["block"]: m["median"] for m in profile["results"][0]["measurements"]}
    old = {m["params"]["block"]: m["median"] for m in back["results"][0]["measurements"]}
    assert new[16] == pytest.approx(old[16] / 1000, rel=1e-3)


def test_changed_row_measures_again(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _tune(write_space([_bench([_case(64)])]), fake_build, capsys)[0] == 0
    space = write_space([_bench([_case(64)], row="BM_")])
    _, _, out, _ = _tune(space, fake_build, capsys)
    assert "2 invocations run, 0 from the store" in out


def test_changed_stream_measures_again(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # the value read from stdout is no answer for a space that now reads stderr
    assert _tune(write_space([_bench([_case(64)], reader="csv")]), fake_build, capsys)[0] == 0
    space = write_space([_bench([_case(64)], reader="csv", stream="stderr")])
    _, _, out, err = _tune(space, fake_build, capsys, "--allow-failures")
    assert "2 invocations run, 0 from the store" in out, err
    space = write_space([_bench([_case(64)], reader="csv", stream="stdout")], name="again.json")
    _, _, out, _ = _tune(space, fake_build, capsys)
    assert "0 invocations run, 2 from the store" in out  # stdout spelt out: the same key


def test_raised_timeout_runs_cached_timeouts_again(
    fake_build: Path,
    write_space: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_MODE", "hang")
    space = write_space([_bench([{"fixed": {"n": 64}, "tune": {"block": [16]}}])])
    code, _, out, _ = _tune(space, fake_build, capsys, "--timeout", "0.3", "--allow-failures")
    assert "1 invocations run, 0 from the store" in out
    code, _, out, _ = _tune(space, fake_build, capsys, "--timeout", "0.3", "--allow-failures")
    assert "0 invocations run, 1 from the store" in out  # the same timeout: the same outcome
    monkeypatch.setenv("FAKE_MODE", "ok")
    code, profile, out, _ = _tune(space, fake_build, capsys, "--timeout", "5")
    assert code == 0
    assert "1 invocations run, 0 from the store" in out
    assert profile["results"][0]["best"]["params"] == {"block": 16}


def test_store_of_another_host_measures_again(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space([_bench([_case(64)])])
    assert _tune(space, fake_build, capsys)[0] == 0
    store = fake_build / "tuning" / "profile.store.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("UPDATE attempts SET host = 'elsewhere'")
    db.close()
    code, _, out, err = _tune(space, fake_build, capsys)
    assert code == 0
    assert "2 invocations run, 0 from the store" in out
    lines = [line for line in err.splitlines() if "elsewhere" in line]
    assert lines == [
        f"note: {store}: 2 stored measurements were made on host elsewhere, not this one: "
        "measuring again (--allow-other-host reuses them)"
    ]
    with sqlite3.connect(store) as db:
        db.execute("UPDATE attempts SET host = 'elsewhere'")
    db.close()
    code, _, out, err = _tune(space, fake_build, capsys, "--allow-other-host")
    assert "0 invocations run, 2 from the store" in out
    assert "elsewhere" not in err


def test_two_cases_with_one_argv_are_two_measurements(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    space = write_space(
        [_bench([_case(64, tag="a"), _case(64, tag="b")])]  # `tag` is in no argument
    )
    code, profile, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "4 invocations run, 0 from the store" in out
    rows = _by_case(profile)
    assert sorted(rows) == [0, 1]
    assert all(m["n"] == 1 for case in rows.values() for m in case)
    assert len(profile["results"][0]["per_case_best"]) == 2


def test_a_fresh_sweep_counts_its_own_repeats_apart_from_the_store(
    fake_build: Path, write_space: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # The pre-tune phase measures block 16 and 32 for n = 64; the main sweep then asks for its
    # winner again: answered by this sweep's own attempt, which is no store hit.
    bench = _bench(
        [{"fixed": {"n": 64}, "tune": {"extra": [1]}}],
        arg_spec=["n", "block", "extra"],
        pre_tune=[{"params": {"block": [16, 32]}, "cases": [0]}],
    )
    space = write_space([bench])
    code, _, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "2 invocations run, 0 from the store, 1 duplicates inside the sweep" in out
    code, _, out, _ = _tune(space, fake_build, capsys)
    assert code == 0
    assert "0 invocations run, 3 from the store;" in out  # all three asked: the store has them
