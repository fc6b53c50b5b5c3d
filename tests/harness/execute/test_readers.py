"""Output readers on real outputs: Google Benchmark JSON, zstd -b, and minibench CSV samples."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers import Row, metric_of, read_output, select_row

DATA = Path(__file__).resolve().parents[2] / "data" / "readers"
ZSTD_PATTERN = r"(?P<ratio>[0-9.]+)\),\s+(?P<compress>[0-9.]+) MB/s,\s+(?P<decompress>[0-9.]+) MB/s"
ZSTD_LEVEL_PATTERN = ZSTD_PATTERN + r"\s*$\s*(?P<level>[0-9]+)#"


def text(name: str) -> str:
    """The recorded output exactly as written (no newline translation: ``\\r`` must stay)."""
    return (DATA / name).read_bytes().decode("utf-8")


def zstd_sample_text() -> str:
    """The deterministic input the zstd recordings were made from (223885 bytes)."""
    words = ["block", "size", "tune", "bench", "space", "kernel", "grid", "case", "row", "metric"]
    state, out = 12345, []
    for _ in range(40000):
        state = (1103515245 * state + 12345) % 2**31
        out.append(words[state % len(words)])
    return " ".join(out) + "\n"


# ---------------------------------------------------------------- minibench CSV


def test_minibench_two_rows_with_quoted_names() -> None:
    rows = read_output("minibench-csv", text("minibench_sb2st.csv"))
    assert [r.name for r in rows] == [
        "BM_SB2ST_HH_CHASE<float, batchlas::Backend::CUDA>",
        "BM_SB2ST_HH_BACK<float, batchlas::Backend::CUDA>",
    ]
    back = select_row(rows, "BM_SB2ST_HH_BACK", source="sb2st")
    assert back.args == ((None, "512"), (None, "512"), (None, "32"))
    value, spread = metric_of(back, "Time (ms)", source="sb2st")
    assert value == 0.00471
    # no Time (ms)_std column: the spread of the iteration times, scaled to the metric
    assert spread == pytest.approx(0.00471 * 0.052 / 4.71)
    assert metric_of(back, "avg_ms", source="sb2st") == (4.71, 0.052)


def test_minibench_without_row_is_ambiguous() -> None:
    rows = read_output("minibench-csv", text("minibench_sb2st.csv"))
    with pytest.raises(ReaderError) as err:
        select_row(rows, None, source="sb2st_hh_benchmark")
    assert str(err.value) == (
        'sb2st_hh_benchmark: the output has 2 rows and the bench sets no "row"; set it to a '
        "substring of one of: 'BM_SB2ST_HH_CHASE<float, batchlas::Backend::CUDA>', "
        "'BM_SB2ST_HH_BACK<float, batchlas::Backend::CUDA>'"
    )
    with pytest.raises(ReaderError) as err:
        select_row(rows, "BM_SB2ST_HH_", source="x")
    assert "matches 2 rows" in str(err.value)
    with pytest.raises(ReaderError) as err:
        select_row(rows, "BM_SYEV", source="x")
    assert str(err.value).startswith("x: no row name contains 'BM_SYEV'; rows found: ")


def test_minibench_metric_std_columns_and_micro_sign() -> None:
    (row,) = read_output("minibench-csv", text("minibench_syev_metric_std.csv"))
    assert row.name == "BM_SYEV<float, batchlas::Backend::CUDA>"
    assert len(row.args) == 5
    assert metric_of(row, "Time (µs) / matrix", source="syev") == (34.375, 0.390625)
    assert metric_of(row, "GFLOPS", source="syev") == (122.5, 1.4)
    # GREEK SMALL LETTER MU typed for MICRO SIGN still finds the column
    assert metric_of(row, "Time (\u03bcs) / matrix", source="syev")[0] == 34.375


def test_minibench_metric_missing_lists_fields() -> None:
    (row,) = read_output("minibench-csv", text("minibench_syev_metric_std.csv"))
    with pytest.raises(ReaderError) as err:
        metric_of(row, "Time (us) / matrix", source="syev")
    message = str(err.value)
    assert message.startswith(
        "syev: row 'BM_SYEV<float, batchlas::Backend::CUDA>' has no field 'Time (us) / matrix' "
        "(did you mean 'Time (µs) / matrix'?); numeric fields: 'iterations', 'avg_ms', "
    )
    assert message.endswith('; fix the bench\'s "metric"')


def test_minibench_legacy_unquoted_names_and_repeated_columns() -> None:
    rows = read_output("minibench-csv", text("minibench_legacy_unquoted.csv"))
    assert [r.name for r in rows] == ["BM_SYTRD_BLOCKED<float, batchlas::Backend::CUDA>"] * 2
    assert rows[0].fields["iterations"] == 25.0
    assert rows[1].args == ((None, "128"), (None, "4096"))
    value, spread = metric_of(rows[0], "T(µs)/matrix", source="x")
    assert value == 0.25 and spread == pytest.approx(0.25 * 0.016 / 2.048)


def test_minibench_parenthesised_templated_names_and_rows_timed_once() -> None:
    rows = read_output("minibench-csv", text("minibench_netlib_parenthesised.csv"))
    assert [r.name for r in rows] == [
        "(BM_SB2ST_HH_CHASE<float, batchlas::Backend::NETLIB>)",
        "(BM_SB2ST_HH_BACK<float, batchlas::Backend::NETLIB>)",
        "(BM_SB2ST_HH_BACK<double, batchlas::Backend::NETLIB>)",
        "(BM_SB2ST_HH_CHASE<double, batchlas::Backend::NETLIB>)",
    ]
    back = select_row(rows, "BM_SB2ST_HH_BACK<float", source="sb2st")
    assert back.args == ((None, "512"), (None, "512"), (None, "32"))
    # Timed once (slower than --min_time): minibench's stddev 0 is unknown, not noiseless.
    assert metric_of(back, "Time (ms)", source="sb2st") == (0.0312, None)
    assert metric_of(back, "avg_ms", source="sb2st") == (31.2, None)
    timed = select_row(rows, "BM_SB2ST_HH_BACK<double", source="sb2st")
    assert metric_of(timed, "Time (ms)", source="sb2st")[1] == pytest.approx(0.0125 * 0.2 / 12.5)
    assert select_row(rows, "(BM_SB2ST_HH_CHASE<double", source="x").fields["avg_ms"] == 60.1
    with pytest.raises(ReaderError) as err:
        select_row(rows, "BM_SB2ST_HH_BACK", source="x")
    assert str(err.value) == (
        "x: row 'BM_SB2ST_HH_BACK' matches 2 rows: "
        "'(BM_SB2ST_HH_BACK<float, batchlas::Backend::NETLIB>)', "
        "'(BM_SB2ST_HH_BACK<double, batchlas::Backend::NETLIB>)'; make \"row\" long enough to "
        "match one"
    )
    with pytest.raises(ReaderError, match=r"^x: no row name contains 'BM_SYEV'; rows found: "):
        select_row(rows, "BM_SYEV", source="x")


def test_minibench_rejects_other_csv() -> None:
    with pytest.raises(ReaderError, match="not a minibench CSV: its first column is 'op'"):
        read_output("minibench-csv", "op,ms\nposv,1.0\n", source="out.csv")


# ---------------------------------------------------------------- Google Benchmark JSON


def check_gbench_single(rows: list[Row]) -> None:
    assert [r.name for r in rows] == [
        "BM_BlockedSum/n:4096/block:64",
        "BM_BlockedSum/n:4096/block:512",
        "BM_Iota/2048",
        "BM_Unsupported/3",
    ]
    blocked = select_row(rows, "BM_BlockedSum/n:4096/block:512", source="demo")
    assert blocked.args == (("n", "4096"), ("block", "512"))
    assert blocked.fields["time_unit"] == "ns"
    assert blocked.fields["block"] == 512.0  # a user counter
    assert float(blocked.fields["elements_per_s"]) > 0
    value, spread = metric_of(blocked, "real_time", source="demo")
    assert value > 0 and spread is None  # one run: no spread reported
    iota = select_row(rows, "BM_Iota", source="demo")
    assert iota.args == ((None, "2048"),)
    assert (iota.fields["time_unit"], iota.fields["time_unit_reported"]) == ("ns", "us")
    failed = select_row(rows, "BM_Unsupported", source="demo")
    with pytest.raises(ReaderError) as err:
        metric_of(failed, "real_time", source="demo")
    assert str(err.value) == (
        "demo: row 'BM_Unsupported/3' reported an error: block size not instantiated"
    )


def check_gbench_repetitions(rows: list[Row], repetitions: int) -> None:
    # one row per run_name: aggregates never make a row ambiguous
    assert [r.name for r in rows] == [
        "BM_BlockedSum/n:4096/block:64",
        "BM_BlockedSum/n:4096/block:512",
        "BM_Iota/2048",
        "BM_Unsupported/3",
    ]
    row = select_row(rows, "BM_BlockedSum/n:4096/block:64", source="demo")
    samples = row.samples["real_time"]
    assert len(samples) == repetitions
    value, spread = metric_of(row, "real_time", source="demo")
    assert value == pytest.approx(statistics.median(samples))
    assert spread == row.fields["real_time_stddev"]
    assert spread == pytest.approx(statistics.stdev(samples))
    assert row.fields["real_time_mean"] == pytest.approx(statistics.fmean(samples))
    assert "real_time_cv" in row.fields and "cpu_time_median" in row.fields
    assert len(row.samples["block"]) == repetitions


def test_gbench_single_recording() -> None:
    rows = read_output("gbench-json", text("gbench_single.json"))
    check_gbench_single(rows)
    recorded = {b["name"]: b for b in json.loads(text("gbench_single.json"))["benchmarks"]}
    iota = select_row(rows, "BM_Iota", source="demo")
    assert recorded["BM_Iota/2048"]["time_unit"] == "us"  # printed in us, read in ns
    assert iota.fields["real_time"] == pytest.approx(1e3 * recorded["BM_Iota/2048"]["real_time"])


def test_gbench_repetitions_recording() -> None:
    rows = read_output("gbench-json", text("gbench_repetitions.json"))
    check_gbench_repetitions(rows, 3)
    row = select_row(rows, "BM_BlockedSum/n:4096/block:64", source="demo")
    recorded = json.loads(text("gbench_repetitions.json"))["benchmarks"]
    assert row.samples["real_time"] == tuple(
        b["real_time"] for b in recorded if b["name"] == row.name and b["run_type"] == "iteration"
    )


def test_gbench_tolerates_lines_before_the_document() -> None:
    noisy = "initialising device 0\nwarming up {cache}\n" + text("gbench_single.json")
    check_gbench_single(read_output("gbench-json", noisy))


def test_gbench_garbage_is_a_reader_error() -> None:
    with pytest.raises(ReaderError, match="not Google Benchmark JSON"):
        read_output("gbench-json", "Segmentation fault\n", source="demo")
    with pytest.raises(ReaderError, match='without a "benchmarks" list'):
        read_output("gbench-json", '{"context": {}}', source="demo")


def _libbenchmark_available() -> bool:
    return shutil.which("g++") is not None and Path("/usr/include/benchmark/benchmark.h").exists()


@pytest.mark.skipif(not _libbenchmark_available(), reason="needs g++ and libbenchmark-dev")
def test_gbench_rebuilt_and_reread(tmp_path: Path) -> None:
    exe = tmp_path / "gbench_demo"
    source = str(DATA / "gbench_demo.cc")
    compile_cmd = ["g++", "-O0", "-std=c++17", source, "-o", str(exe), "-lbenchmark", "-lpthread"]
    subprocess.run(compile_cmd, check=True)
    for repetitions in (1, 2):
        out = tmp_path / f"out{repetitions}.json"
        flags = ["--benchmark_min_time=0.01", f"--benchmark_repetitions={repetitions}"]
        flags += [f"--benchmark_out={out}", "--benchmark_out_format=json"]
        subprocess.run([str(exe), *flags], check=True, capture_output=True)
        rows = read_output("gbench-json", out.read_text(encoding="utf-8"))
        if repetitions == 1:
            check_gbench_single(rows)
        else:
            check_gbench_repetitions(rows, repetitions)


# ---------------------------------------------------------------- regex (zstd -b)


def test_zstd_progress_updates_last_match_wins() -> None:
    output = text("zstd_b1_i1.txt")
    assert "\r" in output  # the recording keeps zstd's carriage-return progress updates
    (row,) = read_output("regex", output, pattern=ZSTD_PATTERN)
    assert row.fields == {"ratio": 6.114, "compress": 79.8, "decompress": 183.7}
    assert metric_of(row, "compress", source="zstd") == (79.8, None)
    assert select_row([row], None, source="zstd") is row


def test_zstd_several_levels_last_level_wins() -> None:
    (row,) = read_output("regex", text("zstd_b1_e3_i1.txt"), pattern=ZSTD_LEVEL_PATTERN)
    assert row.fields == {"ratio": 7.076, "compress": 107.1, "decompress": 286.0, "level": 3.0}


def test_regex_no_match_ansi_and_name_group() -> None:
    assert read_output("regex", "nothing here\n", pattern=r"(?P<x>\d+) ops") == []
    with pytest.raises(ReaderError, match="the output has no rows"):
        select_row([], None, source="zstd")
    coloured = "\x1b[1;36mBM_A\x1b[0m 12 ops\r\x1b[1mBM_B\x1b[0m 15 ops\n"
    (row,) = read_output("regex", coloured, pattern=r"^(?P<name>BM_\w+) (?P<ops>\d+) ops")
    assert row.name == "BM_B" and row.fields["ops"] == 15.0


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs zstd")
def test_zstd_rerun_and_reread(tmp_path: Path) -> None:
    (tmp_path / "sample.txt").write_text(zstd_sample_text(), encoding="utf-8")
    done = subprocess.run(
        ["zstd", "-b1", "-i0", "sample.txt"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=True,
    )
    (row,) = read_output("regex", done.stdout.decode(), pattern=ZSTD_PATTERN)
    assert float(row.fields["ratio"]) > 1 and float(row.fields["compress"]) > 0


# ---------------------------------------------------------------- generic CSV


def test_generic_csv() -> None:
    table = "kernel,m,gflops,gflops_stddev,status\nk128,512,812.5,4.5,ok\nk64,512,640,,ok\n"
    rows = read_output("csv", table)
    assert [r.name for r in rows] == ["k128", "k64"]
    assert metric_of(rows[0], "gflops", source="t") == (812.5, 4.5)
    assert metric_of(rows[1], "gflops", source="t") == (640.0, None)
    assert rows[0].fields["status"] == "ok"
    named = read_output("csv", "id,Name,t\n1,first,2.5\n")
    assert named[0].name == "first" and named[0].fields == {"id": 1.0, "t": 2.5}
    with pytest.raises(ReaderError, match="CSV line 2 has 3 cells but the header has 2"):
        read_output("csv", "a,b\n1,2,3\n", source="t")


def test_csv_config_column_names_the_row() -> None:
    # cutlass_bench: several configurations of one kernel, and cuBLASLt rows all named cublas.
    table = (
        "config,name,raster,tflops\nk1,k1,H,500\nk1:M:2,k1,M,510\ncublas:heuristic,cublas,H,490\n"
        "cublas:algo0,cublas,H,495\n"
    )
    rows = read_output("csv", table)
    assert [r.name for r in rows] == ["k1", "k1:M:2", "cublas:heuristic", "cublas:algo0"]
    assert rows[1].fields["name"] == "k1"


def test_exact_row_name_wins_over_substring() -> None:
    rows = [Row(name="BM_x"), Row(name="BM_x_big")]
    assert select_row(rows, "BM_x", source="t").name == "BM_x"


def test_non_numeric_and_non_finite_metrics() -> None:
    row = Row(name="r", fields={"status": "ok", "t": float("nan")})
    with pytest.raises(ReaderError, match="'status' is 'ok', not a number"):
        metric_of(row, "status", source="t")
    with pytest.raises(ReaderError, match="'t' is nan, not a finite number"):
        metric_of(row, "t", source="t")


def test_unknown_reader() -> None:
    with pytest.raises(ReaderError, match="unknown reader 'xml'"):
        read_output("xml", "")
