"""``benchspace export``: a profile's or store's measurements as csv, json or parquet."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.cli import main
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.store import Store

DATA = Path(__file__).resolve().parents[2] / "data"
DEMO = DATA / "profiles" / "demo_like.json"
BATCHLAS = DATA / "batchlas_real" / "profile.json"


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_one_row_per_measurement_of_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(DEMO), "--format", "csv"]) == 0
    rows = _csv(capsys.readouterr().out)
    profile = load_profile(DEMO)
    samples = sum(len(m.samples) for r in profile.results.values() for m in r.measurements)
    failures = sum(len(r.failures) for r in profile.results.values())
    assert len(rows) == samples + failures == 201
    first = rows[0]
    assert list(first)[:3] == ["bench", "phase", "case_index"]
    assert list(first)[-6:] == ["metric", "value", "status", "repeat", "exe_sha256", "host"]
    matmul = next(iter(profile.results.values()))
    m = matmul.measurements[0]
    assert first["bench"] == matmul.bench and first["metric"] == matmul.metric
    assert float(first["value"]) == m.samples[0] and first["repeat"] == "0"
    assert first["n"] == str(m.fixed["n"]) and first["block"] == str(m.params["block"])
    assert {r["repeat"] for r in rows if r["status"] == "ok"} == {"0", "1", "2"}


def test_per_configuration_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    assert (
        main(["export", str(DEMO), "--format", "json", "--per-configuration", "--out", str(out)])
        == 0
    )
    assert capsys.readouterr().err.startswith(f"wrote {out}: ")
    records = json.loads(out.read_text())
    profile = load_profile(DEMO)
    configurations = sum(len(r.measurements) + len(r.failures) for r in profile.results.values())
    assert len(records) == configurations == 67
    m = next(iter(profile.results.values())).measurements[0]
    assert records[0]["median"] == m.median and records[0]["n"] == m.n == 3
    assert records[0]["stdev"] == m.stdev


def test_batchlas_s_profile_exports_its_one_value_per_configuration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["export", str(BATCHLAS)]) == 0
    rows = _csv(capsys.readouterr().out)
    raw = json.loads(BATCHLAS.read_text())
    assert len(rows) == sum(len(r["measurements"]) for r in raw["results"]) == 265
    sb2st = [r for r in rows if r["bench"] == "sb2st"]
    assert sb2st[0]["metric"] == "Time (ms)" and sb2st[0]["back_tile"] and sb2st[0]["kd"] == "32"
    assert {r["host"] for r in rows} == {raw["meta"]["hostname"]}


def test_the_same_from_the_store(
    fake_build: Path,
    write_space: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    space = write_space(
        [
            {
                "bench": "b",
                "exe": "fake_benchmark",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["n", "block"],
                "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32, 64]}}],
            }
        ]
    )
    profile, store = tmp_path / "p.json", tmp_path / "s.sqlite"
    tune = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(profile)]
    assert main([*tune, "--store", str(store), "--repeats", "2", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["export", str(store)]) == 0
    rows = _csv(capsys.readouterr().out)
    with Store(store) as s:
        assert len(rows) == s.count() == 6
    assert {r["block"] for r in rows} == {"16", "32", "64"} and {r["repeat"] for r in rows} == {
        "0",
        "1",
    }
    assert all(r["status"] == "ok" and len(r["exe_sha256"]) == 64 and r["host"] for r in rows)
    assert main(["export", str(store), "--per-configuration"]) == 0
    per = _csv(capsys.readouterr().out)
    assert len(per) == 3 and {r["n"] for r in per} == {"2"}
    # The profile's measurements are the store's.
    assert main(["export", str(profile)]) == 0
    from_profile = _csv(capsys.readouterr().out)
    assert sorted(float(r["value"]) for r in from_profile) == sorted(
        float(r["value"]) for r in rows
    )


def test_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "t.parquet"
    assert main(["export", str(BATCHLAS), "--format", "parquet", "--out", str(out)]) == 0
    frame = pd.read_parquet(out)
    assert len(frame) == 265 and list(frame.columns)[:3] == ["bench", "phase", "case_index"]
    assert frame["value"].dtype == "float64"


def test_parquet_without_pyarrow_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    out = tmp_path / "t.parquet"
    assert main(["export", str(DEMO), "--format", "parquet", "--out", str(out)]) == 1
    assert capsys.readouterr().err == (
        "error: export --format parquet needs pyarrow, which is not installed: pip install "
        "'benchspace[parquet]' (or use --format csv|json)\n"
    )
    assert not out.exists()
    assert main(["export", str(DEMO), "--format", "parquet"]) == 1
    assert "pass --out FILE" in capsys.readouterr().err


def test_a_missing_source_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(tmp_path / "nope.json")]) == 1
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'nope.json'}: ")
