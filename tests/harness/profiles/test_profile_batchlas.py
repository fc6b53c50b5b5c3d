"""BatchLAS's layout: a profile benchspace writes is one BatchLAS's own scripts read.

`batchlas_rows` and `batchlas_spreads` re-implement the profile path of BatchLAS's
``evaluation/tuning/sensitivity.py`` as ../shared/research/batchlas-harness.md §3 describes it
(and as its source reads at ad0fae7): the columns of a bench are ``arg_spec`` then the env
parameters sorted by name; a measurement's ``args`` are zipped with ``arg_spec`` through
``int(v)``, its env values through ``int(env[VAR])`` (a row whose env value is missing or not
an integer is skipped, as is one whose args do not match ``arg_spec`` in length), its value
through ``float(meas["value"])``; per (bench, column) outside the case keys, rows are sliced
on every other column, the minimum kept per value, and a slice of two or more values spreads
``100 * (max - min) / min``.

The golden file tests/golden/profile_minibench.json is what ``tune`` writes for a
minibench-style bench (meta and executable hash fixed); rewrite it with
``BENCHSPACE_REGEN_GOLDEN=1 pytest tests/harness/profiles/test_profile_batchlas.py`` and
review the diff.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.analysis.sensitivity import analyse_profile
from benchspace.harness.cli import main
from benchspace.harness.jsonio import dumps
from benchspace.harness.profiles.batchlas import positional_args
from benchspace.harness.profiles.read import load_profile, parse_profile
from benchspace.harness.profiles.write import profile_data

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "profile_minibench.json"

# BatchLAS's sensitivity.py: positional arguments that identify the case, not a parameter.
CASE_KEYS = {"n", "batch", "uplo", "side", "trans", "jobu", "jobvh", "j0", "ib", "n_sweeps"}

Rows = list[tuple[str, list[int], float]]


def batchlas_rows(profile: dict[str, Any]) -> tuple[Rows, dict[str, list[str]]]:
    """BatchLAS's ``parse_profile``: (bench, column values, metric) rows and each bench's
    column names."""
    rows: Rows = []
    names: dict[str, list[str]] = {}
    for entry in profile.get("results", []):
        if not isinstance(entry, dict):
            continue
        bench = str(entry.get("bench"))
        arg_spec = [str(a) for a in (entry.get("arg_spec") or [])]
        env_spec = entry.get("env_spec") or {}
        env_names = sorted(str(k) for k in env_spec)
        env_vars = [str(env_spec[k]) for k in env_names]
        names[bench] = arg_spec + env_names
        for meas in entry.get("measurements") or []:
            args = [int(v) for v in meas.get("args", [])]
            env = meas.get("env") or {}
            if len(args) != len(arg_spec):
                continue
            try:
                extra = [int(env[v]) for v in env_vars]
            except (KeyError, TypeError, ValueError):
                continue
            rows.append((bench, args + extra, float(meas["value"])))
    return rows, names


def batchlas_spreads(rows: Rows, names: dict[str, list[str]]) -> dict[tuple[str, str], list[float]]:
    """BatchLAS's ``analyse``: per (bench, parameter) the spread of every slice, in percent."""
    spreads: dict[tuple[str, str], list[float]] = defaultdict(list)
    by_bench: dict[str, list[tuple[list[int], float]]] = defaultdict(list)
    for bench, args, metric in rows:
        by_bench[bench].append((args, metric))
    for bench, entries in by_bench.items():
        for idx, name in enumerate(names[bench]):
            if name in CASE_KEYS:
                continue
            slices: dict[tuple[int, ...], dict[int, float]] = defaultdict(dict)
            for args, metric in entries:
                key = tuple(v for i, v in enumerate(args) if i != idx)
                prev = slices[key].get(args[idx])
                if prev is None or metric < prev:
                    slices[key][args[idx]] = metric
            for vals in slices.values():
                if len(vals) < 2:
                    continue
                lo, hi = min(vals.values()), max(vals.values())
                if lo <= 0:
                    continue
                spreads[(bench, name)].append(100.0 * (hi - lo) / lo)
    return dict(spreads)


def _space() -> dict[str, Any]:
    return {
        "bench": "sytrd_like",
        "exe": "fake_benchmark",
        "metric": "Time (µs) / matrix",
        "arg_spec": ["n", "block", "batch"],
        "env": {"lanes": "FAKE_LANES"},
        "row": "BM_FAKE",
        "cases": [
            {"fixed": {"n": 64, "batch": 512}, "tune": {"block": [16, 32, 48], "lanes": [2, 4]}},
            {"fixed": {"n": 128, "batch": 256}, "tune": {"block": [16, 32, 64], "lanes": [4, 8]}},
        ],
    }


def _normalised(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile without what varies between runs (meta, executable hash)."""
    out = dict(profile, meta={"backend": "NETLIB", "dtype": "float"})
    out["results"] = [dict(r, exe_sha256="0" * 64) for r in profile["results"]]
    return out


@pytest.fixture
def swept(fake_build: Path, write_space: Callable[..., Path]) -> Path:
    out = fake_build / "tuning" / "profile.json"
    space = write_space([_space()])
    argv = ["tune", "--space", str(space), "--build-dir", str(fake_build), "--out", str(out)]
    assert main([*argv, "--quiet", "--backend", "NETLIB"]) == 0
    return out


def test_the_profile_has_batchlas_s_layout(swept: Path) -> None:
    doc = json.loads(swept.read_text())
    (result,) = doc["results"]
    batchlas_keys = {"bench", "exe", "metric", "direction", "arg_spec", "env_spec", "pre_tune"}
    assert batchlas_keys | {"best", "top", "per_case_best", "measurements"} <= set(result)
    assert result["arg_spec"] == ["n", "block", "batch"]
    for m in result["measurements"]:
        # The positional arguments in arg_spec order, integers as tune.py passes them.
        values = {**m["fixed"], **m["params"]}
        assert m["args"] == [values["n"], values["block"], values["batch"]]
        assert all(type(a) is int for a in m["args"])
        assert m["argv"][0] == "fake_benchmark" and "--backend=NETLIB" in m["argv"]
        assert m["argv"][-3:] == [str(a) for a in m["args"]]
        assert set(m["env"]) == {"FAKE_LANES"} and isinstance(m["value"], float)
    for best in result["per_case_best"]:
        assert all(type(a) is int for a in best["args"]) and len(best["args"]) == 3
    for top in [result["best"], *result["top"]]:
        for case in top["cases"]:
            assert all(type(a) is int for a in case["args"]) and len(case["args"]) == 3


def test_batchlas_s_sensitivity_reads_it_and_finds_our_spreads(swept: Path) -> None:
    doc = json.loads(swept.read_text())
    rows, names = batchlas_rows(doc)
    assert len(rows) == len(doc["results"][0]["measurements"]) == 12
    theirs = batchlas_spreads(rows, names)
    ours = analyse_profile(load_profile(swept), source=str(swept))
    (bench,) = ours.benches
    assert (
        set(theirs)
        == {("sytrd_like", p.param) for p in bench.params}
        == {
            ("sytrd_like", "block"),
            ("sytrd_like", "lanes"),
        }
    )
    for param in bench.params:
        assert sorted(param.spreads) == pytest.approx(sorted(theirs[("sytrd_like", param.param)]))


def test_the_golden_minibench_profile(swept: Path) -> None:
    text = dumps(_normalised(json.loads(swept.read_text())))
    if os.environ.get("BENCHSPACE_REGEN_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), "the profile layout changed; see this file's docstring"
    # The golden file itself: BatchLAS reads it, and so do we.
    rows, names = batchlas_rows(json.loads(GOLDEN.read_text()))
    assert len(rows) == 12 and names["sytrd_like"] == ["n", "block", "batch", "lanes"]
    profile = parse_profile(json.loads(GOLDEN.read_text()), source=str(GOLDEN))
    assert profile.results["sytrd_like"].best is not None


def test_a_recorded_version_1_profile_is_readable_by_batchlas_once_upgraded() -> None:
    # The demo's checked-in profile was written in version 1: its args were the whole argv.
    path = Path(__file__).resolve().parents[3] / "include" / "benchspace_demo" / "profile.json"
    old = json.loads(path.read_text())
    with pytest.raises(ValueError, match="invalid literal for int"):
        batchlas_rows(old)
    upgraded = profile_data(load_profile(path))
    rows, names = batchlas_rows(upgraded)
    assert len(rows) == sum(len(r["measurements"]) for r in upgraded["results"]) > 0
    assert names["matmul"] == ["n", "block"]
    assert set(batchlas_spreads(rows, names)) == {
        ("matmul", "block"),
        ("lu", "block"),
        ("matvec", "lanes"),
        ("sort", "branchless"),
    }


def test_positional_args_keep_values_and_template_words() -> None:
    argv = ["exe", "--csv={out}", "64", "--nb=8", "1"]
    values = {"n": 64, "nb": 8, "flag": True}
    assert positional_args(["n", "--nb={nb}", "flag"], argv, values) == (64, "--nb=8", True)
    assert positional_args(["n", "m"], ["exe", "64", "7"], {"n": 64}) == (64, "7")
    assert positional_args([], ["exe", "--x"], {}) == ()
