"""The bad-input corpus of the command line: every subcommand, run through ``main()``.

Each case names a command line with one bad input (a directory, a file that is not UTF-8,
JSON nested 100,000 levels deep, a path under a file, an unwritable folder, a number that is
not finite, a profile field of the wrong type, a value a consumer would take silently ...) and
pins the one-line message and the exit code (1; 2 for usage). Nothing may be written: the
work folder and the shared inputs are hashed before and after, and the fake benchmark logs
every invocation into the work folder, so a case that ran one would change the hash.

The strings name the work folder ``{W}``, the shared read-only inputs ``{G}`` and the repository
``{R}``; ``{D}`` is the crafted demo profile and ``{S}`` its space (run from the repository
root: the profile names its space relative to it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "data" / "profiles" / "demo_like.json"
DEMO_SPACE = "tests/generators/spaces/demo_like.json"
CHECKED_IN = ROOT / "tests" / "generators" / "data" / "demo_checked_in.hh"
DEEP = "[" * 100_000 + "]" * 100_000
LONG = "x" * 300
"""A file name longer than any file system takes (255 bytes)."""
UNWRITABLE = Path("/sys/benchspace-corpus")
"""A folder no one may create files in, root included (sysfs)."""

FAKE_SPACE: dict[str, Any] = {
    "spaces": [
        {
            "bench": "fake",
            "exe": "fake_benchmark",
            "metric": "avg_ms",
            "arg_spec": ["n", "block"],
            "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
        }
    ]
}


def _space(**bench: Any) -> str:
    doc = json.loads(json.dumps(FAKE_SPACE))
    doc["spaces"][0].update(bench)
    return json.dumps(doc)


def _profile(edit: str) -> str:
    """The demo profile with one field made bad."""
    doc = json.loads(DEMO.read_text(encoding="utf-8"))
    row = doc["results"][0]["measurements"][0]
    if edit == "nan":
        row["median"] = float("nan")
    elif edit == "inf":
        row["samples"][1] = float("inf")
    elif edit == "neginf":
        doc["results"][1]["measurements"][2]["value"] = float("-inf")
        doc["results"][1]["measurements"][2]["median"] = float("-inf")
    elif edit == "version":
        doc["version"] = "abc"
    elif edit == "meta":
        doc["meta"] = []
    elif edit == "case":
        row["case_index"] = "x"
    elif edit == "pretune":
        doc["results"][0]["pre_tune"] = [1]
    elif edit == "results":
        doc["results"] = {"a": 1}
    elif edit == "direction":
        doc["results"][0]["direction"] = "maximise"
    elif edit == "negative-case":
        row["case_index"] = -1
    elif edit == "negative-stdev":
        row["stdev"] = -0.5
    elif edit == "negative-time":
        doc["results"][1]["measurements"][0]["median"] = -1.0
    elif edit == "zero-time":
        doc["results"][3]["per_case_best"][0]["value"] = 0
        doc["results"][3]["per_case_best"][0]["median"] = 0
    elif edit.startswith("space="):
        doc["meta"]["provenance"]["space_path"] = edit.removeprefix("space=")
    return json.dumps(doc)


def _review(**change: Any) -> str:
    """A confirm output with one rejected change."""
    entry = {"verdict": "rejected", "constant": "MATMUL_BLOCK", "bucket": "SMALL", "old": 64}
    entry.update(change)
    return json.dumps({"format": "benchspace-review", "version": 1, "changes": [entry]})


FILES: dict[str, str | bytes] = {
    "file": "not a folder\n",
    "latin1.json": b'{"spaces": "caf\xe9"}',
    "latin1.hh": b"#pragma once\n// caf\xe9\n",
    "deep.json": DEEP,
    "empty.json": "",
    "list.json": "[1]",
    "space.json": _space(),
    "timeout_huge.json": _space(timeout_s=1).replace('"timeout_s": 1', '"timeout_s": 1e400'),
    "timeout_negative.json": _space(timeout_s=-1),
    "timeout_year.json": _space(timeout_s=31536000),
    "fixed_huge.json": _space(cases=[{"fixed": {"n": 1}, "tune": {"block": [16]}}]).replace(
        '"n": 1', '"n": -1e999'
    ),
    "cases_number.json": _space(cases=1),
    "repeats_huge.json": _space(repeats=1).replace('"repeats": 1', '"repeats": 1e9'),
    "grid_dir.json": _space(cases=[{"fixed": {"n": 64}, "tune": {"block": {"file": "dir"}}}]),
    "grid_latin1.json": _space(
        cases=[{"fixed": {"n": 64}, "tune": {"block": {"file": "latin1.json"}}}]
    ),
    "grid_endless.json": _space(
        cases=[{"fixed": {"n": 64}, "tune": {"block": {"file": "/dev/zero"}}}]
    ),
    "grid_under_file.json": _space(
        cases=[{"fixed": {"n": 64}, "tune": {"block": {"file": "file/g.txt"}}}]
    ),
    "p_nan.json": _profile("nan"),
    "p_inf.json": _profile("inf"),
    "p_neginf.json": _profile("neginf"),
    "p_version.json": _profile("version"),
    "p_meta.json": _profile("meta"),
    "p_case.json": _profile("case"),
    "p_pretune.json": _profile("pretune"),
    "p_results.json": _profile("results"),
    "p_direction.json": _profile("direction"),
    "p_negative_case.json": _profile("negative-case"),
    "p_negative_stdev.json": _profile("negative-stdev"),
    "p_negative_time.json": _profile("negative-time"),
    "p_zero_time.json": _profile("zero-time"),
    "hold_types.json": _review(constant=[1], bucket={}),
    "hold_old.json": _review(old=[1, 2]),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A generated header and its review, made once (cases read them, never write them)."""
    folder = tmp_path_factory.mktemp("shared")
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        head = ["--profile", str(DEMO), "--header", str(CHECKED_IN)]
        assert main(["generate", *head, "--out", str(folder / "gen.hh")]) == 0
        review = ["review", *head, "--generated", str(folder / "gen.hh"), "--format", "json"]
        assert main([*review, "--out", str(folder / "review.json")]) == 0
    finally:
        os.chdir(cwd)
    yield folder


def _tree(*roots: Path) -> str:
    """A hash of every path, mode and file content under the roots."""
    h = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            h.update(str(path).encode() + b"\0" + oct(path.lstat().st_mode).encode())
            if path.is_file() and not path.is_symlink():
                h.update(path.read_bytes())
    return h.hexdigest()


# (id, argv, exit code, the message: the whole stderr for exit 1, its last line for exit 2)
CASES: list[tuple[str, str, int, str]] = [
    # ---------------------------------------------------------------- validate
    ("validate-dir", "validate --space {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a space file"),
    ("validate-latin1", "validate --space {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("validate-deep", "validate --space {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a space file"),
    ("validate-unreadable", "validate --space /proc/self/mem", 1,
     "error: /proc/self/mem: cannot be read (Input/output error); check the file"),
    ("validate-endless", "validate --space /dev/zero", 1,
     "error: /dev/zero: larger than 256 MiB; this is not a space file (check the path)"),
    ("validate-grid-endless", "validate --space {W}/grid_endless.json --allow-outside-root", 1,
     "error: {W}/grid_endless.json: $.spaces[0].cases[0].tune.block.file: '/dev/zero': larger "
     "than 256 MiB; check the path"),
    ("validate-under-file", "validate --space {W}/file/space.json", 1,
     "error: {W}/file/space.json: a folder on the path is a file; check the path"),
    ("validate-empty", "validate --space {W}/empty.json", 1,
     "error: {W}/empty.json: line 1, column 1: invalid JSON: Expecting value; fix the syntax "
     '(JSON has no comments or trailing commas; write notes as "_comment" keys)'),
    ("validate-timeout-huge", "validate --space {W}/timeout_huge.json", 1,
     "error: {W}/timeout_huge.json: line 1, column 179: 1e400 is too large for a number (above "
     "1.8e308, read as infinity); write a finite number"),
    ("validate-timeout-year", "validate --space {W}/timeout_year.json", 1,
     "error: {W}/timeout_year.json: $.spaces[0].timeout_s: value 31536000 is above the maximum "
     "604800; use 604800 or less"),
    ("validate-fixed-overflow", "validate --space {W}/fixed_huge.json", 1,
     "error: {W}/fixed_huge.json: line 1, column 130: -1e999 is too large for a number (above "
     "1.8e308, read as infinity); write a finite number"),
    ("validate-cases-not-a-list", "validate --space {W}/cases_number.json", 1,
     "error: {W}/cases_number.json: $.spaces[0].cases: value 1 is not a list; list at least "
     'one case: [{"fixed": {"n": 64}, "tune": {"nb": [8, 16]}}]'),
    ("validate-timeout-negative", "validate --space {W}/timeout_negative.json", 1,
     "error: {W}/timeout_negative.json: $.spaces[0].timeout_s: value -1 must be greater than "
     "0; use a larger value"),
    ("validate-repeats-huge", "validate --space {W}/repeats_huge.json", 1,
     "error: {W}/repeats_huge.json: $.spaces[0].repeats: value 1000000000.0 is above the "
     "maximum 1000; use 1000 or less"),
    ("validate-grid-dir", "validate --space {W}/grid_dir.json", 1,
     "error: {W}/grid_dir.json: $.spaces[0].cases[0].tune.block.file: cannot read 'dir' (Is a "
     "directory); the path is relative to the space file"),
    ("validate-grid-latin1", "validate --space {W}/grid_latin1.json", 1,
     "error: {W}/grid_latin1.json: $.spaces[0].cases[0].tune.block.file: 'latin1.json': byte "
     "15 is not UTF-8; save the file as UTF-8"),
    ("validate-grid-under-file", "validate --space {W}/grid_under_file.json", 1,
     "error: {W}/grid_under_file.json: $.spaces[0].cases[0].tune.block.file: cannot read "
     "'file/g.txt' (Not a directory); the path is relative to the space file"),
    # ---------------------------------------------------------------- tune
    ("tune-timeout-inf", "tune --space {W}/space.json --build-dir {W}/build --timeout inf", 2,
     "benchspace tune: error: argument --timeout: 'inf' is not a finite number; write e.g. 60"),
    ("tune-timeout-nan", "tune --space {W}/space.json --build-dir {W}/build --timeout nan", 2,
     "benchspace tune: error: argument --timeout: 'nan' is not a finite number; write e.g. 60"),
    ("tune-timeout-huge", "tune --space {W}/space.json --build-dir {W}/build --timeout 1e400", 2,
     "benchspace tune: error: argument --timeout: '1e400' is not a finite number; write e.g. "
     "60"),
    ("tune-timeout-negative", "tune --space {W}/space.json --build-dir {W}/build --timeout=-1",
     2, "benchspace tune: error: argument --timeout: -1 must be above 0 and at most 604800 "
     "seconds (a week); write e.g. 60"),
    ("tune-timeout-year", "tune --space {W}/space.json --build-dir {W}/build --timeout 3e7", 2,
     "benchspace tune: error: argument --timeout: 3e7 must be above 0 and at most 604800 "
     "seconds (a week); write e.g. 60"),
    ("tune-repeats-zero", "tune --space {W}/space.json --build-dir {W}/build --repeats 0", 2,
     "benchspace tune: error: argument --repeats: 0 must be from 1 to 1000"),
    ("tune-repeats-float", "tune --space {W}/space.json --build-dir {W}/build --repeats 1e9", 2,
     "benchspace tune: error: argument --repeats: '1e9' is not an integer"),
    ("tune-jobs-zero", "tune --space {W}/space.json --build-dir {W}/build --jobs 0", 2,
     "benchspace tune: error: argument --jobs: 0 must be from 1 to 4096"),
    ("tune-min-time-nan", "tune --space {W}/space.json --build-dir {W}/build --min-time nan", 2,
     "benchspace tune: error: argument --min-time: 'nan' is not a finite number; write e.g. 60"),
    ("tune-warmup-negative", "tune --space {W}/space.json --build-dir {W}/build --warmup=-1", 2,
     "benchspace tune: error: argument --warmup: -1 must be from 0 to 1000000000"),
    ("tune-out-dir", "tune --space {W}/space.json --build-dir {W}/build --out {W}/dir", 1,
     "error: --out {W}/dir: is a directory; give the path of a file"),
    ("tune-out-under-file",
     "tune --space {W}/space.json --build-dir {W}/build --out {W}/file/p.json", 1,
     "error: --out {W}/file/p.json: {W}/file is not a directory; choose another --out path"),
    ("tune-out-deep-under-file",
     "tune --space {W}/space.json --build-dir {W}/build --out {W}/file/a/b/p.json", 1,
     "error: --out {W}/file/a/b/p.json: {W}/file is not a directory; choose another --out "
     "path"),
    ("tune-out-unwritable",
     "tune --space {W}/space.json --build-dir {W}/build --out " + f"{UNWRITABLE}/p.json", 1,
     f"error: --out {UNWRITABLE}/p.json: cannot write in /sys (Permission denied); choose "
     "another --out path or make the folder writable"),
    ("tune-store-under-file",
     "tune --space {W}/space.json --build-dir {W}/build --out {W}/p.json "
     "--store {W}/file/s.sqlite", 1,
     "error: --store {W}/file/s.sqlite: {W}/file is not a directory; choose another --store "
     "path"),
    ("tune-store-unwritable",
     "tune --space {W}/space.json --build-dir {W}/build --out {W}/p.json --store "
     + f"{UNWRITABLE}/s.sqlite", 1,
     f"error: --store {UNWRITABLE}/s.sqlite: cannot write in /sys (Permission denied); choose "
     "another --store path or make the folder writable"),
    ("tune-out-is-the-store",
     "tune --space {W}/space.json --build-dir {W}/build --out {W}/s.sqlite "
     "--store {W}/s.sqlite", 1,
     "error: --out {W}/s.sqlite: is the store ({W}/s.sqlite); write the output to another "
     "file"),
    ("tune-out-is-the-space", "tune --space {W}/space.json --build-dir {W}/build "
     "--out {W}/space.json", 1,
     "error: --out {W}/space.json: is the space ({W}/space.json); write the output to another "
     "file"),
    ("tune-gpus-not-ids", "tune --space {W}/space.json --build-dir {W}/build --out {W}/p.json "
     "--gpus 0,first", 2,
     "error: --gpus: 'first' is not a GPU id; write indices such as 0,1 (or GPU-/MIG- UUIDs)"),
    ("tune-unknown-bench", "tune --space {W}/space.json --build-dir {W}/build --bench nosuch", 2,
     "error: --bench: nosuch not in {W}/space.json (benches: fake)"),
    ("tune-space-dir", "tune --space {W}/dir --build-dir {W}/build", 1,
     "error: {W}/dir: is a directory; give the path of a space file"),
    ("tune-space-deep", "tune --space {W}/deep.json --build-dir {W}/build", 1,
     "error: {W}/deep.json: $: nested too deeply to be a space file"),
    ("tune-space-timeout-huge", "tune --space {W}/timeout_huge.json --build-dir {W}/build", 1,
     "error: {W}/timeout_huge.json: line 1, column 179: 1e400 is too large for a number (above "
     "1.8e308, read as infinity); write a finite number"),
    ("tune-space-repeats-huge", "tune --space {W}/repeats_huge.json --build-dir {W}/build", 1,
     "error: {W}/repeats_huge.json: $.spaces[0].repeats: value 1000000000.0 is above the "
     "maximum 1000; use 1000 or less"),
    # ---------------------------------------------------------------- sensitivity
    ("sensitivity-dir", "sensitivity {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a profile"),
    ("sensitivity-latin1", "sensitivity {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("sensitivity-deep", "sensitivity {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a profile"),
    ("sensitivity-unreadable", "sensitivity /proc/self/mem", 1,
     "error: /proc/self/mem: cannot be read (Input/output error); check the file"),
    ("sensitivity-endless", "sensitivity /dev/zero", 1,
     "error: /dev/zero: larger than 256 MiB; this is not a profile (check the path)"),
    ("sensitivity-empty", "sensitivity {W}/empty.json", 1,
     "error: {W}/empty.json: invalid JSON at line 1 column 1 (Expecting value)"),
    ("sensitivity-nan", "sensitivity {W}/p_nan.json", 1,
     "error: {W}/p_nan.json: $.results[0].measurements[0].median: NaN is not a finite number; "
     "a measurement is finite (re-run `benchspace tune --rerun`, or delete the row)"),
    ("sensitivity-inf", "sensitivity {W}/p_inf.json", 1,
     "error: {W}/p_inf.json: $.results[0].measurements[0].samples[1]: Infinity is not a finite "
     "number; a measurement is finite (re-run `benchspace tune --rerun`, or delete the row)"),
    ("sensitivity-version", "sensitivity {W}/p_version.json", 1,
     'error: {W}/p_version.json: $.version: "abc" is not an integer'),
    ("sensitivity-meta", "sensitivity {W}/p_meta.json", 1,
     "error: {W}/p_meta.json: $.meta: [] is not an object"),
    ("sensitivity-case-index", "sensitivity {W}/p_case.json", 1,
     'error: {W}/p_case.json: $.results[0].measurements[0].case_index: "x" is not an integer'),
    ("sensitivity-pre-tune", "sensitivity {W}/p_pretune.json", 1,
     "error: {W}/p_pretune.json: $.results[0].pre_tune[0]: 1 is not an object"),
    ("sensitivity-not-an-object", "sensitivity {W}/list.json", 1,
     "error: {W}/list.json: $: [1] is not an object"),
    ("sensitivity-direction", "sensitivity {W}/p_direction.json", 1,
     'error: {W}/p_direction.json: $.results[0].direction: "maximise" is not "min" or "max"'),
    ("sensitivity-negative-case", "sensitivity {W}/p_negative_case.json", 1,
     "error: {W}/p_negative_case.json: $.results[0].measurements[0].case_index: -1 is not an "
     "integer at least 0"),
    ("sensitivity-negative-stdev", "sensitivity {W}/p_negative_stdev.json", 1,
     "error: {W}/p_negative_stdev.json: $.results[0].measurements[0].stdev: -0.5 is not a "
     "spread (a number at least 0)"),
    ("sensitivity-negative-time", "sensitivity {W}/p_negative_time.json", 1,
     "error: {W}/p_negative_time.json: $.results[1].measurements[0].median: -1.0 cannot be a "
     "time ('real_time' under direction min); re-run `benchspace tune --rerun`, or delete the "
     "row"),
    ("generate-zero-time", "generate --profile {W}/p_zero_time.json --out {W}/o.hh", 1,
     "error: {W}/p_zero_time.json: $.results[3].per_case_best[0].median: 0 cannot be a time "
     "('real_time' under direction min); re-run `benchspace tune --rerun`, or delete the row"),
    ("sensitivity-results", "sensitivity {W}/p_results.json", 1,
     'error: {W}/p_results.json: $.results: {"a": 1} is not a list'),
    ("sensitivity-pruned-dir", "sensitivity {D} --space {S} --write-pruned {W}/dir", 1,
     "error: --write-pruned {W}/dir: is a directory; give the path of a file"),
    ("sensitivity-pruned-under-file",
     "sensitivity {D} --space {S} --write-pruned {W}/file/x.json", 1,
     "error: --write-pruned {W}/file/x.json: {W}/file is not a directory; choose another "
     "--write-pruned path"),
    ("sensitivity-plot-dir", "sensitivity {D} --plot {W}/dir.png", 1,
     "error: --plot {W}/dir.png: is a directory; give the path of a file"),
    ("sensitivity-plot-suffix", "sensitivity {D} --plot {W}/plot.txt", 2,
     "error: --plot {W}/plot.txt: not an image file name; end it in .png, .pdf or .svg"),
    ("sensitivity-plot-before-pruned",
     "sensitivity {D} --space {S} --write-pruned {W}/pruned.json --plot {W}/file/p.png", 1,
     "error: --plot {W}/file/p.png: {W}/file is not a directory; choose another --plot path"),
    ("sensitivity-noise-nan", "sensitivity {D} --noise nan", 2,
     "error: --noise: nan must be a non-negative percentage; write e.g. 2.5"),
    # ---------------------------------------------------------------- generate
    ("generate-profile-dir", "generate --profile {W}/dir --out {W}/o.hh", 1,
     "error: {W}/dir: is a directory; give the path of a profile"),
    ("generate-profile-nan", "generate --profile {W}/p_nan.json --out {W}/o.hh", 1,
     "error: {W}/p_nan.json: $.results[0].measurements[0].median: NaN is not a finite number; "
     "a measurement is finite (re-run `benchspace tune --rerun`, or delete the row)"),
    ("generate-profile-neginf", "generate --profile {W}/p_neginf.json --out {W}/o.hh", 1,
     "error: {W}/p_neginf.json: $.results[1].measurements[2].median: -Infinity is not a finite "
     "number; a measurement is finite (re-run `benchspace tune --rerun`, or delete the row)"),
    ("generate-out-dir", "generate --profile {D} --header {H} --out {W}/dir", 1,
     "error: --out {W}/dir: is a directory; give the path of a file"),
    ("generate-out-under-file", "generate --profile {D} --header {H} --out {W}/file/o.hh", 1,
     "error: --out {W}/file/o.hh: {W}/file is not a directory; choose another --out path"),
    ("generate-out-unwritable",
     "generate --profile {D} --header {H} --out " + f"{UNWRITABLE}/o.hh", 1,
     f"error: --out {UNWRITABLE}/o.hh: cannot write in /sys (Permission denied); choose "
     "another --out path or make the folder writable"),
    ("generate-check-dir", "generate --profile {D} --header {H} --out {W}/dir --check", 1,
     "note: SORT_INSERTION_CUTOFF: sort.cutoff is pre-tuned (on cases 2); every bucket it "
     "decides takes that one winner\n"
     "error: {W}/dir: is a directory; give the path of a header"),
    ("generate-out-is-the-profile", "generate --profile {W}/p.json --header {H} --out "
     "{W}/p.json", 1,
     "error: --out {W}/p.json: is the profile ({W}/p.json); write the output to another file"),
    ("generate-out-name-too-long", "generate --profile {D} --header {H} --out {W}/" + LONG, 1,
     "error: --out {W}/" + LONG + ": File name too long; choose another --out path"),
    ("generate-header-name-too-long", "generate --profile {D} --header {W}/" + LONG
     + " --out {W}/o.hh", 1,
     "error: {W}/" + LONG + ": File name too long; check the path"),
    ("generate-out-a-pipe", "generate --profile {D} --header {H} --out {W}/pipe", 1,
     "error: --out {W}/pipe: is not a regular file (a device, a pipe or a socket), which an "
     "atomic write would replace; give the path of a file"),
    ("generate-hold-dir", "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a confirm output"),
    ("generate-hold-latin1",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("generate-hold-deep",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a confirm output"),
    ("generate-hold-missing",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/nope.json", 1,
     "error: {W}/nope.json: no such file; pass the file `benchspace confirm --out` wrote"),
    ("generate-hold-list",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/list.json", 1,
     "error: {W}/list.json: $: pass the file `benchspace confirm --out` wrote"),
    ("generate-hold-empty",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/empty.json", 1,
     "error: {W}/empty.json: line 1, column 1: invalid JSON: Expecting value; fix the syntax"),
    ("generate-hold-constant-not-a-name",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/hold_types.json", 1,
     "error: {W}/hold_types.json: $.changes[0]: constant and bucket are names (strings); pass "
     "the file `benchspace confirm --out` wrote"),
    ("generate-hold-old-not-a-value",
     "generate --profile {D} --header {H} --out {W}/o.hh --hold {W}/hold_old.json", 1,
     "error: {W}/hold_old.json: $.changes[0].old: [1, 2] is not a constant's value; pass the "
     "file `benchspace confirm --out` wrote"),
    ("generate-profile-space-dir", "generate --profile {W}/p_space_dir.json --out {W}/o.hh", 1,
     "error: {W}/dir: is a directory; give the path of a space file"),
    ("generate-header-dir", "generate --profile {D} --header {W}/dir --out {W}/o.hh", 1,
     "error: {W}/dir: is a directory; give the path of a header"),
    ("generate-header-latin1", "generate --profile {D} --header {W}/latin1.hh --out {W}/o.hh", 1,
     "error: {W}/latin1.hh: byte 19 is not UTF-8; save the file as UTF-8"),
    ("generate-space-dir", "generate --profile {D} --space {W}/dir --out {W}/o.hh", 1,
     "error: {W}/dir: is a directory; give the path of a space file"),
    # ---------------------------------------------------------------- review
    ("review-generated-dir", "review --profile {D} --header {H} --generated {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a header"),
    ("review-generated-latin1", "review --profile {D} --header {H} --generated {W}/latin1.hh",
     1, "error: {W}/latin1.hh: byte 19 is not UTF-8; save the file as UTF-8"),
    ("review-out-dir", "review --profile {D} --header {H} --generated {G}/gen.hh --out {W}/dir",
     1, "error: --out {W}/dir: is a directory; give the path of a file"),
    ("review-out-under-file",
     "review --profile {D} --header {H} --generated {G}/gen.hh --out {W}/file/r.md", 1,
     "error: --out {W}/file/r.md: {W}/file is not a directory; choose another --out path"),
    ("review-out-is-the-generated-header",
     "review --profile {D} --header {H} --generated {W}/h.hh --out {W}/h.hh", 1,
     "error: --out {W}/h.hh: is the generated header ({W}/h.hh); write the output to another "
     "file"),
    ("review-out-a-pipe",
     "review --profile {D} --header {H} --generated {G}/gen.hh --out {W}/pipe", 1,
     "error: --out {W}/pipe: is not a regular file (a device, a pipe or a socket), which an "
     "atomic write would replace; give the path of a file"),
    ("review-profile-inf", "review --profile {W}/p_inf.json --header {H} --generated {G}/gen.hh",
     1, "error: {W}/p_inf.json: $.results[0].measurements[0].samples[1]: Infinity is not a "
     "finite number; a measurement is finite (re-run `benchspace tune --rerun`, or delete the "
     "row)"),
    ("review-header-dir", "review --profile {D} --header {W}/dir --generated {G}/gen.hh", 1,
     "error: {W}/dir: is a directory; give the path of a header"),
    # ---------------------------------------------------------------- port
    ("port-accepted-dir", "port --generated {G}/gen.hh --header {W}/h.hh --accepted {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a review"),
    ("port-accepted-latin1",
     "port --generated {G}/gen.hh --header {W}/h.hh --accepted {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("port-accepted-deep",
     "port --generated {G}/gen.hh --header {W}/h.hh --accepted {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a review"),
    ("port-accepted-missing",
     "port --generated {G}/gen.hh --header {W}/h.hh --accepted {W}/nope.json", 1,
     "error: {W}/nope.json: no such review file; write it with `benchspace review --format "
     "json`"),
    ("port-accepted-list",
     "port --generated {G}/gen.hh --header {W}/h.hh --accepted {W}/list.json", 1,
     "error: {W}/list.json: $: a review is a JSON object"),
    ("port-generated-dir", "port --generated {W}/dir --header {W}/h.hh --only MATMUL_BLOCK", 1,
     "error: {W}/dir: is a directory; give the path of a header"),
    ("port-header-dir", "port --generated {G}/gen.hh --header {W}/dir --only MATMUL_BLOCK", 1,
     "error: {W}/dir: is a directory; give the path of a header"),
    ("port-header-latin1",
     "port --generated {G}/gen.hh --header {W}/latin1.hh --only MATMUL_BLOCK", 1,
     "error: {W}/latin1.hh: byte 19 is not UTF-8; save the file as UTF-8"),
    # ---------------------------------------------------------------- ab
    ("ab-max-time-nan", "ab --exe {W}/build/benchmarks/fake_benchmark --metric t --max-time nan",
     2, "benchspace ab: error: argument --max-time: 'nan' is not a finite number; write e.g. 60"),
    ("ab-timeout-inf", "ab --exe {W}/build/benchmarks/fake_benchmark --metric t --timeout inf",
     2, "benchspace ab: error: argument --timeout: 'inf' is not a finite number; write e.g. 60"),
    ("ab-rounds-zero", "ab --exe {W}/build/benchmarks/fake_benchmark --metric t --rounds 0", 2,
     "benchspace ab: error: argument --rounds: 0 must be from 1 to 1000000"),
    ("ab-margin-negative",
     "ab --exe {W}/build/benchmarks/fake_benchmark --metric t --margin=-5", 2,
     "benchspace ab: error: argument --margin: -5 must be at least 0"),
    ("ab-unknown-param",
     "ab --space {W}/space.json --bench fake --case 0 --build-dir {W}/build --param nosuch=3",
     2, "error: --param nosuch: bench 'fake' case 0 tunes no parameter 'nosuch' (it tunes: "
     "block); name one of those"),
    ("ab-fixed-param",
     "ab --space {W}/space.json --bench fake --case 0 --build-dir {W}/build --param n=3",
     2, "error: --param n: bench 'fake' case 0 tunes no parameter 'n' (it tunes: block); name "
     "one of those"),
    ("ab-too-few-rounds-with-store",
     "ab --exe {W}/build/benchmarks/fake_benchmark --metric avg_ms --rounds 2 "
     "--store {W}/ab.sqlite", 2,
     "error: --rounds 2: a verdict needs at least 5 pairs"),
    ("ab-unknown-bench", "ab --space {W}/space.json --bench nosuch --case 0", 1,
     "error: {W}/space.json: no bench 'nosuch'; known benches: 'fake'"),
    ("ab-space-dir", "ab --space {W}/dir --bench fake --case 0", 1,
     "error: {W}/dir: is a directory; give the path of a space file"),
    ("ab-store-under-file",
     "ab --space {W}/space.json --bench fake --case 0 --build-dir {W}/build "
     "--store {W}/file/s.sqlite", 1,
     "error: --store {W}/file/s.sqlite: {W}/file is not a directory; choose another --store "
     "path"),
    # ---------------------------------------------------------------- confirm
    ("confirm-review-dir", "confirm --space {S} --profile {D} --review {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a review"),
    ("confirm-review-latin1", "confirm --space {S} --profile {D} --review {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("confirm-review-deep", "confirm --space {S} --profile {D} --review {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a review"),
    ("confirm-review-missing", "confirm --space {S} --profile {D} --review {W}/nope.json", 1,
     "error: {W}/nope.json: no such file; write it with `benchspace review --format json`"),
    ("confirm-review-list", "confirm --space {S} --profile {D} --review {W}/list.json", 1,
     "error: {W}/list.json: $: a review is a JSON object"),
    ("confirm-profile-dir", "confirm --space {S} --profile {W}/dir --review {G}/review.json", 1,
     "error: {W}/dir: is a directory; give the path of a profile"),
    ("confirm-out-dir",
     "confirm --space {S} --profile {D} --review {G}/review.json --out {W}/dir", 1,
     "error: --out {W}/dir: is a directory; give the path of a file"),
    ("confirm-store-under-file",
     "confirm --space {S} --profile {D} --review {G}/review.json --store {W}/file/s.sqlite", 1,
     "error: --store {W}/file/s.sqlite: {W}/file is not a directory; choose another --store "
     "path"),
    ("confirm-too-few-rounds",
     "confirm --space {S} --profile {D} --review {G}/review.json --rounds 2 "
     "--store {W}/c.sqlite", 2,
     "error: --rounds 2: a verdict needs at least 5 pairs"),
    ("confirm-out-is-the-review",
     "confirm --space {S} --profile {D} --review {W}/review.json --out {W}/review.json", 1,
     "error: --out {W}/review.json: is the review ({W}/review.json); write the output to "
     "another file"),
    ("confirm-timeout-nan", "confirm --space {S} --profile {D} --timeout nan", 2,
     "benchspace confirm: error: argument --timeout: 'nan' is not a finite number; write e.g. "
     "60"),
    ("confirm-max-time-inf", "confirm --space {S} --profile {D} --max-time inf", 2,
     "benchspace confirm: error: argument --max-time: 'inf' is not a finite number; write e.g. "
     "60"),
    # ---------------------------------------------------------------- cutlass
    ("cutlass-select-model-dir", "cutlass select 128 128 128 --model {W}/dir", 1,
     "error: {W}/dir: is a directory; give the path of a selector"),
    ("cutlass-select-model-latin1", "cutlass select 128 128 128 --model {W}/latin1.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("cutlass-select-model-deep", "cutlass select 128 128 128 --model {W}/deep.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a selector"),
    ("cutlass-select-model-empty", "cutlass select 128 128 128 --model {W}/empty.json", 1,
     "error: {W}/empty.json: line 1, column 1: invalid JSON: Expecting value; retrain the "
     "selector"),
    ("cutlass-header-out-dir", "cutlass header --out {W}/dir", 1,
     "error: --out {W}/dir: is a directory; give the path of a file"),
    ("cutlass-header-model-dir", "cutlass header --model {W}/dir --out {W}/g.hh", 1,
     "error: {W}/dir: is a directory; give the path of a selector"),
    ("cutlass-kernel-set-out-under-file", "cutlass kernel-set --out {W}/file/k.txt", 1,
     "error: --out {W}/file/k.txt: {W}/file is not a directory; choose another --out path"),
    ("cutlass-select-model-not-an-object", "cutlass select 128 128 128 --model {W}/list.json", 1,
     "error: {W}/list.json: $.format: 'list' must be 'benchspace-cutlass-selector'"),
    ("cutlass-header-space-latin1", "cutlass header --space {W}/latin1.json --out {W}/g.hh", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("cutlass-space-shapes-deep",
     "cutlass space --shapes {W}/deep.json --out {W}/s.json --kernels-out {W}/k.txt "
     "--build-dir {W}/b", 1,
     "error: {W}/deep.json: $: nested too deeply to be a shape-set file"),
    ("cutlass-space-shapes-not-shapes",
     "cutlass space --shapes {W}/list.json --out {W}/s.json --kernels-out {W}/k.txt "
     "--build-dir {W}/b", 1,
     "error: {W}/list.json: $.format: expected 'benchspace-cutlass-shapes'; is this a shape-set "
     "file?"),
    ("cutlass-space-kernels-out-dir",
     "cutlass space --shapes {W}/list.json --out {W}/s.json --kernels-out {W}/dir", 1,
     "error: --kernels-out {W}/dir: is a directory; give the path of a file"),
    ("cutlass-shapes-gpu-latin1", "cutlass shapes --gpu {W}/latin1.json --out {W}/sh.json", 1,
     "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("cutlass-shapes-gpu-deep", "cutlass shapes --gpu {W}/deep.json --out {W}/sh.json", 1,
     "error: {W}/deep.json: $: nested too deeply to be a hardware descriptor"),
    ("cutlass-build-kernels-latin1", "cutlass build --kernels {W}/latin1.json --build-dir {W}/b",
     2, "error: {W}/latin1.json: byte 15 is not UTF-8; save the file as UTF-8"),
    ("cutlass-build-kernels-dir", "cutlass build --kernels {W}/dir --build-dir {W}/b", 2,
     "error: {W}/dir: cannot read the kernel list (Is a directory)"),
    ("cutlass-shapes-out-dir", "cutlass shapes --out {W}/dir", 1,
     "error: --out {W}/dir: is a directory; give the path of a file"),
]  # fmt: skip


def _writable(folder: Path) -> bool:
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _fill(text: str, work: Path, shared: Path) -> str:
    return (
        text.replace("{W}", str(work))
        .replace("{G}", str(shared))
        .replace("{R}", str(ROOT))
        .replace("{D}", str(DEMO))
        .replace("{S}", DEMO_SPACE)
        .replace("{H}", str(CHECKED_IN))
    )


def _work(tmp_path: Path, install: Callable[..., Path], shared: Path) -> Path:
    work = tmp_path / "w"
    (work / "dir").mkdir(parents=True)
    (work / "dir.png").mkdir()
    for name, content in FILES.items():
        target = work / name
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    shutil.copyfile(CHECKED_IN, work / "h.hh")
    shutil.copyfile(DEMO, work / "p.json")
    os.mkfifo(work / "pipe")  # stands for /dev/null, which a test must never risk replacing
    shutil.copyfile(shared / "review.json", work / "review.json")
    (work / "p_space_dir.json").write_text(_profile(f"space={work / 'dir'}"), encoding="utf-8")
    install(work / "build", "fake_benchmark")
    return work


def test_the_corpus_is_large_and_covers_every_subcommand() -> None:
    commands = {argv.split()[0] for _, argv, _, _ in CASES}
    assert commands == {
        "validate", "tune", "sensitivity", "generate", "review", "port", "ab", "confirm",
        "cutlass",
    }  # fmt: skip
    assert len(CASES) >= 60
    assert len({name for name, *_ in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("argv", "code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input(
    argv: str,
    code: int,
    message: str,
    shared: Path,
    tmp_path: Path,
    installer: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if str(UNWRITABLE) in argv and _writable(UNWRITABLE.parent):
        pytest.skip(f"{UNWRITABLE.parent} is writable here")
    work = _work(tmp_path, installer, shared)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("FAKE_LOG", str(work / "invocations.log"))
    before = _tree(work, shared)
    try:
        result = main(_fill(argv, work, shared).split())
    except SystemExit as exc:  # argparse exits by itself (2) on a bad option value
        result = exc.code
    assert result == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    expected = _fill(message, work, shared)
    if code == 2 and not expected.startswith("error: "):
        assert err.splitlines()[-1] == expected  # argparse: the usage, then the one error line
    else:
        assert err == expected + "\n"
    assert _tree(work, shared) == before


def test_a_plot_without_matplotlib_is_refused_before_the_pruned_space_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    monkeypatch.chdir(ROOT)
    pruned, png = tmp_path / "pruned.json", tmp_path / "p.png"
    argv = ["sensitivity", str(DEMO), "--space", DEMO_SPACE, "--write-pruned", str(pruned)]
    assert main([*argv, "--plot", str(png)]) == 1
    assert capsys.readouterr().err == (
        "error: 'benchspace sensitivity --plot' needs matplotlib, which is not installed: "
        "pip install 'benchspace[plot]'\n"
    )
    assert list(tmp_path.iterdir()) == []
