"""Google Benchmark JSON from a real binary: units normalised, families kept apart, one
document only (tests/data/readers/gbench_units.cc; the recorded output beside it)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers import Row, metric_of, read_output, select_row

DATA = Path(__file__).resolve().parents[2] / "data" / "readers"
RECORDED = (DATA / "gbench_units.json").read_text(encoding="utf-8")
SLEPT_MS = {
    "BM_InMs/20/iterations:2": 20,
    "BM_InUs/4/iterations:2": 4,
    "BM_InNs/12/iterations:2": 12,
}
NS = {"ms": 1e6, "us": 1e3, "ns": 1.0}


def _value(rows: list[Row], name: str) -> float:
    return metric_of(select_row(rows, name, source="out"), "real_time", source="out")[0]


def check_units(rows: list[Row]) -> None:
    """Each time in ns, at least what the family slept; the 4 ms family wins under min."""
    for name, ms in SLEPT_MS.items():
        row = select_row(rows, name, source="out")
        assert row.fields["time_unit"] == "ns"
        assert row.fields["time_unit_reported"] == name[5:7].lower()
        assert _value(rows, name) >= ms * 1e6
    assert min(SLEPT_MS, key=lambda name: _value(rows, name)) == "BM_InUs/4/iterations:2"


def check_families(rows: list[Row]) -> None:
    """Two families named BM_Twice (1 ms and 15 ms) are two rows, not one with two samples."""
    twice = [r for r in rows if r.name == "BM_Twice/iterations:2"]
    assert len(twice) == 2 and all(r.samples == {} for r in twice)
    short, long = sorted(metric_of(r, "real_time", source="out")[0] for r in twice)
    assert 1e6 <= short < 15e6 <= long
    with pytest.raises(ReaderError) as err:
        select_row(rows, "BM_Twice", source="out")
    assert str(err.value) == (
        "out: 2 rows are named 'BM_Twice/iterations:2' (two benchmarks of one name, e.g. two "
        "Google Benchmark families); register them under different names"
    )


def test_recorded_times_are_normalised_to_ns() -> None:
    rows = read_output("gbench-json", RECORDED, source="out")
    check_units(rows)
    printed = {b["name"]: b for b in json.loads(RECORDED)["benchmarks"]}
    assert {printed[n]["time_unit"] for n in SLEPT_MS} == {"ms", "us", "ns"}
    for name in SLEPT_MS:
        entry = printed[name]
        assert _value(rows, name) == pytest.approx(entry["real_time"] * NS[entry["time_unit"]])
    # read as printed, the 20 ms run would have won: 20 < 4115 < 1.2e7
    assert min(SLEPT_MS, key=lambda n: printed[n]["real_time"]) == "BM_InMs/20/iterations:2"


def test_recorded_families_stay_apart() -> None:
    check_families(read_output("gbench-json", RECORDED, source="out"))


def test_two_documents_are_refused() -> None:
    lines = RECORDED.count("\n")
    with pytest.raises(ReaderError) as err:
        read_output("gbench-json", RECORDED + RECORDED, source="out")
    assert str(err.value) == (
        f"out: data after the Google Benchmark JSON document (line {lines + 1}, column 1); "
        "the output holds more than one document: let the benchmark write a fresh file per "
        "run (--benchmark_out=<file>), never append to one"
    )
    with pytest.raises(ReaderError, match=r"^out: data after the Google Benchmark JSON docu"):
        read_output("gbench-json", RECORDED.rstrip() + " ]", source="out")
    assert read_output("gbench-json", RECORDED + "\n\n  \n", source="out")  # blanks are no data


def _libbenchmark() -> bool:
    return shutil.which("g++") is not None and Path("/usr/include/benchmark/benchmark.h").exists()


@pytest.mark.skipif(not _libbenchmark(), reason="needs g++ and libbenchmark-dev")
def test_a_real_binary_in_three_units(tmp_path: Path) -> None:
    exe = tmp_path / "gbench_units"
    source = str(DATA / "gbench_units.cc")
    cmd = ["g++", "-O1", "-std=c++17", source, "-o", str(exe), "-lbenchmark", "-lpthread"]
    subprocess.run(cmd, check=True)
    out = tmp_path / "out.json"
    flags = ["--benchmark_format=json", f"--benchmark_out={out}", "--benchmark_out_format=json"]
    done = subprocess.run([str(exe), *flags], check=True, capture_output=True, text=True)
    for text in (done.stdout, out.read_text(encoding="utf-8")):  # stdout and the file
        rows = read_output("gbench-json", text, source="out")
        check_units(rows)
        check_families(rows)
    with pytest.raises(ReaderError, match=r"^out: data after the Google Benchmark JSON docu"):
        read_output("gbench-json", done.stdout * 2, source="out")
