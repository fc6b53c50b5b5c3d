"""Tune my shapes: user shapes, the shortlist space, its sweep (fake driver), the measured
header (g++ -Werror, env override), and the regret/GPU-time curve against K.

The selector is trained on the frozen SYNTHETIC sample; the sweep runs the fake driver
(invented times); the crafted tables below are SYNTHETIC too. Nothing here was measured.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.batches import read_kernel_list
from benchspace.evaluation.deploy.kernel_header import CUBLAS, GemmHeaderSpec, render_gemm_header
from benchspace.evaluation.deploy.measured_header import (
    COLUMNS,
    dispatch_hits,
    measured_dispatch,
    restrict_to_top,
    shape_summary,
)
from benchspace.evaluation.deploy.select import rank_shapes
from benchspace.evaluation.deploy.shortlist import cublas_configs, shortlist
from benchspace.evaluation.deploy.shortlist_study import Protocol, curve
from benchspace.evaluation.deploy.user_shapes import parse_shapes_text, read_user_shapes
from benchspace.evaluation.selector.model_file import load_selector
from benchspace.harness.cli import main
from benchspace.harness.errors import UsageError
from benchspace.harness.spaces.load import load_space

ENV = "BENCHSPACE_GEMM_KERNEL"
PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
KA = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
KB = PREFIX + "64x64x128_1x1x1_0_tnn_align8_warpspecialized_epi_nosmem"
USER = ((4096, 4096, 4096), (128, 4096, 4096), (16, 11008, 4096), (8192, 1024, 4096))


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("model") / "selector.json"
    assert main(["cutlass", "train", str(FROZEN), "--hardware", "h200", "--out", str(out)]) == 0
    return out


def test_shapes_from_lines_json_and_words(tmp_path: Path) -> None:
    text = "# LLM projections\n4096 4096 4096\n128x4096x4096  # decode\n\n16,11008,4096\n"
    assert parse_shapes_text(text, "s.txt") == [USER[0], USER[1], USER[2]]
    doc = {"train": [{"M": 1, "N": 2, "K": 3}], "eval": [[4, 5, 6]]}
    assert parse_shapes_text(json.dumps(doc), "s.json") == [(1, 2, 3), (4, 5, 6)]
    (tmp_path / "s.txt").write_text(text)
    shapes = read_user_shapes([tmp_path / "s.txt"], ["8192x1024x4096", "4096x4096x4096"])
    assert shapes == list(USER)  # the repeated shape is one case


@pytest.mark.parametrize(
    ("text", "match"),
    [("4096 4096\n", r"s.txt:1: '4096 4096' is not a shape"), ("1 0 3\n", "positive"),
     ('{"shapes": [{"M": 1, "N": 2}]}', r"\$.shapes\[0\]"), ("{}", "no shapes")],
)  # fmt: skip
def test_bad_shapes_name_the_place(text: str, match: str) -> None:
    with pytest.raises(UsageError, match=match):
        parse_shapes_text(text, "s.txt")


def test_an_unreadable_shapes_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "s.txt"
    bad.write_bytes(b"4096 4096 4096 # \xe9t\xe9\n")
    with pytest.raises(UsageError) as info:
        read_user_shapes([bad], [])
    assert str(info.value).startswith(f"{bad}: ") and "UTF-8" in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(UsageError, match=r"nope.txt: no such shapes file; check the path"):
        read_user_shapes([tmp_path / "nope.txt"], [])
    argv = ["cutlass", "tune-shapes", str(bad), "--topk", "2", "--out", str(tmp_path / "o.json")]
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "o.json").exists()


def _tune_shapes(saved: Path, out: Path, *extra: str) -> int:
    words = [w for s in USER for w in ("--shape", "x".join(map(str, s)))]
    return main(["cutlass", "tune-shapes", *words, "--model", str(saved), "--out", str(out),
                 *extra])  # fmt: skip


def test_space_holds_each_shortlist_and_cublas(saved: Path, tmp_path: Path) -> None:
    out = tmp_path / "spaces" / "mine.json"
    assert _tune_shapes(saved, out, "--topk", "3", "--cublas-algos", "2") == 0
    selector = load_selector(saved)
    ranked = rank_shapes(selector, list(USER))
    space = load_space(out)
    (bench,) = space.benches
    assert bench.batch is not None and bench.batch.param == "kernel"
    assert "--cublas-algos" in bench.flags
    assert len(bench.cases) == len(USER)
    for i, case in enumerate(bench.cases):
        assert dict(case.fixed) == dict(zip("MNK", USER[i], strict=True))
        top = ranked[ranked["shape"] == i]["kernel"].head(3).tolist()  # v1: default knobs
        assert list(case.tune["kernel"]) == [*top, *cublas_configs(2)]
    short = pd.read_csv(tmp_path / "spaces" / "mine.shortlist.csv")
    assert short.groupby("shape")["rank"].apply(list).tolist() == [[1, 2, 3]] * len(USER)
    # The kernel list is exactly the shortlists' distinct kernels (what `build` compiles).
    assert read_kernel_list(tmp_path / "spaces" / "mine.kernels.txt") == sorted(
        set(short["kernel"])
    )


def test_topk_must_be_positive(saved: Path) -> None:
    with pytest.raises(UsageError, match="--topk 0"):
        shortlist(load_selector(saved), [USER[0]], 0)


@pytest.fixture(scope="module")
def tuned(saved: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tune-shapes space (top 4 + cuBLAS) swept with the fake driver."""
    folder = tmp_path_factory.mktemp("tuned")
    assert _tune_shapes(saved, folder / "space.json", "--topk", "4", "--cublas-algos", "2") == 0
    build = folder / "build"
    fake = Path(__file__).parents[2] / "fakes" / "fake_cutlass_driver.py"
    shim = build / "benchmarks" / "cutlass_bench"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake}" "$@"\n')
    shim.chmod(0o755)
    argv = ["tune", "--space", str(folder / "space.json"), "--build-dir", str(build),
            "--out", str(folder / "profile.json"), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    return folder


def _compile(folder: Path, header: Path) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    calls = "\n".join(
        f'    {{ auto c = g::gemm_kernel_for({m}, {n}, {k}); std::printf("%s %c %d\\n", '
        "g::gemm_kernel_name(c.kernel), c.raster, c.swizzle); }"
        for m, n, k in USER
    )
    program = folder / "main.cc"
    program.write_text(
        f'#include <cstdio>\n#include "{header.name}"\nnamespace g = benchspace::gemm;\n'
        f"int main() {{\n{calls}\n    return 0;\n}}\n"
    )
    exe = folder / "main"
    argv = [gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{header.parent}",
            str(program), "-o", str(exe)]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return exe


def _run(exe: Path, value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if value is not None:
        env[ENV] = value
    return subprocess.run(
        [str(exe)], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()


def test_header_from_the_profile_runs_each_shapes_winner(
    tuned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tuned / "gemm_kernels.hh"
    argv = ["cutlass", "header", "--from-profile", str(tuned / "profile.json"),
            "--out", str(header)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("| yes |") == len(USER) and "| no |" not in printed
    profile = json.loads((tuned / "profile.json").read_text())
    (result,) = profile["results"]
    expected = []
    for m, n, k in USER:
        rows = [r for r in result["measurements"] if r["fixed"] == {"M": m, "N": n, "K": k}]
        rows = [r for r in rows if not r["params"]["kernel"].startswith("cublas:algo")]
        best = max(rows, key=lambda r: r["value"])["params"]["kernel"]
        expected.append(f"{CUBLAS if best == 'cublas:heuristic' else best} H 1")
    exe = _compile(tuned, header)
    assert _run(exe, None) == expected
    names = [line.split()[0] for line in expected]
    for value in {*names, CUBLAS}:
        assert _run(exe, value) == [f"{value} H 1"] * len(USER)
    assert _run(exe, "nonsense") == expected


def test_topk_prefix_of_the_shortlist(tuned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cutlass", "header", "--from-profile", str(tuned / "profile.json"),
            "--shortlist", str(tuned / "space.shortlist.csv"), "--topk", "1",
            "--out", str(tuned / "k1.hh")]  # fmt: skip
    assert main(argv) == 0
    text = (tuned / "k1.hh").read_text()
    short = pd.read_csv(tuned / "space.shortlist.csv")
    beyond = set(short[short["rank"] > 1]["kernel"]) - set(short[short["rank"] == 1]["kernel"])
    assert not any(f"    {k} =" in text for k in beyond)
    assert "top 1 of each shortlist" in text


def _table(
    rows: list[tuple[tuple[int, int, int], str, float]],
    confirmed: int = -1,
    pinned: dict[tuple[tuple[int, int, int], str], str] | None = None,
) -> pd.DataFrame:
    out = []
    for (m, n, k), config, tflops in rows:
        kernel = CUBLAS if config.startswith("cublas:") else config.split(":")[0]
        parts = config.split(":")
        raster = "H" if kernel == CUBLAS or len(parts) < 2 else parts[1]
        swizzle = 1 if kernel == CUBLAS or len(parts) < 3 else int(parts[2])
        key = (pinned or {}).get(((m, n, k), config), "")
        out.append((m, n, k, config, kernel, raster, swizzle, tflops, confirmed, key))
    return pd.DataFrame(out, columns=COLUMNS)


def test_measured_dispatch_gives_each_shape_its_winner_and_cublas_may_win() -> None:
    a, b, c = (1024, 4096, 4096), (1056, 4096, 4096), (1024, 4096, 4128)
    table = _table(
        [(a, KA, 500.0), (a, KB, 300.0), (a, "cublas:heuristic", 450.0), (a, "cublas:algo1", 520),
         (b, KA, 400.0), (b, f"{KB}:M:2", 410.0), (b, "cublas:heuristic", 380.0),
         (c, KA, 300.0), (c, KB, 310.0), (c, "cublas:heuristic", 350.0)]
    )  # fmt: skip
    dispatch = measured_dispatch(table, 132, GemmHeaderSpec())
    summary = shape_summary(table)
    assert [w.winner for w in summary] == [KA, "cublas:heuristic", f"{KB}:M:2"]
    assert summary[0].cublas_best_tflops == 520.0  # reported, never a dispatch choice
    assert dispatch_hits(dispatch, summary) == [True, True, True]
    chosen = [dispatch.choices[i] for i in dispatch.choose(np.array([a, c, b]))]
    assert [(x.kernel, x.raster, x.swizzle) for x in chosen] == [
        (KA, "H", 1), (CUBLAS, "H", 1), (KB, "M", 2)
    ]  # fmt: skip
    # One exact leaf per shape, and the fall-through tree's leaves behind them.
    assert len(dispatch.tree.leaves) == 3 + len(dispatch.tree.leaves[3:])
    assert dispatch.cublas_leaves >= 1 and dispatch.kernels == (KA, KB, CUBLAS)
    text = render_gemm_header(dispatch)
    assert "One exact-match leaf per measured shape (3;" in text.replace("\n// ", " ")
    short = pd.DataFrame(
        {"M": [1056, 1056], "N": [4096] * 2, "K": [4096] * 2, "rank": [1, 2],
         "config": [KA, f"{KB}:M:2"]}
    )  # fmt: skip
    top1 = restrict_to_top(table[table["M"] == 1056], short, 1)
    assert sorted(top1["config"]) == ["cublas:heuristic", KA]


PIN = "cublaslt:id=66;tile=194;splitk=1;reduction=0;swizzle=0;custom=6;stages=35;inner=0;cluster=5"


def test_a_cublaslt_winner_is_pinned_and_confirmation_rounds_judge() -> None:
    a, b = (24, 4096, 4096), (1024, 4096, 4096)
    heur = PIN.replace("tile=194", "tile=17")
    rows = [(a, KA, 60.0), (a, "cublas:heuristic", 55.0), (a, "cublas:algo0", 70.0),
            (a, "cublas:algo1", 71.0), (b, KA, 500.0), (b, KB, 510.0),
            (b, "cublas:heuristic", 450.0)]  # fmt: skip
    keys = {(a, "cublas:algo0"): PIN, (a, "cublas:algo1"): heur, (a, "cublas:heuristic"): heur}
    table = _table(rows, pinned=keys)
    # at b the selection said KB; its confirmation (re-timed KA and KB only) says KA
    table.loc[table["M"] == 1024, "confirmed"] = 0
    retimed = _table([(b, KA, 505.0), (b, KB, 490.0)], confirmed=1)
    table = pd.concat([table, retimed], ignore_index=True)
    summary = shape_summary(table)
    # algo1 runs the heuristic's own configuration: not a pinned candidate of its own
    assert [w.winner for w in summary] == [PIN, KA]
    assert [w.source for w in summary] == ["selection", "confirmation"]
    with pytest.raises(UsageError, match="--cublaslt-version"):
        measured_dispatch(table, 132)
    dispatch = measured_dispatch(table, 132, cublaslt_version=130100)
    assert dispatch_hits(dispatch, summary) == [True, True]
    assert [p.key for p in dispatch.pinned] == [PIN]
    text = render_gemm_header(dispatch)
    assert "kCublasLtVersion = 130100;" in text and f'"{PIN}",' in text
    prose = " ".join(line.removeprefix("// ") for line in text.splitlines())
    assert "confirmation rounds of `tune --confirm` for 1 of 2 shapes" in prose
    # a shape between the measured ones is not an exact match: it takes the tree's leaf
    (code,) = dispatch.choose(np.array([(25, 4096, 4096)]))
    assert dispatch.choices[int(code)].kernel != dispatch.pinned[0].enum_name


def test_a_pinned_candidate_of_the_space_competes_as_itself() -> None:
    """A ``cublaslt:`` row of the space (tune-shapes --cublaslt-space) wins as its own key and
    survives --topk; the heuristic's own configuration listed again is not a second entry."""
    a, b = (24, 4096, 4096), (1024, 4096, 4096)
    heur = PIN.replace("tile=194", "tile=17")
    table = _table(
        [(a, KA, 60.0), (a, "cublas:heuristic", 55.0), (a, "cublas:algo0", 58.0),
         (a, PIN, 66.0), (a, heur, 90.0), (b, KA, 500.0), (b, "cublas:heuristic", 450.0),
         (b, PIN, 470.0)],
        pinned={(a, "cublas:heuristic"): heur},
    )  # fmt: skip
    listed = table["config"].str.startswith("cublaslt:")
    table.loc[listed, "kernel"] = CUBLAS
    table.loc[listed, "raster"] = "H"
    table.loc[listed, "swizzle"] = 1
    table.loc[listed, "pinned"] = table.loc[listed, "config"]
    summary = shape_summary(table)
    assert [w.winner for w in summary] == [PIN, KA]
    assert summary[0].cublas_best_tflops == 58.0  # the heuristic's eight, not the listed ones
    dispatch = measured_dispatch(table, 132, cublaslt_version=130100)
    assert [p.key for p in dispatch.pinned] == [PIN]
    assert dispatch_hits(dispatch, summary) == [True, True]
    short = pd.DataFrame({"M": [24], "N": [4096], "K": [4096], "rank": [1], "config": [KA]})
    top1 = restrict_to_top(table[table["M"] == 24], short, 1)
    assert PIN in set(top1["config"])


def test_curve_regret_and_gpu_time() -> None:
    labels = pd.DataFrame(
        {"group": ["g"] * 3 + ["h"] * 3, "M": [1000] * 6, "N": [1000] * 6, "K": [500] * 6,
         "tflops": [100.0, 50.0, 200.0, 100.0, 90.0, 80.0]}
    )  # fmt: skip
    scores = np.array([3.0, 2.0, 1.0, 1.0, 3.0, 2.0])
    protocol = Protocol(
        warmups=1, rounds=1, iters=2, heat_s=1.0, shape_overhead_s=0.5, config_overhead_s=0.01
    )
    study = curve(labels, scores, (1, 2, 3), protocol)
    k1, k2, k3 = study.rows
    # g ranks 100, 50, 200 (oracle 200): 0.5, 0.5, 0; h ranks 90, 80, 100: 0.1, 0.1, 0.
    assert (k1.mean, k1.max, k1.hit) == pytest.approx((0.3, 0.5, 0.0))
    assert (k2.mean, k3.mean, k3.hit) == pytest.approx((0.3, 0.0, 1.0))
    ms = 2 * 1000 * 1000 * 500 / np.array([100.0, 50.0, 200.0, 100.0, 90.0, 80.0]) / 1e9
    assert protocol.launches == 4
    assert k1.launch_s == pytest.approx((ms[0] + ms[4]) * 4 / 1e3)
    assert k1.gpu_s == pytest.approx(k1.launch_s + 2 * 1.5 + 2 * 0.01)
    assert study.exhaustive_s == pytest.approx(ms.sum() * 4 / 1e3 + 3.0 + 6 * 0.01)
    assert study.per_group["regret_k1"].tolist() == pytest.approx([0.5, 0.1])


def test_report_on_recorded_data(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cutlass", "tune-shapes", "--report", str(FROZEN), "--hardware", "h200"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [line for line in lines if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in table[1:]] == [
        "| 1",
        "| 2",
        "| 4",
        "| 8",
        "| 16",
        "| all",
    ]


def test_committed_device_space_is_what_tune_shapes_writes(tmp_path: Path) -> None:
    """spaces/tune_shapes_llm.json (scripts/device/tune_shapes.sh) from the v1 selector (the
    one shipped when it was measured)."""
    root = Path(__file__).parents[3]
    shapes = root / "evaluation" / "data" / "shapes" / "llm_projections.txt"
    out = tmp_path / "llm.json"
    v1 = root / "evaluation" / "data" / "models" / "h200_selector.json"
    argv = [
        "cutlass",
        "tune-shapes",
        str(shapes),
        "--topk",
        "8",
        "--model",
        str(v1),
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    committed = json.loads((root / "spaces" / "tune_shapes_llm.json").read_text())
    fresh = json.loads(out.read_text())
    assert committed["spaces"] == fresh["spaces"]
    assert len(committed["spaces"][0]["cases"]) >= 24
    kernels = read_kernel_list(root / "spaces" / "tune_shapes_llm.kernels.txt")
    assert kernels == read_kernel_list(tmp_path / "llm.kernels.txt")


def test_device_shapes_are_new() -> None:
    root = Path(__file__).parents[3]
    mine = set(
        read_user_shapes([root / "evaluation" / "data" / "shapes" / "llm_projections.txt"], [])
    )
    seen: set[tuple[int, int, int]] = set()
    for path in (root / "evaluation" / "data" / "shapes").glob("*.json"):
        seen |= set(read_user_shapes([path], []))
    assert len(mine) >= 24 and not mine & seen
