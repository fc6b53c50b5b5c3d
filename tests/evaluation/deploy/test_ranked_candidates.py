"""The ranker's pinned cuBLASLt candidates in tune-my-shapes: the listed space read and checked,
each shape's top k (ranked by a model that never saw it), the space that times them beside the
CUTLASS shortlist, and a header that dispatches to a pinned winner (fake driver, g++).

The listed space and the screen are slices of the H200 recordings (``cublaslt/space.csv.gz``
that ``scripts/device/cublaslt_space.py`` wrote, the wide study's screen rows that the driver
printed): the tests' shapes are listed there, and the screen slice holds other shapes.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.deploy.measured_header import (
    COLUMNS,
    drop_listed,
    measured_table,
    shape_summary,
)
from benchspace.evaluation.deploy.pinned import is_key, parse_key
from benchspace.evaluation.deploy.ranked_candidates import (
    ranked_candidates,
    read_listed_space,
)
from benchspace.evaluation.study.cublaslt_rank import screen_frame
from benchspace.evaluation.study.timing_runs import load_timing
from benchspace.harness.cli import main
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.profiles.read import load_profile
from benchspace.harness.spaces.load import load_space

DATA = Path(__file__).parents[3] / "evaluation" / "data" / "h200"
SHAPES = ((1088, 736, 896), (1088, 832, 64), (128, 4288, 256))
SCREEN_SHAPES = ("1024x4096x4096", "1216x1248x1248", "12224x320x320", "128x14336x4096")
K = 6


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded listed space of the tests' shapes (gzip, as the GPU script writes it)."""
    space = pd.read_csv(DATA / "cublaslt" / "space.csv.gz")
    names = {"x".join(map(str, s)) for s in SHAPES}
    out = tmp_path_factory.mktemp("listed") / "space.csv.gz"
    with gzip.open(out, "wt", newline="") as handle:
        space[space["shape"].isin(names)].to_csv(handle, index=False)
    return out


@pytest.fixture(scope="module")
def screen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wide study's screen rows of four other shapes."""
    rows = load_timing(DATA / "cublaslt_wide")
    shape = rows["M"].astype(str) + "x" + rows["N"].astype(str) + "x" + rows["K"].astype(str)
    folder = tmp_path_factory.mktemp("screen")
    with gzip.open(folder / "timing_rows_s_s3r2.csv.gz", "wt", newline="") as handle:
        rows[shape.isin(SCREEN_SHAPES) & (rows["run"] == "s")].to_csv(handle, index=False)
    return folder


def test_the_ranker_keeps_k_listed_keys_per_shape(listed: Path, screen_dir: Path) -> None:
    space = read_listed_space(listed)
    screen = screen_frame(load_timing(screen_dir))
    assert set(screen["shape"]) == set(SCREEN_SHAPES)  # none of the shapes ranked
    ranked = ranked_candidates(space, screen, list(SHAPES), K)
    assert list(ranked) == list(SHAPES)
    for shape, keys in ranked.items():
        name = "x".join(map(str, shape))
        assert len(keys) == len(set(keys)) == K
        assert set(keys) <= set(space[space["shape"] == name]["config"])
        assert all(parse_key(k).key == k for k in keys)
    again = ranked_candidates(space, screen, list(SHAPES), K)
    assert again == ranked  # seeded: the same candidates every time
    with pytest.raises(UsageError, match="--cublaslt-ranked 0 must be at least 1"):
        ranked_candidates(space, screen, list(SHAPES), 0)
    with pytest.raises(BenchspaceError, match=r"lists no configuration for 4096x4096x4096; list"):
        ranked_candidates(space, screen, [*SHAPES, (4096, 4096, 4096)], K)


GOOD_KEY = (
    "cublaslt:id=66;tile=13;splitk=1;reduction=0;swizzle=0;custom=7;stages=35;inner=0;cluster=5"
)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("shape,key\n1x2x3,x\n", r"lacks the columns config; pass the space.csv.gz"),
        (f"shape,config\n1x2,{GOOD_KEY}\n", r"row 2: shape '1x2' is not MxNxK"),
        (f"shape,config\n1x2x3,{GOOD_KEY}\n1x2x3,cublas:algo0\n",
         r"row 3: config: 'cublas:algo0' does not start with 'cublaslt:'"),
        ("shape,config\n1x2x3,cublaslt:id=1;tile=2\n", r"row 2: config: .* is not 9 attributes"),
    ],
)  # fmt: skip
def test_a_bad_listed_space_is_one_line(tmp_path: Path, text: str, match: str) -> None:
    bad = tmp_path / "space.csv"
    bad.write_text(text)
    with pytest.raises(BenchspaceError, match=match) as info:
        read_listed_space(bad)
    assert str(info.value).startswith(f"{bad}: ") and "\n" not in str(info.value)


def test_a_truncated_gzip_is_one_line(tmp_path: Path, listed: Path) -> None:
    bad = tmp_path / "space.csv.gz"
    bad.write_bytes(listed.read_bytes()[:40])
    with pytest.raises(BenchspaceError, match=r"space.csv.gz: not a gzip file .*; pass"):
        read_listed_space(bad)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("model") / "selector.json"
    assert main(["cutlass", "train", str(FROZEN), "--hardware", "h200", "--out", str(out)]) == 0
    return out


def _tune_shapes(saved: Path, out: Path, *extra: str) -> int:
    words = [w for s in SHAPES for w in ("--shape", "x".join(map(str, s)))]
    return main(["cutlass", "tune-shapes", *words, "--model", str(saved), "--out", str(out),
                 "--topk", "2", "--cublas-algos", "2", *extra])  # fmt: skip


def test_bad_listed_space_writes_nothing(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], screen_dir: Path
) -> None:
    bad = tmp_path / "space.csv.gz"
    bad.write_text("shape,config\n1088x736x896,cublas:heuristic\n")
    out = tmp_path / "out" / "space.json"
    assert _tune_shapes(saved, out, "--cublaslt-space", str(bad),
                        "--ranker-screen", str(screen_dir)) == 1  # fmt: skip
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: row 2: config:") and err.count("\n") == 1
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert _tune_shapes(saved, out, "--cublaslt-space", str(bad.with_name("nope.csv"))) == 1
    assert "nope.csv: no such listed cuBLASLt space; check the path" in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture(scope="module")
def tuned(saved: Path, listed: Path, screen_dir: Path, tmp_path_factory: pytest.TempPathFactory
          ) -> Path:  # fmt: skip
    """A tune-shapes space with the ranker's candidates, swept with the fake driver."""
    folder = tmp_path_factory.mktemp("tuned")
    argv = ("--cublaslt-space", str(listed), "--cublaslt-ranked", str(K),
            "--ranker-screen", str(screen_dir))  # fmt: skip
    assert _tune_shapes(saved, folder / "space.json", *argv) == 0
    build = folder / "build"
    fake = Path(__file__).parents[2] / "fakes" / "fake_cutlass_driver.py"
    shim = build / "benchmarks" / "cutlass_bench"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake}" "$@"\n')
    shim.chmod(0o755)
    (folder / "cublas.json").write_text(json.dumps({"loaded": True, "version": 130100}) + "\n")
    argv2 = ["tune", "--space", str(folder / "space.json"), "--build-dir", str(build),
             "--out", str(folder / "profile.json"), "--quiet"]  # fmt: skip
    assert main(argv2) == 0
    return folder


def test_each_case_times_its_ranked_candidates(tuned: Path, listed: Path, screen_dir: Path) -> None:
    space = load_space(tuned / "space.json")
    (bench,) = space.benches
    ranked = ranked_candidates(
        read_listed_space(listed), screen_frame(load_timing(screen_dir)), list(SHAPES), K
    )
    for case in bench.cases:
        shape = tuple(int(str(case.fixed[d])) for d in "MNK")
        grid = list(case.tune["kernel"])
        assert grid[-K:] == ranked[shape]  # type: ignore[index]
        assert grid[2:5] == ["cublas:heuristic", "cublas:algo0", "cublas:algo1"]
    comment = json.loads((tuned / "space.json").read_text())["_comment"]
    assert any(f"Plus {K * len(SHAPES)} pinned cuBLASLt configurations" in c for c in comment)


def test_a_ranked_winner_is_dispatched_as_pinned(
    tuned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = measured_table(load_profile(tuned / "profile.json"))
    assert list(table.columns) == COLUMNS
    lt = table[table["config"].map(is_key)]
    assert len(lt) == K * len(SHAPES)
    assert (lt["kernel"] == "cublas").all() and (lt["pinned"] == lt["config"]).all()
    winners = {w.shape: w.winner for w in shape_summary(table)}
    for shape, winner in winners.items():
        rows = table[(table["M"] == shape[0]) & (table["N"] == shape[1]) & (table["K"] == shape[2])]
        rows = rows[~rows["config"].str.startswith("cublas:algo")]  # unknown keys: reported
        assert winner == rows.loc[rows["tflops"].idxmax(), "config"]
    pinned_wins = sorted(s for s, w in winners.items() if is_key(w))
    assert pinned_wins, winners  # the fake's 128x128 timing beats the small CUTLASS tiles
    header = tuned / "gemm_kernels.hh"
    argv = ["cutlass", "header", "--from-profile", str(tuned / "profile.json"),
            "--out", str(header)]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().out.count("| yes |") == len(SHAPES)
    text = header.read_text()
    assert "kCublasLtVersion = 130100;" in text
    for shape in pinned_wins:
        assert f'"{winners[shape]}",' in text
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    calls = "\n".join(
        f'    std::printf("%s\\n", g::gemm_kernel_name(g::gemm_kernel_for({m}, {n}, {k}).kernel));'
        for m, n, k in SHAPES
    )
    program = tuned / "main.cc"
    program.write_text(
        f'#include <cstdio>\n#include "{header.name}"\nnamespace g = benchspace::gemm;\n'
        f"int main() {{\n{calls}\n    return 0;\n}}\n"
    )
    exe = tuned / "main"
    argv3 = [gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{tuned}", str(program),
             "-o", str(exe)]  # fmt: skip
    proc = subprocess.run(argv3, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    names = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    for shape, name in zip(SHAPES, names.splitlines(), strict=True):
        winner = winners[shape]
        expected = winner if is_key(winner) else winner.split(":")[0]
        assert name == ("cublas" if winner == "cublas:heuristic" else expected)


def test_no_listed_reads_the_header_without_them_from_the_same_rounds(
    tuned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = measured_table(load_profile(tuned / "profile.json"))
    header = tuned / "without.hh"
    argv = ["cutlass", "header", "--from-profile", str(tuned / "profile.json"), "--no-listed",
            "--out", str(header)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("| yes |") == len(SHAPES) and "0 pinned cuBLASLt entries" in printed
    text = header.read_text()
    assert '"cublaslt:id=' not in text and "no listed cuBLASLt configuration" in text
    listed = set(table["config"][table["config"].map(is_key)])
    winners = {w.winner for w in shape_summary(table)}
    assert winners & listed  # with them, a listed configuration won somewhere
    assert not {w.winner for w in shape_summary(drop_listed(table))} & listed


def test_committed_ranked_space_is_what_tune_shapes_writes(tmp_path: Path) -> None:
    """spaces/tune_shapes_ranked.json (the GPU run of scripts/device/tune_shapes.sh) from the
    shipped selector, the recorded listed space and the wide study's screen."""
    root = Path(__file__).parents[3]
    out = tmp_path / "ranked.json"
    argv = ["cutlass", "tune-shapes", str(root / "evaluation/data/shapes/h200_v2_eval_quarter.txt"),
            "--topk", "8", "--cublaslt-space", str(DATA / "cublaslt" / "space.csv.gz"),
            "--cublaslt-ranked", "64", "--ranker-screen", str(DATA / "cublaslt_wide"),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    committed = json.loads((root / "spaces" / "tune_shapes_ranked.json").read_text())
    assert committed == json.loads(out.read_text())
    cases = committed["spaces"][0]["cases"]
    assert len(cases) == 16 and all(len(c["tune"]["kernel"]) == 8 + 9 + 64 for c in cases)


@pytest.mark.parametrize("part", ["ranked_a", "ranked_b"])
def test_the_recorded_gpu_run_dispatches_its_listed_winners(part: str) -> None:
    """The H100 run of spaces/tune_shapes_ranked.json (driver v4 through benchspace tune): each
    listed configuration ran as itself, and the header runs every shape's confirmed winner."""
    from benchspace.evaluation.deploy.measured_header import dispatch_hits, measured_dispatch
    from benchspace.evaluation.deploy.store_algos import cublas_algos, store_beside

    run = DATA.parent / "h100" / "tune_shapes" / part
    profile = load_profile(run / "profile.json")
    store = store_beside(run / "profile.json")
    assert store is not None
    table = measured_table(profile, algos=cublas_algos(store, "gemm_tune_shapes"))
    listed = table[table["config"].map(is_key)]
    assert listed["confirmed"].eq(1).all() and len(listed) == 8 * 64  # one row each, confirmed
    assert (listed["pinned"] == listed["config"]).all()
    summary = shape_summary(table)
    assert len(summary) == 8 and all(w.source == "confirmation" for w in summary)
    dispatch = measured_dispatch(table, 132, cublaslt_version=130100)
    assert dispatch_hits(dispatch, summary) == [True] * 8


def _shapes(name: str) -> set[tuple[int, int, int]]:
    lines = (DATA.parent / "shapes" / name).read_text().splitlines()
    rows = [ln.split() for ln in lines if ln.strip() and not ln.startswith("#")]
    return {(int(m), int(n), int(k)) for m, n, k in rows}


def test_the_recorded_gpu_runs_cover_the_64_evaluation_shapes_with_k8_and_top8() -> None:
    """The H100 run of the 48 other shapes (the ranked space without its cublaslt: keys) and
    ranked_a/b: every evaluation shape once; each of the 48 timed its 17 configurations (8
    CUTLASS + the heuristic + cuBLASLt's listed 8) in the confirmation, and its header runs every
    shape's confirmed winner."""
    from benchspace.evaluation.deploy.measured_header import dispatch_hits, measured_dispatch
    from benchspace.evaluation.deploy.store_algos import cublas_algos, store_beside

    runs = DATA.parent / "h100" / "tune_shapes"
    covered: list[tuple[int, int, int]] = []
    for part in ("ranked_a", "ranked_b", "rest_listed"):
        profile = load_profile(runs / part / "profile.json")
        store = store_beside(runs / part / "profile.json")
        assert store is not None
        table = measured_table(profile, algos=cublas_algos(store, "gemm_tune_shapes"))
        shapes = sorted(set(zip(table["M"], table["N"], table["K"], strict=True)))
        covered += [(int(m), int(n), int(k)) for m, n, k in shapes]
        if part == "rest_listed":
            assert set(covered[-48:]) == _shapes("h200_v2_eval_rest.txt")
            assert not table["config"].map(is_key).any()
            confirmed = table[table["confirmed"].eq(1)]
            assert confirmed.groupby(["M", "N", "K"]).size().eq(17).all()
            summary = shape_summary(table)
            assert all(w.source == "confirmation" for w in summary)
            dispatch = measured_dispatch(table, 132, cublaslt_version=130100)
            assert dispatch_hits(dispatch, summary) == [True] * 48
    assert len(covered) == 64 and set(covered) == _shapes("h200_v2_eval.txt")


REST_RANKED = DATA.parent / "h100" / "tune_shapes" / "rest_ranked"


REST_RANKED_45 = DATA.parent / "h200" / "tune_shapes" / "rest_ranked_45"


def _shapes_of(run: Path) -> set[tuple[int, int, int]]:
    """The (M, N, K) a recorded run's profile measured."""
    t = measured_table(load_profile(run / "profile.json.gz"))
    return {(int(m), int(n), int(k)) for m, n, k in
            set(zip(t["M"], t["N"], t["K"], strict=True))}  # fmt: skip


@pytest.mark.parametrize(
    ("run", "shapes"),
    [(REST_RANKED / "a", 37), (REST_RANKED / "b", 34), (REST_RANKED / "c", 8),
     (REST_RANKED / "d", 3), (REST_RANKED_45, 3)],
    ids=["a", "b", "c", "d", "h200-45"],
)  # fmt: skip
def test_the_rest_ranked_runs_confirmed_all_81_and_dispatch_their_winners(
    run: Path, shapes: int
) -> None:
    """The runs of the 48 other shapes with the ranker's 64 cuBLASLt configurations (profiles
    assembled by `tune --from-store`; the H100 parts, and the H200 reading of cases 45-47):
    each shape's 81 configurations (8 CUTLASS, the heuristic, the listed 8, the ranked 64)
    timed in its confirmation round, every ranked one as itself, and the header runs every
    shape's confirmed winner."""
    from benchspace.evaluation.deploy.measured_header import dispatch_hits, measured_dispatch
    from benchspace.evaluation.deploy.store_algos import cublas_algos, store_beside

    profile_path = run / "profile.json.gz"
    store = store_beside(profile_path)
    assert store is not None
    table = measured_table(
        load_profile(profile_path), algos=cublas_algos(store, "gemm_tune_shapes")
    )
    confirmed = table[table["confirmed"].eq(1)]
    assert confirmed.groupby(["M", "N", "K"]).size().eq(81).all()
    assert confirmed.groupby(["M", "N", "K"]).ngroups == shapes
    ranked = confirmed[confirmed["config"].map(is_key)]
    assert len(ranked) == 64 * shapes and (ranked["pinned"] == ranked["config"]).all()
    summary = shape_summary(table)
    assert all(w.source == "confirmation" for w in summary)
    dispatch = measured_dispatch(table, 132, cublaslt_version=130100)
    assert dispatch_hits(dispatch, summary) == [True] * shapes


def test_the_rest_ranked_runs_with_ranked_a_b_cover_the_64_shapes() -> None:
    """a (cases 0-36), c (cases 37-44) and d (cases 45-47) are disjoint and make the 48 rest
    shapes; b re-measures a's first 34 in another call."""
    seen = {part: _shapes_of(REST_RANKED / part) for part in ("a", "b", "c", "d")}
    assert not seen["a"] & seen["c"] and not (seen["a"] | seen["c"]) & seen["d"]
    assert seen["b"] < seen["a"]
    assert seen["a"] | seen["c"] | seen["d"] == _shapes("h200_v2_eval_rest.txt")


def test_the_h200_call_measured_the_3_shapes_of_h100_part_d() -> None:
    """Cases 45-47 of the rest space, measured on an H200 too (kept apart from the H100
    parts): exactly part d's 3 shapes, the ones parts a and c lack."""
    mine = _shapes_of(REST_RANKED_45)
    assert mine == _shapes_of(REST_RANKED / "d") and len(mine) == 3
    assert not mine & (_shapes_of(REST_RANKED / "a") | _shapes_of(REST_RANKED / "c"))


def test_a_rest_ranked_profile_is_what_its_store_assembles(tmp_path: Path) -> None:
    """`tune --from-store` on the committed store and space writes the committed profile's
    rows and winners again (nothing run: the driver is not here)."""
    run = REST_RANKED / "c"
    store = tmp_path / "store.sqlite"
    store.write_bytes(gzip.decompress((run / "store.sqlite.gz").read_bytes()))
    out = tmp_path / "profile.json"
    code = main(["tune", "--space", str(run / "space.json"), "--store", str(store), "--out",
                 str(out), "--from-store", "--confirm", "81", "--confirm-rounds", "1",
                 "--allow-failures", "--quiet", "--build-dir", str(tmp_path)])  # fmt: skip
    assert code == 0
    mine, committed = load_profile(out), load_profile(run / "profile.json.gz")
    assert mine.results.keys() == committed.results.keys()
    for name, result in mine.results.items():
        assert result.measurements == committed.results[name].measurements
        assert result.per_case_best == committed.results[name].per_case_best


def test_the_summary_gives_no_joint_figures_over_runs_that_share_shapes() -> None:
    """b re-measures a's shapes: the summary prints each run's lines, and no line over both
    (a shape would be counted twice)."""
    root = Path(__file__).parents[3]
    script = root / "scripts" / "tune_shapes_summary.py"
    done = subprocess.run(
        [sys.executable, str(script), str(REST_RANKED / "a"), str(REST_RANKED / "b"),
         "--shortlist", "spaces/tune_shapes_ranked_rest.shortlist.csv", "--ks", "8"],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    joint = done.stdout.split("all 2 runs together")[1]
    assert "over 34 shapes" in done.stdout and "geometric mean" not in joint
    assert "rest_ranked/b measures 34 shapes an earlier run measures too" in joint
