"""A profile from the store alone (``tune --from-store``): nothing is run.

A sweep measured on one machine (a GPU node, a device lent for minutes) is assembled into its
profile on another, where the executable may not even exist: every attempt the plan asks for
(the sweep's repeats, a race's rounds, a confirmation's rounds) is answered by the store, under
the executable hash the stored rows were made with. An attempt the store does not hold is an
error, never a run: the count and the first one are named, and no profile is written. Rows of
any host serve (the measuring machine is not this one).

A store may hold attempts of several builds of one executable (a binary rebuilt elsewhere may
hash differently, and its attempts are keyed apart): the one build is used when there is one,
else ``--exe-sha PREFIX`` names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.execute.batch import Batch
from benchspace.harness.execute.executor import Job
from benchspace.harness.execute.invoke import Invocation
from benchspace.harness.measurement import Measurement
from benchspace.harness.spaces.model import Bench
from benchspace.harness.store import Store
from benchspace.harness.sweep.confirm_phase import describe_repeat


def stored_executable(store: Store, bench: Bench, prefix: str | None) -> tuple[Path, str]:
    """The bench's executable as the store knows it: its name (never started) and the sha256
    its attempts were made with (the one build, or the one `prefix` names)."""
    builds = store.executables(bench.name)
    if not builds:
        raise BenchspaceError(
            f"{store.path}: holds no attempts of bench {bench.name!r}; --from-store assembles "
            "a profile only from attempts measured before (run `benchspace tune` where the "
            "executable runs)"
        )
    chosen = [b for b in builds if prefix is None or b[0].startswith(prefix.lower())]
    if len(chosen) == 1:
        return Path(bench.exe), chosen[0][0]
    listed = ", ".join(f"{sha[:12]} ({n} attempts, the last at {last})" for sha, n, last in builds)
    if not chosen:
        raise UsageError(
            f"--exe-sha {prefix}: no build of bench {bench.name!r} in {store.path} starts "
            f"so; it holds {listed}"
        )
    raise UsageError(
        f"{store.path}: holds attempts of {len(chosen)} builds of the executable of bench "
        f"{bench.name!r}: {listed}; name one with --exe-sha PREFIX"
    )


def _members(job: Job) -> tuple[Invocation, ...]:
    return job.members if isinstance(job, Batch) else (job,)


def _describe(inv: Invocation) -> str:
    when = describe_repeat(inv.repeat)
    return f"bench {inv.bench} case {inv.case_index} {dict(inv.params)}, {when}"


class StoreOnly:
    """The executor of ``--from-store``: runs nothing. Asked for any job, it fails, naming how
    many attempts the store lacks and the first of them."""

    def __init__(self, store: Path) -> None:
        self.store = store

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Measurement]]:
        """Fails when asked for anything (an empty plan yields nothing)."""
        missing = [inv for job in jobs for inv in _members(job)]
        if missing:
            raise BenchspaceError(
                f"{self.store}: {len(missing)} attempts the profile needs are not in the "
                f"store (the first: {_describe(missing[0])}); --from-store runs nothing: "
                "measure them with `benchspace tune` where the executable runs, or narrow the "
                "space to the cases measured"
            )
        yield from ()
