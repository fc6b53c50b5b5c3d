"""The fault matrix's rows for outputs, limits, streams, signals and strings (issue 22): each
fault through the real command line (``python -m benchspace``), its exit code, whether a
traceback was printed and what was left behind (processes, scratch folders, lock or temporary
files beside the outputs). Imported by benchmarks/fault_matrix.py (``--only limits``)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fakes" / "fake_bench.py"


def _bench(name: str, n: int, **over: object) -> dict[str, object]:
    return {"bench": name, "exe": f"{name}_benchmark", "metric": "avg_ms",
            "arg_spec": ["n", "block"],
            "cases": [{"fixed": {"n": n}, "tune": {"block": [16, 32]}}], **over}  # fmt: skip


class Lab:
    """A folder with three fake benchmarks, a space of them, and the command line."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.scratch = root / "scratch"  # the row's own: other sweeps on the machine stay apart
        self.scratch.mkdir(parents=True)
        (root / "build" / "benchmarks").mkdir(parents=True)
        for name in ("one", "two", "three"):
            exe = root / "build" / "benchmarks" / f"{name}_benchmark"
            exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
            exe.chmod(0o755)
        self.space([_bench("one", 64), _bench("two", 99), _bench("three", 128)])

    def space(self, benches: list[dict[str, object]]) -> Path:
        path = self.root / "space.json"
        path.write_text(json.dumps({"spaces": benches}))
        return path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
        return {**env, "PYTHONPATH": str(ROOT), "FAKE_LOG": str(self.root / "log"),
                "BENCHSPACE_TMPDIR": str(self.scratch), **extra}  # fmt: skip

    def tune(self, *extra: str) -> list[str]:
        root = self.root
        return [sys.executable, "-m", "benchspace", "tune", "--space", str(root / "space.json"),
                "--build-dir", str(root / "build"), "--out", str(root / "profile.json"),
                "--timeout", "60", *extra]  # fmt: skip

    def run(self, argv: list[str], limit: Callable[[], None] | None = None,
            **streams: object) -> subprocess.CompletedProcess[str]:  # fmt: skip
        out = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **streams}
        return subprocess.run(argv, env=self.env(), cwd=self.root, text=True, timeout=300,
                              preexec_fn=limit, check=False, **out)  # type: ignore[call-overload]  # fmt: skip

    def leftovers(self) -> str:
        stray = [p.name for p in self.root.rglob("*")  # the store's own lock file stays
                 if (p.name.endswith(".lock") and not p.name.endswith(".sqlite.lock"))
                 or (p.name.startswith(".") and not p.name.startswith(".git"))]  # fmt: skip
        scratch = list(self.scratch.iterdir())
        parts = [f"{len(stray)} stray files"] if stray else []
        return ", ".join(parts + ([f"{len(scratch)} scratch dirs"] if scratch else [])) or "none"


def _row(name: str, status: str, proc: subprocess.CompletedProcess[str] | subprocess.Popen[str],
         err: str, lab: Lab, rerun: str = "n/a") -> list[str]:  # fmt: skip
    said = next((x for x in err.splitlines() if x.startswith("error")), "")[:90]
    traceback = "YES" if "Traceback" in err else "no"
    return [name, "serial", status, said or "-", rerun, str(proc.returncode), traceback,
            lab.leftovers()]  # fmt: skip


def _nofile(n: int) -> Callable[[], None]:
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


def _address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (200_000 << 10, 200_000 << 10))


def limit_rows(base: Path) -> list[list[str]]:
    """One row per fault of outputs, limits, streams, signals and strings."""
    rows = []
    lab = Lab(base / "out-is-exe")
    exe = lab.root / "build" / "benchmarks" / "two_benchmark"
    before = exe.read_bytes()
    proc = lab.run([*lab.tune()[:-4], "--out", str(exe)])
    kept = "unchanged" if exe.read_bytes() == before else "CHANGED"
    rows.append(_row("tune --out names an executable", f"refused, executable {kept}", proc,
                     proc.stderr, lab))  # fmt: skip
    lab = Lab(base / "ports")
    header = lab.root / "h.hh"
    text = "#pragma once\n" + "".join(f"inline constexpr int {c}_ALL = 1;\n" for c in "AB")
    (lab.root / "gen.hh").write_text(text.replace("= 1;", "= 2;"))
    lost, errs = 0, ""
    for _ in range(20):
        header.write_text(text)
        ports = [subprocess.Popen([sys.executable, "-m", "benchspace", "port", "--generated",
                                   str(lab.root / "gen.hh"), "--header", str(header), "--only",
                                   f"{c}_ALL"], env=lab.env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for c in "AB"]  # fmt: skip
        errs += "".join(p.communicate()[1] for p in ports)
        lost += header.read_text() != text.replace("= 1;", "= 2;")
    rows.append(_row("two ports into one header, 20 tries", f"{lost} edits lost", ports[-1],
                     errs, lab))  # fmt: skip
    lab = Lab(base / "as")
    first = lab.run(lab.tune("--quiet"))
    for argv in (["validate", "--space", str(lab.root / "space.json")],
                 ["export", str(lab.root / "profile.json"), "--format", "csv", "--out",
                  str(lab.root / "p.csv")]):  # fmt: skip
        proc = lab.run([sys.executable, "-m", "benchspace", *argv], limit=_address_space)
        rows.append(_row(f"{argv[0]} under ulimit -v 200000", f"first tune exit {first.returncode}",
                         proc, proc.stderr, lab))  # fmt: skip
    proc = lab.run(lab.tune("--quiet", "--rerun", "--repeats", "3"), limit=_address_space)
    rows.append(_row("tune --repeats 3 under ulimit -v 200000", "the sweep's t tests, no SciPy",
                     proc, proc.stderr, lab))  # fmt: skip
    for n in (8, 10, 12):
        lab = Lab(base / f"nofile-{n}")
        proc = lab.run(lab.tune("--quiet"), limit=_nofile(n))
        said = (proc.stderr.strip().splitlines() or [""])[-1][:60]
        rows.append(_row(f"tune under ulimit -n {n}", said, proc, proc.stderr, lab))
    lab = Lab(base / "full")
    validate = [
        sys.executable,
        "-m",
        "benchspace",
        "validate",
        "--space",
        str(lab.root / "space.json"),
    ]
    with open("/dev/full", "w") as full:
        proc = lab.run(validate, stdout=full)
        rows.append(_row("stdout on /dev/full", "-", proc, proc.stderr, lab))
        proc = lab.run([*validate[:-1], str(lab.root / "missing.json")], stderr=full)
        rows.append(_row("stderr on /dev/full (an error to report)", "-", proc, "", lab))
    rows.append(_interrupted_rerun(Lab(base / "rerun")))
    for signum in (signal.SIGTERM, signal.SIGINT):
        rows.append(_second_signal(Lab(base / f"second-{signum}"), signum))
    lab = Lab(base / "nul")
    lab.space([_bench("one", 64, flags=["--x=\0"])])
    proc = lab.run(lab.tune())
    rows.append(_row("NUL in a flag", "refused at load", proc, proc.stderr, lab))
    return rows


def _wait_for(lab: Lab, count: int) -> None:
    log = lab.root / "log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        not log.exists() or log.read_text().count('"99"') < count
    ):
        time.sleep(0.02)
    time.sleep(0.2)


def _interrupted_rerun(lab: Lab) -> list[str]:
    lab.run(lab.tune())
    before = (lab.root / "profile.json").read_bytes()
    proc = subprocess.Popen(lab.tune("--rerun"), env=lab.env(FAKE_HANG_AT="99"), text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _wait_for(lab, 3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    kept = "kept" if (lab.root / "profile.json").read_bytes() == before else "REPLACED"
    again = lab.run(lab.tune())
    said = next((x for x in again.stderr.splitlines() if x.startswith("continuing")), "SILENT")
    return _row("SIGINT in bench 2 of 3 of a --rerun", f"previous profile {kept}", proc,
                err + again.stderr, lab, rerun=said[:70] + "...")  # fmt: skip


def _second_signal(lab: Lab, signum: int) -> list[str]:
    proc = subprocess.Popen(lab.tune(), env=lab.env(FAKE_HANG_AT="99"), text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _wait_for(lab, 1)
    sent = 0
    while proc.poll() is None:
        try:
            os.kill(proc.pid, signum)
        except ProcessLookupError:
            break
        sent += 1
        time.sleep(0.001)
    _, err = proc.communicate(timeout=60)
    name = signal.Signals(signum).name
    return _row(f"{name} every ms until benchspace exits", f"{sent} signals sent", proc, err, lab)
