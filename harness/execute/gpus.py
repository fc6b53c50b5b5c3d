"""Which GPUs a sweep spreads over, and when one GPU's worker is taken out of it.

``tune --gpus 0,1`` names GPUs; ``--gpus all`` takes every GPU the process may see: the
entries of ``CUDA_VISIBLE_DEVICES`` when it is set (the user already chose), else every GPU
``nvidia-smi`` lists, by UUID, so that each row's device names one physical GPU. One worker
per GPU runs one process at a time on it (``CUDA_VISIBLE_DEVICES`` set to that GPU alone).

A job that crashes, fails or times out on one GPU runs once more on another: a configuration
that fails on both is its own failure (recorded as such), one that passes there is the first
GPU's failure. The rows of a rerun job are the second run's, saying so in ``extra``
(``retried_after_gpu``, ``first_status``). A GPU with ``RETIRE_AFTER`` such failures in a row
is retired: it gets no more work. The last live GPU is never retired.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence

from benchspace.harness.errors import UsageError

GPU_ID = re.compile(r"[0-9]+|(GPU|MIG)-[0-9A-Za-z/-]+")
RETIRE_AFTER = 3
BAD_STATUSES = frozenset({"crashed", "failed", "timeout"})
SMI_QUERY = ("nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader")


def parse_gpus(text: str, env: Mapping[str, str], list_gpus: Callable[[], str]) -> list[str]:
    """The GPU ids of ``--gpus TEXT``: a comma list of ids, or ``all``; UsageError otherwise.

    `list_gpus` returns ``nvidia-smi``'s UUID listing (one per line); it is called only for
    ``all`` with ``CUDA_VISIBLE_DEVICES`` unset.
    """
    if text.strip() == "all":
        visible = env.get("CUDA_VISIBLE_DEVICES")
        if visible is not None and visible.strip():
            return _checked(
                [g.strip() for g in visible.split(",") if g.strip()], "CUDA_VISIBLE_DEVICES"
            )
        gpus = [line.strip() for line in list_gpus().splitlines() if line.strip()]
        if not gpus:
            raise UsageError(
                "--gpus all: no GPU found (nvidia-smi lists none and CUDA_VISIBLE_DEVICES is "
                "unset); name the GPUs, e.g. --gpus 0,1"
            )
        return _checked(gpus, "nvidia-smi")
    return _checked([g.strip() for g in text.split(",") if g.strip()], "--gpus")


def _checked(gpus: list[str], where: str) -> list[str]:
    bad = [g for g in gpus if not GPU_ID.fullmatch(g)]
    if bad:
        raise UsageError(
            f"{where}: {bad[0]!r} is not a GPU id; write indices such as 0,1 (or GPU-/MIG- UUIDs)"
        )
    dupes = sorted({g for g in gpus if gpus.count(g) > 1})
    if dupes:
        raise UsageError(f"{where}: GPU {dupes[0]} is named twice; name each GPU once")
    return gpus


def nvidia_smi_uuids() -> str:
    """``nvidia-smi``'s GPU UUIDs, one a line; empty where it is missing or fails."""
    try:
        proc = subprocess.run(SMI_QUERY, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


class GpuPool:
    """The free GPUs of a sweep and their health; thread-safe.

    A worker takes a free GPU, runs one job there and gives it back. A job that fails on a GPU
    runs once more on another (``take_other``), the first GPU held out of the pool meanwhile;
    if it passes there, the failure counts against the first GPU, which is retired after
    ``retire_after`` such failures in a row. A job that fails on both is the configuration's
    failure: it counts against no GPU. The last live GPU is never retired.
    """

    def __init__(self, gpus: Sequence[str], retire_after: int = RETIRE_AFTER) -> None:
        self.gpus = list(gpus)
        self.retire_after = retire_after
        self.retired: list[str] = []
        self._streak: dict[str, int] = {}
        self._free = list(self.gpus)
        self._suspects: set[str] = set()
        self._cond = threading.Condition()

    def live(self) -> list[str]:
        """The GPUs still given work."""
        with self._cond:
            return [g for g in self.gpus if g not in self.retired]

    def take(self) -> str:
        """A free live GPU, waiting for one. A job waiting to be retried on another GPU
        (`take_other`) goes first: a new job never takes the GPU it could have, so a failing
        GPU's retries are not starved by fresh work (and the GPU retired in time)."""
        with self._cond:
            while True:
                if not self._retry_could_take():
                    for gpu in self._free:
                        if gpu not in self.retired:
                            self._free.remove(gpu)
                            return gpu
                self._cond.wait()

    def _retry_could_take(self) -> bool:
        """Whether a free live GPU is one a waiting retry may take (not its own suspect)."""
        return any(
            gpu not in self.retired and any(gpu != s for s in self._suspects) for gpu in self._free
        )

    def take_other(self, suspect: str) -> str | None:
        """A free live GPU other than `suspect`, which stays out of the pool meanwhile (held
        by the caller, who gives it back); None when every other live GPU is suspect too (a
        configuration failing everywhere at once), so no two workers wait on each other."""
        with self._cond:
            self._suspects.add(suspect)
            self._cond.notify_all()
            try:
                while True:
                    for gpu in self._free:
                        if gpu != suspect and gpu not in self.retired:
                            self._free.remove(gpu)
                            return gpu
                    others = [g for g in self.gpus if g != suspect and g not in self.retired]
                    if all(g in self._suspects for g in others):
                        return None
                    self._cond.wait()
            finally:
                self._suspects.discard(suspect)
                self._cond.notify_all()  # new work may take free GPUs again

    def give(self, gpu: str) -> None:
        """`gpu` is free again (a retired one is dropped)."""
        with self._cond:
            if gpu not in self.retired:
                self._free.append(gpu)
            self._cond.notify_all()

    def passed(self, gpu: str) -> None:
        """A job ran to the end on `gpu`: its failure streak ends."""
        with self._cond:
            self._streak[gpu] = 0

    def failed_alone(self, gpu: str) -> bool:
        """A job failed on `gpu` and passed elsewhere; True when this retires `gpu`."""
        with self._cond:
            self._streak[gpu] = self._streak.get(gpu, 0) + 1
            live = [g for g in self.gpus if g not in self.retired]
            if self._streak[gpu] >= self.retire_after and gpu in live and len(live) > 1:
                self.retired.append(gpu)
                if gpu in self._free:
                    self._free.remove(gpu)
                self._cond.notify_all()
                return True
            return False


def all_bad(statuses: Sequence[str]) -> bool:
    """Every configuration of a job crashed, failed or timed out."""
    return bool(statuses) and all(s in BAD_STATUSES for s in statuses)
