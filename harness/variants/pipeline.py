"""The variants of one bench: looked up in the store, built ahead of measurement, J at a time.

`Variants.stream` yields the variants in the order asked, each once it is ready, while up to
``2 x jobs`` later ones are building or built and waiting (a bounded queue: builds run ahead
of measurement, never without limit). A variant whose last build row says ``built`` and whose
executable still has that row's sha256 is reused; a recorded failure is reused too (it is
data); ``rebuild`` builds everything again.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchspace.harness.execute.exe_identity import current_sha256
from benchspace.harness.spaces.model import Bench
from benchspace.harness.store import Store
from benchspace.harness.variants.build import build_variant, sweep_stale, variant_folder
from benchspace.harness.variants.gate import Gate, Isolation
from benchspace.harness.variants.identity import compiler_identity, input_hashes
from benchspace.harness.variants.spec import (
    BuildAttempt,
    CompileValues,
    build_limit,
    variant_key,
)


@dataclass(frozen=True, kw_only=True)
class BuildSettings:
    """How a sweep builds variants."""

    jobs: int = 1
    isolation: Isolation = "pause"
    """How a CPU bench's timed runs are kept apart from compiles (see ``gate``)."""
    run_cpus: tuple[int, ...] = ()
    """Cores timed runs are pinned to under ``pin``."""
    build_cpus: tuple[int, ...] = ()
    """Cores builds are pinned to under ``pin``; empty: not pinned."""
    rebuild: bool = False


class Variants:
    """Keys, cache lookups and builds of one bench's variants."""

    def __init__(
        self,
        bench: Bench,
        store: Store,
        *,
        root: Path,
        source_dir: Path,
        build_dir: Path,
        settings: BuildSettings,
        gate: Gate | None = None,
        where: str = "",
        note: Callable[[str], None] = lambda _: None,
    ) -> None:
        assert bench.build is not None
        self.bench = bench
        self.store = store
        self.root = root / bench.name
        self.source_dir = source_dir
        self.build_dir = build_dir
        self.settings = settings
        self.gate = gate
        self.note = note
        self.built = 0
        self.reused = 0
        self.compiler = compiler_identity(bench.build.command[0])
        self.inputs = input_hashes(bench.build.inputs, source_dir, where=where or bench.name)
        self._lock = threading.Lock()
        firsts = [a.seconds for a in store.builds(bench=bench.name) if a.ok]
        self._first: float | None = firsts[0] if firsts else None
        sweep_stale(self.root)

    def key(self, values: CompileValues) -> str:
        """The variant's key (values, command, compiler, inputs)."""
        return variant_key(self.bench, values, compiler=self.compiler, inputs=self.inputs)

    def exe_of(self, attempt: BuildAttempt) -> Path:
        """The executable a ``built`` attempt produced."""
        return Path(attempt.path) / Path(self.bench.exe).name

    def cached(self, key: str) -> BuildAttempt | None:
        """The recorded attempt to reuse for this key, if any (see the module docstring)."""
        if self.settings.rebuild:
            return None
        rows = self.store.builds(key=key)
        if not rows:
            return None
        last = rows[-1]
        if not last.ok:
            return last
        exe = self.exe_of(last)
        if Path(last.path) != variant_folder(self.root, key) or not exe.is_file():
            return None
        return last if current_sha256(exe) == last.artefact_sha256 else None

    def limit(self) -> float:
        """Seconds a build may take now (10x the first build unless the space says)."""
        assert self.bench.build is not None
        with self._lock:
            return build_limit(self.bench.build.timeout_s, self._first)

    def build(self, values: CompileValues, key: str) -> BuildAttempt:
        """Build one variant now (in the calling thread)."""
        attempt = build_variant(
            self.bench,
            values,
            key=key,
            root=self.root,
            source_dir=self.source_dir,
            build_dir=self.build_dir,
            limit=self.limit,
            compiler=self.compiler,
            cpus=self.settings.build_cpus if self.settings.isolation == "pin" else (),
            gate=self.gate,
        )
        with self._lock:
            if attempt.ok and self._first is None:
                self._first = attempt.seconds
        return attempt

    def stream(
        self, wanted: Iterable[CompileValues]
    ) -> Iterator[tuple[CompileValues, BuildAttempt]]:
        """Every wanted variant, in order, built (or found) ahead of the consumer."""
        todo = iter(wanted)
        bound = 2 * self.settings.jobs
        pending: deque[tuple[CompileValues, BuildAttempt | Future[BuildAttempt]]] = deque()
        pool = ThreadPoolExecutor(max_workers=self.settings.jobs, thread_name_prefix="build")

        def fill() -> None:
            while sum(isinstance(item, Future) for _, item in pending) < bound:
                values = next(todo, None)
                if values is None:
                    return
                key = self.key(values)
                hit = self.cached(key)
                pending.append(
                    (values, hit if hit is not None else pool.submit(self.build, values, key))
                )

        try:
            fill()
            while pending:
                values, item = pending.popleft()
                if isinstance(item, Future):
                    attempt = item.result()
                    self.store.add_build(attempt)
                    self.built += 1
                    if not attempt.ok:
                        last = attempt.log_tail.splitlines()[-1:] or [""]
                        self.note(
                            f"{attempt.status}: {self.bench.name} {_label(values)}: {last[0]}"
                        )
                else:
                    attempt = item
                    self.reused += 1
                fill()  # the next builds start before this variant is measured
                yield values, attempt
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _label(values: Sequence[tuple[str, object]]) -> str:
    return " ".join(f"{n}={v}" for n, v in values)
