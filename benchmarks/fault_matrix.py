#!/usr/bin/env python3
"""The fault matrix (not a test): every way a benchmark can misbehave, through ``benchspace tune``.

Each fault is injected by the fake benchmark (``tests/fakes/fake_bench.py``) at one
configuration (``block == 16``) of a four-configuration sweep that reads CSV from stdout, and
swept serially and with ``--jobs 2`` through the real command line (a subprocess). A second
``tune`` on the same store shows what a re-run does (with the fault still there, except where
the fault is a state that passes: the executable back, the rebuild done). More rows: stop
signals sent to benchspace during a hang, two sweeps on one store, a foreign ``--store``.

Columns: what the store recorded, whether the sweep completed (exit 0/1, a profile, every
configuration attempted), the re-run, the exit code, whether a traceback was printed, and
whether any process the benchmark started (or a scratch directory) outlived the sweep.

Usage: ``python benchmarks/fault_matrix.py [--only FAULT ...]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchspace.harness.profiles.read import load_profile

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fakes" / "fake_bench.py"
BLOCKS = [8, 16, 24, 32]
FAULTS = [
    ("crash (SIGSEGV)", "crash"), ("abort", "abort"), ("real-time signal", "rtsig"),
    ("hang (timeout)", "hang"), ("SIGTERM-ignoring hang", "termhang"), ("exit 1", "exit1"),
    ("garbage", "garbage"), ("\\r in output", "cr"), ("200 KiB field", "bigfield"),
    ("no row", "norow"), ("two rows", "rows"), ("partial output", "partial"),
    ("forking child", "fork"), ("setsid grandchild", "setsid"), ("closed stdout", "closed"),
    ("output flood (200 MB)", "flood"), ("replaced mid-sweep", "replace"),
    ("removed for 0.2 s", "vanish"), ("time of 0", "zero"), ("negative time", "negative"),
]  # fmt: skip
PASSING_STATES = {"replace", "vanish"}  # re-run once the state has passed


@dataclass
class Run:
    code: int
    stderr: str
    pid: int


@dataclass
class Lab:
    """One sweep's directory: build tree with the fake, space, profile, store, logs."""

    root: Path

    @property
    def exe(self) -> Path:
        return self.root / "build" / "benchmarks" / "fault_benchmark"

    @property
    def store(self) -> Path:
        return self.root / "profile.store.sqlite"

    @property
    def scratch(self) -> Path:
        """The sweep's scratch root (BENCHSPACE_TMPDIR): other sweeps on the machine apart."""
        return self.root / "scratch"

    def setup(self) -> None:
        self.exe.parent.mkdir(parents=True)
        self.scratch.mkdir()
        self.exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
        self.exe.chmod(0o755)
        bench = {
            "bench": "fault", "exe": "fault_benchmark", "reader": "csv",
            "metric": "Time (µs) / matrix", "arg_spec": ["n", "block"],
            "cases": [{"fixed": {"n": 64}, "tune": {"block": BLOCKS}}],
        }  # fmt: skip
        (self.root / "space.json").write_text(json.dumps({"spaces": [bench]}))

    def argv(self, jobs: int, timeout: float, store: Path | None = None) -> list[str]:
        return [
            sys.executable, "-m", "benchspace.harness.cli", "tune",
            "--space", str(self.root / "space.json"),
            "--build-dir", str(self.root / "build"), "--out", str(self.root / "profile.json"),
            "--store", str(store or self.store), "--timeout", f"{timeout:g}",
            "--jobs", str(jobs),
        ]  # fmt: skip

    def env(self, fault: str | None, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
        env.update(FAKE_EXE=str(self.exe), FAKE_PIDS=str(self.root / "pids"),
                   FAKE_LOG=str(self.root / "log"), PYTHONPATH=str(ROOT),
                   BENCHSPACE_TMPDIR=str(self.scratch), **extra)  # fmt: skip
        if fault:
            env[f"FAKE_{fault.upper()}_AT"] = "16"
        return env

    def start(self, jobs: int, fault: str | None, timeout: float = 3.0, **extra: str) -> Run:
        proc = subprocess.Popen(
            self.argv(jobs, timeout), env=self.env(fault, **extra), cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        _, err = proc.communicate()
        return Run(code=proc.returncode, stderr=err, pid=proc.pid)

    def rows(self) -> list[tuple[int, str, str, str, float | None]]:
        """(block, status, error, exe sha, value) of every stored attempt."""
        if not self.store.exists():
            return []
        db = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True)
        try:
            got = db.execute("SELECT params, status, error, exe_sha256, value FROM attempts")
            out = [(json.loads(p)["block"], s, e, h, v) for p, s, e, h, v in got]
        finally:
            db.close()
        return out

    def runs(self) -> int:
        log = self.root / "log"
        return len(log.read_text().splitlines()) if log.exists() else 0

    def leftovers(self) -> str:
        """Processes the fakes started that are still alive, and scratch directories left."""
        alive = []
        pids = self.root / "pids"
        for line in pids.read_text().split() if pids.exists() else []:
            try:
                with open(f"/proc/{line}/stat", encoding="ascii") as fh:
                    state = fh.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(line)
                os.kill(int(line), signal.SIGKILL)
        scratch = list(self.scratch.iterdir())
        parts = [f"{len(alive)} processes"] if alive else []
        parts += [f"{len(scratch)} scratch dirs"] if scratch else []
        return ", ".join(parts) or "none"


def _status(rows: Sequence[tuple[int, str, str, str, float | None]], exe: str) -> str:
    bad = [(b, s, e) for b, s, e, _, _ in rows if s != "ok"]
    shas = sorted({h[:8] for _, _, _, h, _ in rows})
    note = f" [{len(shas)} exe shas]" if len(shas) > 1 else ""
    if not bad:
        return f"all ok{note}"
    first = bad[0][2].replace(exe, "EXE").split("; ")[0]
    first = first.split("): ", 1)[-1][:80]
    blocks = ",".join(str(b) for b, _, _ in bad)
    kinds = sorted({s for _, s, _ in bad})
    return f"{'/'.join(kinds)} @{blocks}: {first}{note}"


def _completed(lab: Lab, run: Run) -> str:
    attempted = {b for b, *_ in lab.rows()}
    ok = run.code in (0, 1) and (lab.root / "profile.json").exists() and attempted >= set(BLOCKS)
    return "yes" if ok else "no"


def _restorer(lab: Lab, stop: threading.Event) -> None:
    """Put a vanished executable back 0.2 s after it went."""
    away = Path(str(lab.exe) + ".away")
    while not stop.is_set():
        if away.exists():
            time.sleep(0.2)
            os.replace(away, lab.exe)
        time.sleep(0.01)


def fault_row(name: str, fault: str, jobs: int, base: Path) -> list[str]:
    lab = Lab(base / f"{fault}-{jobs}")
    lab.setup()
    stop = threading.Event()
    keeper = threading.Thread(target=_restorer, args=(lab, stop), daemon=True)
    keeper.start()
    old_exe = lab.exe.read_bytes()
    try:
        first = lab.start(jobs, fault)
        status = _status(lab.rows(), str(lab.exe))
        warned = "changed during the sweep" in first.stderr
        if fault == "replace":
            status += f"; warning {'printed' if warned else 'MISSING'}"
        completed = _completed(lab, first)
        leftovers = lab.leftovers()
        while Path(str(lab.exe) + ".away").exists():
            time.sleep(0.05)  # the rebuild is over: the executable is back
        before = lab.runs()
        again = lab.start(jobs, None if fault in PASSING_STATES else fault)
        rerun = f"ran {lab.runs() - before}, exit {again.code}"
        errors = first.stderr + again.stderr
        if fault == "replace":
            lab.exe.write_bytes(old_exe)  # the old binary back
            before, n_rows = lab.runs(), len(lab.rows())
            third = lab.start(jobs, None)
            errors += third.stderr
            profile = load_profile(lab.root / "profile.json")
            values = [m.value for r in profile.results.values() for m in r.measurements]
            halved = any(v is not None and v < 64 for v in values)
            rerun += (
                f"; old binary back: ran {lab.runs() - before}, "
                f"{len(lab.rows()) - n_rows} rows added, new binary's numbers served: "
                f"{'YES' if halved else 'no'}"
            )
    finally:
        stop.set()
    traceback = "YES" if "Traceback" in errors else "no"
    mode = "serial" if jobs == 1 else f"--jobs {jobs}"
    return [name, mode, status, completed, rerun, str(first.code), traceback, leftovers]


def signal_row(name: str, signum: int, fault: str, jobs: int, base: Path) -> list[str]:
    """Send ``signum`` to benchspace (its pid only) while a benchmark hangs."""
    lab = Lab(base / f"sig{signum}-{fault}-{jobs}")
    lab.setup()
    env = lab.env(fault)
    if fault == "setsid":
        env.update(FAKE_HANG_AT="24")  # a grandchild escapes, then the next one hangs
    proc = subprocess.Popen(lab.argv(jobs, 60), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 20
    hang = "24" if fault == "setsid" else "16"
    while time.monotonic() < deadline:
        log = lab.root / "log"
        if log.exists() and any(json.loads(x)[-1] == hang for x in log.read_text().splitlines()):
            break
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(proc.pid, signum)
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    leftovers = lab.leftovers()
    last = err.strip().splitlines()[-1] if err.strip() else ""
    kept = len(lab.rows())
    before = lab.runs()
    again = lab.start(jobs, None)
    rerun = f"fault removed: ran {lab.runs() - before}, exit {again.code}"
    traceback = "YES" if "Traceback" in err + again.stderr else "no"
    mode = "serial" if jobs == 1 else f"--jobs {jobs}"
    status = f"{kept} rows kept; said {last[:40]!r}"
    return [name, mode, status, "stopped", rerun, str(proc.returncode), traceback, leftovers]


def store_rows(base: Path) -> list[list[str]]:
    """Two sweeps on one store; a foreign SQLite file as --store."""
    lab = Lab(base / "two-sweeps")
    lab.setup()
    env = lab.env(None, FAKE_MODE="slow", FAKE_SLEEP="0.3")
    first = subprocess.Popen(lab.argv(1, 10), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(0.6)
    second = subprocess.run(lab.argv(1, 10), env=env, cwd=ROOT, capture_output=True, text=True)
    first.communicate()
    waited = "waiting for PID" in second.stderr
    rows = [[
        "two sweeps, one store", "serial", f"{len(lab.rows())} rows (4 configurations)",
        "yes", f"second waited: {'yes' if waited else 'no'}, then ran {lab.runs() - 4}",
        str(second.returncode), "YES" if "Traceback" in second.stderr else "no",
        lab.leftovers(),
    ]]  # fmt: skip
    foreign = base / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    digest = hashlib.sha256(foreign.read_bytes()).hexdigest()
    run = subprocess.run(lab.argv(1, 10, store=foreign), env=lab.env(None), cwd=ROOT,
                         capture_output=True, text=True)  # fmt: skip
    same = hashlib.sha256(foreign.read_bytes()).hexdigest() == digest
    said = run.stderr.strip().splitlines()[-1][:90] if run.stderr.strip() else ""
    rows.append([
        "foreign SQLite --store", "serial", f"refused, file {'unchanged' if same else 'CHANGED'}",
        "n/a", said, str(run.returncode), "YES" if "Traceback" in run.stderr else "no",
        lab.leftovers(),
    ])  # fmt: skip
    return rows


def _space(lab: Lab, cases: list[int], **over: object) -> None:
    bench = {
        "bench": "fault", "exe": "fault_benchmark", "reader": "csv",
        "metric": "Time (µs) / matrix", "arg_spec": ["n", "block"],
        "cases": [{"fixed": {"n": n}, "tune": {"block": [8, 16]}} for n in cases], **over,
    }  # fmt: skip
    (lab.root / "space.json").write_text(json.dumps({"spaces": [bench]}))


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def input_rows(base: Path) -> list[list[str]]:
    """A space or store changed between two sweeps: what the second sweep does."""
    edits = [
        ("cases swapped in the space", lambda lab: _space(lab, [256, 64]), ()),
        ("a case removed from the space", lambda lab: _space(lab, [256]), ()),
        ("metric changed", lambda lab: _space(lab, [64, 256], metric="avg_ms"), ()),
        ("store from another host", lambda lab: _sql(lab.store, "UPDATE attempts SET host='x'"),
         ()),
        ("another host, --allow-other-host",
         lambda lab: _sql(lab.store, "UPDATE attempts SET host='x'"), ("--allow-other-host",)),
        ("non-JSON params in the store",
         lambda lab: _sql(lab.store, "UPDATE attempts SET params='{' WHERE id=2"), ()),
        ("unknown status in the store",
         lambda lab: _sql(lab.store, "UPDATE attempts SET status='great' WHERE id=3"), ()),
        ("foreign trigger in the store", lambda lab: _sql(
            lab.store, "CREATE TRIGGER t BEFORE INSERT ON attempts BEGIN SELECT RAISE(ABORT, "
            "'no'); END"), ()),
    ]  # fmt: skip
    rows = []
    for index, (name, edit, extra) in enumerate(edits):
        lab = Lab(base / f"input-{index}")
        lab.setup()
        _space(lab, [64, 256])
        first = subprocess.run(lab.argv(1, 10), env=lab.env(None), cwd=ROOT, capture_output=True,
                               text=True)  # fmt: skip
        before = lab.runs()
        edit(lab)
        run = subprocess.run([*lab.argv(1, 10), *extra], env=lab.env(None), cwd=ROOT,
                             capture_output=True, text=True)  # fmt: skip
        lines = [x for x in run.stderr.strip().splitlines() if x]
        said = lines[-1][:110] if lines else ""
        shown = profile_cases(lab) if run.returncode == 0 else "no profile change"
        rows.append([
            name, "serial", f"first exit {first.returncode}, then ran {lab.runs() - before}",
            shown, said, str(run.returncode), "YES" if "Traceback" in run.stderr else "no",
            lab.leftovers(),
        ])  # fmt: skip
    return rows


def profile_cases(lab: Lab) -> str:
    """Per case of the profile, the n its argv names (a misfiled value shows a wrong n)."""
    data = json.loads((lab.root / "profile.json").read_text())
    got = sorted({(m["case_index"], m["argv"][-2]) for m in data["results"][0]["measurements"]})
    return ", ".join(f"case {c}: n={n}" for c, n in got)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        help="fault keys (crash, rtsig ..., signals, store, inputs, limits)",
    )
    args = parser.parse_args(argv)
    header = ["fault", "mode", "status recorded", "completed", "re-run", "exit", "traceback",
              "leftovers"]  # fmt: skip
    table = []
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as tmp:
        base = Path(tmp)
        for name, fault in FAULTS:
            if args.only and fault not in args.only:
                continue
            for jobs in (1, 2):
                table.append(fault_row(name, fault, jobs, base))
                print(" | ".join(table[-1]), file=sys.stderr, flush=True)
        if not args.only or "signals" in args.only:
            for signum, fault in ((signal.SIGTERM, "hang"), (signal.SIGHUP, "hang"),
                                  (signal.SIGTERM, "termhang"), (signal.SIGINT, "hang"),
                                  (signal.SIGTERM, "setsid")):  # fmt: skip
                name = f"{signal.Signals(signum).name} to benchspace during {fault}"
                for jobs in (1, 2):
                    table.append(signal_row(name, signum, fault, jobs, base))
                    print(" | ".join(table[-1]), file=sys.stderr, flush=True)
        if not args.only or "store" in args.only:
            table.extend(store_rows(base))
        if not args.only or "inputs" in args.only:
            table.extend(input_rows(base))
        if not args.only or "limits" in args.only:
            from fault_limits import limit_rows  # benchmarks/ is first on sys.path

            for row in limit_rows(base):
                table.append(row)
                print(" | ".join(row), file=sys.stderr, flush=True)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in table:
        print("| " + " | ".join(cell.replace("|", "/") for cell in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
