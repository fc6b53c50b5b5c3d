"""Provenance of a sweep: where, on what, from which sources. Gathered once, at the edge."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

from benchspace.harness import __version__


def _run(argv: list[str], cwd: Path | None = None) -> str | None:
    try:
        proc = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_info() -> tuple[str | None, str | None]:
    """(GPU names, driver version) from nvidia-smi, or (None, None) where there is none."""
    if shutil.which("nvidia-smi") is None:
        return None, None
    out = _run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    if not out:
        return None, None
    rows = [line.split(",") for line in out.splitlines() if line.strip()]
    names = sorted({r[0].strip() for r in rows})
    drivers = sorted({r[1].strip() for r in rows if len(r) > 1})
    return ", ".join(names), ", ".join(drivers) or None


def git_state(path: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git work tree holding ``path``, if any."""
    where = path if path.is_dir() else path.parent
    commit = _run(["git", "rev-parse", "HEAD"], cwd=where)
    if commit is None:
        return None, None
    status = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where)
    return commit, bool(status)


def collect(space_path: Path, command: list[str]) -> dict[str, Any]:
    """Everything that identifies a sweep's circumstances, except per-executable hashes."""
    commit, dirty = git_state(space_path.resolve())
    gpu, driver = gpu_info()
    return {
        "benchspace_version": __version__,
        "command": command,
        "git_commit": commit,
        "git_dirty": dirty,
        "host": platform.node(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "gpu": gpu,
        "driver": driver,
    }
