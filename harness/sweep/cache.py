"""Measuring through the store: finished attempts are reused, new ones stored as they end."""

from __future__ import annotations

import gc
import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice

from benchspace.harness.execute.batch import make_batches, stream_batches
from benchspace.harness.execute.exe_identity import take_changes
from benchspace.harness.execute.executor import Executor, Job
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.execute.metric_check import stored_problem
from benchspace.harness.execute.process import current_binary
from benchspace.harness.execute.progress import Progress
from benchspace.harness.execute.readers import time_unit_of
from benchspace.harness.measurement import Measurement
from benchspace.harness.spaces.model import Bench
from benchspace.harness.store import Store


@dataclass(frozen=True, kw_only=True)
class Batching:
    """How a bench's configurations share processes (see harness/execute/batch.py)."""

    param: str
    size: int
    position: int


def batching_of(bench: Bench) -> Batching | None:
    """The bench's batching, if its space asks for it."""
    spec = bench.batch
    if spec is None:
        return None
    items = list(bench.arg_spec)
    index = next(i for i, item in enumerate(items) if item.is_param and item.text == spec.param)
    return Batching(param=spec.param, size=spec.size, position=index - len(items))


@contextmanager
def few_collections() -> Iterator[None]:
    """Run a sweep with the cyclic collector far less eager (gen-0 threshold 100,000, not
    700): a sweep allocates millions of long-lived records, and the default thresholds make
    its collections cost more per configuration the larger the sweep (10^6 configurations:
    123 s of CPU instead of 93 s)."""
    before = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*before)


FREEZE_EVERY = 20_000
"""Measurements recorded between two ``gc.freeze()`` calls."""


PREFETCH = 1024
"""Planned invocations looked up in the store with one query."""

Sink = Callable[[int, Measurement], None]
"""Told each answer as it comes: the invocation's position in the plan, and its attempt."""

Found = dict[str, dict[str, tuple[int, Measurement]]]
"""Per bench, per cache key: the store's latest attempt and its row id."""


class KeySet:
    """Cache keys held as their 8-byte hashes: a sorted array, and a set of the latest merged
    into it when it has grown by a quarter (a call of 10^6 invocations remembers the keys it
    answered in 8 MB, where a set of them took 60). Two keys of one hash count as one."""

    def __init__(self) -> None:
        self._sorted = array("q")
        self._recent: set[int] = set()

    def add(self, key: str) -> None:
        """Remember a key."""
        self._recent.add(hash(key))
        if len(self._recent) >= max(MERGE_AT, len(self._sorted) // 4):
            self._sorted = array("q", heapq.merge(self._sorted, sorted(self._recent)))
            self._recent.clear()

    def __contains__(self, key: str) -> bool:
        h = hash(key)
        if h in self._recent:
            return True
        i = bisect_left(self._sorted, h)
        return i < len(self._sorted) and self._sorted[i] == h


MERGE_AT = 1 << 16
"""The fewest new keys a `KeySet` merges into its array at once."""


class Sweep:
    """Runs tasks through the store's cache and an executor, reporting progress."""

    def __init__(
        self,
        store: Store,
        executor: Executor,
        progress: Progress,
        *,
        rerun: bool,
        host: str | None = None,
        allow_other_host: bool = False,
        offline: bool = False,
    ) -> None:
        self.store = store
        self.offline = offline
        """Invocations keep the executable hash they were built with (``tune --from-store``:
        the executable here, if any, is not the one measured)."""
        self.host = None if allow_other_host else host
        """Stored attempts of another host are measured again (None: any host serves)."""
        self.other_hosts: dict[str, int] = {}
        self.executor = executor
        self.progress = progress
        self.rerun = rerun
        self.executed = 0
        self.cached = 0
        """Invocations answered by attempts the store held before this sweep."""
        self.duplicates = 0
        """Invocations answered by an attempt of this same sweep (a configuration asked again:
        a pre-tune winner the main sweep measures too, an argv two configurations share)."""
        self.builds_done = 0
        self.builds_reused = 0
        self.exe_changes: list[dict[str, str]] = []
        self._since = store.last_id()
        """Attempts stored with a larger row id were made by this sweep."""
        self._unfrozen = 0

    def _planned(self, invocations: Iterable[Invocation]) -> Iterator[tuple[Invocation, Found]]:
        """The invocations under their executables' current hashes, each with the store's
        attempts for its slice of the plan (one query per slice and bench, not one per key;
        nothing with ``rerun``)."""
        source = iter(invocations)
        current = (lambda inv: inv) if self.offline else current_binary
        while chunk := [current(planned) for planned in islice(source, PREFETCH)]:
            found: Found = {}
            if not self.rerun:
                keys: dict[str, list[str]] = {}
                for inv in chunk:
                    keys.setdefault(inv.bench, []).append(inv.cache_key)
                found = {bench: self.store.latest_of(bench, ks) for bench, ks in keys.items()}
            for inv in chunk:
                yield inv, found

    def _hit(self, inv: Invocation, found: Found) -> tuple[Measurement | None, bool]:
        """The store's latest attempt under the invocation's cache key, if it serves; and
        whether this sweep made it."""
        entry = found.get(inv.bench, {}).get(inv.cache_key)
        if entry is None:
            return None, False
        row_id, hit = entry
        if self.host is not None and hit.host and hit.host != self.host:
            self.other_hosts[hit.host] = self.other_hosts.get(hit.host, 0) + 1
            return None, False
        if hit.status == "timeout" and inv.timeout_s > hit.duration_s:
            return None, False  # the timeout decided it, and this one is longer
        unit = time_unit_of(inv.reader)
        if problem := stored_problem(hit, metric=inv.metric, unit=unit):
            # A stored value goes through the checks a fresh one does: measured again.
            self.progress.note(
                f"measuring again: {inv.bench} case {inv.case_index} {dict(inv.params)}: the "
                f"store's {problem}"
            )
            return None, False
        return hit, row_id > self._since

    def host_notes(self) -> list[str]:
        """One line per other host whose stored attempts were measured again (since the last
        call)."""
        notes = []
        for host, n in sorted(self.other_hosts.items()):
            notes.append(
                f"note: {self.store.path}: {n} stored measurements were made on host {host}, "
                "not this one: measuring again (--allow-other-host reuses them)"
            )
        self.other_hosts.clear()
        return notes

    def _record(self, ms: list[Measurement]) -> None:
        self.store.add_many(ms)
        self._unfrozen += len(ms)
        if self._unfrozen >= FREEZE_EVERY:
            # What a sweep keeps (results, rows) lives until it ends and holds no cycles
            # worth collecting; left to the cyclic collector, its full passes rescan all of
            # it again and again, which made a 10^6-configuration sweep grow faster than
            # linearly. Frozen objects are skipped by later collections.
            gc.freeze()
            self._unfrozen = 0

    def _ran(self, m: Measurement) -> None:
        for change in take_changes():
            self.progress.note(change.line())
            self.exe_changes.append(change.as_dict())
        self.executed += 1
        self.progress.set_label(f"{m.bench} case {m.case_index}")
        if not m.ok:
            self.progress.note(
                f"{m.status}: {m.bench} case {m.case_index} {dict(m.params)}: {m.error}"
            )
        self.progress.advance(m)

    def _served(self, hit: Measurement, fresh: bool) -> None:
        if fresh:
            self.duplicates += 1
        else:
            self.cached += 1
        self.progress.advance(hit, cached=True)

    def measure(
        self, invocations: Iterable[Invocation], batching: Batching | None = None
    ) -> list[Measurement]:
        """Measure invocations, reusing finished attempts unless ``rerun``; all are stored.

        Unbatched invocations are built, looked up in the store (a slice of the plan at a
        time) and handed to the executor one at a time, as it asks for them: in a serial sweep
        that work happens while the previous benchmark runs."""
        # (cache key, case, params, phase): what a stored attempt is re-stamped with, not the
        # whole invocation.
        seen: list[tuple[str, int, Mapping[str, object], str]] = []
        results: dict[str, Measurement] = {}
        queued: set[str] = set()

        asked: dict[tuple[object, ...], str] = {}  # a rebuilt binary runs under a new key

        def todo() -> Iterator[Invocation]:
            for inv, found in self._planned(invocations):
                key = inv.cache_key
                seen.append((key, inv.case_index, inv.params, inv.phase))
                if key in results or key in queued:
                    self.duplicates += 1
                    continue
                hit, fresh = (None, False) if self.rerun else self._hit(inv, found)
                if hit is not None:
                    results[key] = hit
                    self._served(hit, fresh)
                else:
                    queued.add(key)
                    asked[_config_of(inv)] = key
                    yield inv

        jobs: Iterable[Job] = todo()
        if batching is not None:
            jobs = make_batches(
                list(todo()), param=batching.param, size=batching.size, position=batching.position
            )
        for ms in self.executor.run(jobs):
            self._record(ms)
            for m in ms:
                results[asked.get(_config_of(m), m.cache_key)] = m
                self._ran(m)
        # A stored attempt is filed under the invocation that asks for it now: its case (a
        # space edit may have moved or removed cases), its parameters and its phase (a
        # pre-tune run is also a main-sweep configuration).
        return [
            _restamped(results[key], case, params, phase)
            for key, case, params, phase in seen
            if key in results
        ]

    def measure_into(
        self, invocations: Iterable[Invocation], sink: Sink, batching: Batching | None = None
    ) -> None:
        """`measure`, each answer handed to ``sink`` as it comes (with its position among the
        invocations) instead of all returned at the end: the sweep holds the invocations in
        flight, not every attempt (a plan of 10^6 configurations). Batched invocations must
        come batch by batch (`batch_order`): each batch is made as the executor asks."""
        waiting: dict[str, list[tuple[int, int, Mapping[str, object], str]]] = {}
        done = KeySet()
        """The keys answered so far (the attempts themselves are in the store)."""
        failed: dict[str, Measurement] = {}
        """Answers that are failures (an unavailable one is no store hit)."""
        asked: dict[tuple[object, ...], str] = {}

        def again(inv: Invocation) -> Measurement | None:
            """The answer of a key this call answered before."""
            key = inv.cache_key
            if key in failed:
                return failed[key]
            entry = self.store.latest_of(inv.bench, [key]).get(key)
            return None if entry is None else entry[1]

        def todo() -> Iterator[Invocation]:
            for index, (inv, found) in enumerate(self._planned(invocations)):
                key = inv.cache_key
                if key in waiting:
                    self.duplicates += 1
                    waiting[key].append((index, inv.case_index, inv.params, inv.phase))
                    continue
                earlier = again(inv) if key in done else None
                if earlier is not None:
                    self.duplicates += 1
                    sink(index, _restamped(earlier, inv.case_index, inv.params, inv.phase))
                    continue
                hit, fresh = (None, False) if self.rerun else self._hit(inv, found)
                if hit is not None:
                    done.add(key)
                    self._served(hit, fresh)
                    sink(index, _restamped(hit, inv.case_index, inv.params, inv.phase))
                else:
                    waiting[key] = [(index, inv.case_index, inv.params, inv.phase)]
                    asked[_config_of(inv)] = key
                    yield inv

        jobs: Iterable[Job] = todo()
        if batching is not None:
            jobs = stream_batches(
                todo(), param=batching.param, size=batching.size, position=batching.position
            )
        for ms in self.executor.run(jobs):
            self._record(ms)
            for m in ms:
                key = asked.pop(_config_of(m), m.cache_key)
                done.add(key)
                if not m.ok:
                    failed[key] = m
                for index, case, params, phase in waiting.pop(key, ()):
                    sink(index, _restamped(m, case, params, phase))
                self._ran(m)


def _config_of(x: Invocation | Measurement) -> tuple[object, ...]:
    # The parameters too: variants of a compile-time bench share one argv (their values are
    # in the binary), and a confirmation measures several of them in one call.
    return (
        x.bench, x.case_index, tuple(x.argv), tuple(sorted(x.env.items(), key=str)), x.repeat,
        repr(sorted(x.params.items(), key=str)),
    )  # fmt: skip


def _restamped(
    m: Measurement, case_index: int, params: Mapping[str, object], phase: str
) -> Measurement:
    if m.case_index == case_index and m.phase == phase and m.params == params:
        return m
    return replace(m, case_index=case_index, params=dict(params), phase=phase)  # type: ignore[arg-type]
