"""Small limits and broken standard streams end in one line (issue 22, class 8).

Files are read by their size (no 256 MiB buffer up front); file-descriptor, thread and process
exhaustion end in one line and exit 71; standard output or error that cannot be written (a full
device, an I/O error) end in one line on stderr and exit 74; a second stop signal during
shutdown still exits 128 + n; a SIGINT in the first 0.1 s never prints a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import signal
import site
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from benchspace.harness.cli import main

EXIT_RESOURCES = 71  # documented: README, Reliability
EXIT_OUTPUT = 74
ROOT = Path(__file__).resolve().parents[2]
BENCH: dict[str, Any] = {
    "bench": "fake",
    "exe": "fake_benchmark",
    "metric": "avg_ms",
    "arg_spec": ["n", "block"],
    "cases": [{"fixed": {"n": 64}, "tune": {"block": [16, 32]}}],
}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _space(tmp_path: Path) -> Path:
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"spaces": [BENCH]}))
    return space


def _tune(tmp_path: Path, build: Path) -> list[str]:
    return ["tune", "--space", str(_space(tmp_path)), "--build-dir", str(build), "--out",
            str(tmp_path / "out" / "profile.json"), "--quiet"]  # fmt: skip


def test_commands_run_under_a_200_mb_address_space(tmp_path: Path, fake_build: Path) -> None:
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))\n"
        "from benchspace.harness.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    profile = str(tmp_path / "out" / "profile.json")
    export = ["export", profile, "--format", "csv", "--out", str(tmp_path / "p.csv")]
    # tune first: its decisions (the race's t tests) import no scipy, whose OpenBLAS loops for
    # ever on a buffer it cannot map under this limit, and no numpy
    tune = [*_tune(tmp_path, fake_build), "--repeats", "3"]
    for argv in (tune, ["validate", "--space", str(_space(tmp_path))], export):
        proc = subprocess.run([sys.executable, "-c", script, *argv], env=_env(), cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 0 and "rror" not in proc.stderr, (argv[0], proc.stderr)
    assert json.loads(Path(profile).read_text())["results"][0]["best"]


@pytest.mark.parametrize("limit", [8, 9, 10, 11, 12])
def test_too_few_file_descriptors_end_in_one_line(
    tmp_path: Path, fake_build: Path, limit: int
) -> None:
    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "benchspace", *_tune(tmp_path, fake_build)],
        env={**_env(), "BENCHSPACE_TMPDIR": str(scratch)}, cwd=tmp_path, capture_output=True,
        text=True, timeout=120, preexec_fn=low,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert list(scratch.iterdir()) == []  # no scratch directory outlives the command
    if proc.returncode == EXIT_RESOURCES:  # the command itself ran out
        assert proc.stderr.startswith("error: Too many open files: at most "), proc.stderr
        assert "ulimit -n" in proc.stderr
    else:  # the benchmarks' pipes ran out: failed invocations, stored as data
        assert proc.returncode == 1 and "failed invocations" in proc.stderr, proc.stderr


def test_no_thread_left_is_one_line(
    tmp_path: Path,
    fake_build: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert main([*_tune(tmp_path, fake_build), "--jobs", "2"]) == EXIT_RESOURCES
    assert capsys.readouterr().err == (
        "error: can't start new thread: the system's limit of processes or threads is reached; "
        "raise it (ulimit -u) or run fewer jobs\n"
    )


def test_no_process_left_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr("benchspace.harness.cli.validate.run", refuse)
    assert main(["validate", "--space", str(_space(tmp_path))]) == EXIT_RESOURCES
    assert capsys.readouterr().err == (
        "error: Resource temporarily unavailable: the system's limit of processes or threads is "
        "reached; raise it (ulimit -u) or run fewer jobs\n"
    )


def test_standard_output_on_a_full_device_is_one_line(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "benchspace", "validate", "--space", str(_space(tmp_path))]
    with open("/dev/full", "w") as full:
        proc = subprocess.run(argv, env=_env(), stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == EXIT_OUTPUT
    assert proc.stderr == "error: cannot write standard output (No space left on device)\n"
    argv[-1] = str(tmp_path / "missing.json")  # an error to report, on a full stderr
    with open("/dev/full", "w") as full:
        proc = subprocess.run(argv, env=_env(), stdout=subprocess.PIPE, stderr=full, text=True)
    assert (proc.returncode, proc.stdout) == (EXIT_OUTPUT, "")  # nowhere left to say more


class _Broken:
    """A standard output whose device fails (EIO)."""

    def write(self, _: str) -> int:
        raise OSError(errno.EIO, "Input/output error")

    def flush(self) -> None:
        raise OSError(errno.EIO, "Input/output error")


def test_standard_output_with_an_io_error_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    space = _space(tmp_path)
    monkeypatch.setattr(sys, "stdout", _Broken())
    assert main(["validate", "--space", str(space)]) == EXIT_OUTPUT
    assert capsys.readouterr().err == "error: cannot write standard output (Input/output error)\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_second_signal_during_shutdown_still_exits_128_plus_n(
    tmp_path: Path, fake_build: Path, signum: int
) -> None:
    log = tmp_path / "log"
    env = {**_env(), "FAKE_HANG_AT": "32", "FAKE_LOG": str(log)}
    argv = [sys.executable, "-m", "benchspace", *_tune(tmp_path, fake_build), "--timeout", "60"]
    proc = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (log.exists() and "32" in log.read_text()):
        time.sleep(0.02)
    time.sleep(0.2)
    while proc.poll() is None:  # the first signal, then one every millisecond until it exits
        try:
            os.kill(proc.pid, signum)
        except ProcessLookupError:
            break
        time.sleep(0.001)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err


def test_a_sigint_in_the_first_tenth_of_a_second_prints_no_traceback(tmp_path: Path) -> None:
    # Without ``site`` (-S; the packages found through PYTHONPATH): a development checkout's
    # editable install runs a finder from a .pth file before any code of benchspace. What the
    # interpreter does before benchspace's first statement (runpy, encodings: tens of
    # milliseconds on a loaded machine) is outside its reach: a traceback there names no
    # module of benchspace, which is what is checked.
    argv = [sys.executable, "-S", "-m", "benchspace", "validate", "--space", str(_space(tmp_path))]
    env = {**_env(), "PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()])}
    ours = 0
    for step in range(21):
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
        time.sleep(step * 0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        if "Traceback" in err:  # runpy may name the module it was finding: no frame of ours
            assert not re.search(r'File "[^"]*benchspace[^"]*\.py"', err), (step, err)
            continue
        ours += 1
        assert proc.returncode in (0, 130, -signal.SIGINT), (step, err)
    assert ours > 0
