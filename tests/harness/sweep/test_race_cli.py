"""tune --race / --confirm end to end on a fake with known means and seeded noise."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchspace.harness.store import Store

MEANS = {f"{c},{k}": 100.0 * (c + 1) * (1.0 + (0.015 if k == 1 else 0.2 * k)) for c in range(2)
         for k in range(6)}  # fmt: skip


def _setup(tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]):  # type: ignore[no-untyped-def]
    build = tmp_path / "build"
    installer(build, "noisy", "fake_noisy.py")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"means": MEANS, "sd": 0.01, "seed": 3}))
    space = write_space(
        [
            {
                "bench": "noisy",
                "exe": "noisy",
                "metric": "Time (µs) / matrix",
                "arg_spec": ["c", "k"],
                "cases": [{"fixed": {"c": c}, "tune": {"k": list(range(6))}} for c in range(2)],
            }
        ]
    )
    return build, spec, space


def _argv(space: Path, build: Path, out: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "benchspace.harness.cli", "tune", "--space", str(space),
            "--build-dir", str(build), "--out", str(out), "--quiet", *flags]  # fmt: skip


def _env(spec: Path, state: Path, log: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "FAKE_NOISY_SPEC": str(spec), "FAKE_NOISY_STATE": str(state),
            "FAKE_LOG": str(log), **extra}  # fmt: skip


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_race_decides_and_records(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build, spec, space = _setup(tmp_path, installer, write_space)
    out, log = tmp_path / "race.json", tmp_path / "race.log"
    env = _env(spec, tmp_path / "state", log)
    first = subprocess.run(_argv(space, build, out, "--race", "--repeats", "10"), env=env,
                           check=True, capture_output=True, text=True)  # fmt: skip
    assert _lines(log) < 0.6 * 2 * 6 * 10
    result = json.loads(out.read_text())["results"][0]
    for best in result["per_case_best"]:
        assert best["params"] == {"k": 0}
        assert best["decided"]["decided"] in ("separated", "tie", "cap")
        assert best["decided"]["samples"] == best["n"] >= 2
    assert result["best"]["decided"]["decided"] in ("separated", "tie", "cap")
    # tune says how the winners were decided, as review does.
    said = [line for line in first.stdout.splitlines() if "case winners:" in line]
    counts = re.findall(r"(\d+) (separated|tie|cap)", said[0])
    assert len(said) == 1 and sum(int(n) for n, _ in counts) == 2, first.stdout
    # Every sample is kept: the far configurations have their 2 (--min-repeats), the
    # profile shows them.
    far = [m for m in result["measurements"] if m["params"]["k"] == 5]
    assert [m["n"] for m in far] == [2, 2]
    again = subprocess.run(_argv(space, build, out, "--race", "--repeats", "10"), env=env,
                           check=True, capture_output=True, text=True)  # fmt: skip
    assert "0 invocations run" in again.stdout  # decided cases are not raced again
    assert json.loads(out.read_text())["results"][0]["per_case_best"] == result["per_case_best"]


def test_resumed_race_after_sigkill_takes_no_more(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build, spec, space = _setup(tmp_path, installer, write_space)
    whole_log, whole = tmp_path / "whole.log", tmp_path / "whole.json"
    flags = ("--race", "--repeats", "10")
    subprocess.run(_argv(space, build, whole, *flags),
                   env=_env(spec, tmp_path / "s1", whole_log), check=True)  # fmt: skip
    uninterrupted = _lines(whole_log)

    out, log = tmp_path / "cut.json", tmp_path / "cut.log"
    store_path = tmp_path / "cut.store.sqlite"
    env = _env(spec, tmp_path / "s2", log, FAKE_SLEEP="0.15")
    proc = subprocess.Popen(_argv(space, build, out, *flags), env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if store_path.exists():
            with Store(store_path) as store:
                if store.count() >= 15:
                    break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.6)  # the orphan in flight finishes; its result never reaches the store
    before = _lines(log)
    assert 15 <= before < uninterrupted
    env.pop("FAKE_SLEEP")
    done = subprocess.run(_argv(space, build, out, *flags), env=env, check=True,
                          capture_output=True, text=True)  # fmt: skip
    assert "from the store" in done.stdout and " 0 from the store" not in done.stdout
    assert _lines(log) <= uninterrupted + 1  # ± the one in flight
    cut_best = json.loads(out.read_text())["results"][0]["per_case_best"]
    whole_best = json.loads(whole.read_text())["results"][0]["per_case_best"]
    assert [b["params"] for b in cut_best] == [b["params"] for b in whole_best]
    assert [b["samples"] for b in cut_best] == [b["samples"] for b in whole_best]


def test_confirm_retimes_the_top_and_keeps_selection(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build, spec, space = _setup(tmp_path, installer, write_space)
    out, log = tmp_path / "c.json", tmp_path / "c.log"
    env = _env(spec, tmp_path / "state", log)
    argv = _argv(space, build, out, "--repeats", "3", "--confirm", "2", "--confirm-rounds", "4")
    subprocess.run(argv, env=env, check=True)
    # 2 cases x 6 configs x 3 repeats, then the top 2 per case (the cross-case top 2 are the
    # same configurations) x 4 rounds.
    assert _lines(log) == 36 + 2 * 2 * 4
    result = json.loads(out.read_text())["results"][0]
    for best in result["per_case_best"]:
        assert best["n"] == 4 and best["selection"]["n"] == 3
        assert best["confirmed"] is True and best["params"] == {"k": 0}
    confirmed = [m for m in result["measurements"] if m.get("confirmed")]
    left_out = [m for m in result["measurements"] if m.get("confirmed") is False]
    assert len(confirmed) == 4 and len(left_out) == 8
    assert result["best"]["selection_score"] is not None


def test_raced_confirmation_goes_on_only_where_the_first_rounds_did_not_decide(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    """With --race, the confirmation is raced: case 0's two picks are far apart and its first
    3 rounds separate them; case 1's are 1.5 % apart in 1 % noise and get more rounds, up to
    --confirm-cap, whose verdict (not one look at 3 rounds) the profile records."""
    build, spec, space = _setup(tmp_path, installer, write_space)
    means = {f"{c},{k}": 100.0 * (k + 1) for c in range(2) for k in range(6)}
    means["0,1"] = 150.0
    means["1,0"], means["1,1"] = 200.0, 203.0
    spec.write_text(json.dumps({"means": means, "sd": 0.01, "seed": 5}))
    out, log = tmp_path / "c.json", tmp_path / "c.log"
    flags = ("--race", "--repeats", "6", "--confirm", "2", "--confirm-rounds", "3",
             "--confirm-cap", "24")  # fmt: skip
    subprocess.run(_argv(space, build, out, *flags), env=_env(spec, tmp_path / "s", log),
                   check=True)  # fmt: skip
    result = json.loads(out.read_text())["results"][0]
    best = {b["case_index"]: b for b in result["per_case_best"]}
    assert best[0]["params"] == {"k": 0} and best[0]["decided"]["decided"] == "separated"
    assert best[0]["decided"]["rounds"] == 3 and best[0]["n"] == 3
    assert best[1]["params"] == {"k": 0} and best[1]["decided"]["decided"] == "separated"
    assert 3 < best[1]["decided"]["rounds"] <= 24 and best[1]["n"] == best[1]["decided"]["rounds"]
    with Store(tmp_path / "c.store.sqlite") as store:
        confirm = [m for m in store.attempts() if m.repeat >= 1_000_000]
    by_case = {c: sum(m.case_index == c for m in confirm) for c in (0, 1)}
    assert by_case[0] == 2 * 3 and by_case[1] == 2 * best[1]["decided"]["rounds"]
    again = subprocess.run(_argv(space, build, out, *flags), env=_env(spec, tmp_path / "s", log),
                           check=True, capture_output=True, text=True)  # fmt: skip
    assert "0 invocations run" in again.stdout  # a resumed confirmation replays its race
    assert json.loads(out.read_text())["results"][0]["per_case_best"] == result["per_case_best"]


def test_race_flags_refused_with_a_line(
    tmp_path: Path, installer: Callable[..., Path], write_space: Callable[..., Path]
) -> None:
    build, _, space = _setup(tmp_path, installer, write_space)
    for flags, words in (
        (("--stop", "rse:abc"), "--stop"),
        (("--min-repeats", "4"), "--min-repeats: applies only with --race"),
        (("--confirm-rounds", "4"), "--confirm-rounds"),
        (("--confirm", "2", "--confirm-cap", "9"), "--confirm-cap: applies only with --race"),
    ):
        done = subprocess.run(_argv(space, build, tmp_path / "x.json", *flags),
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode != 0 and words in done.stderr
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "x.json").exists()
