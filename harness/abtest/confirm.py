"""confirm: A/B every change a review proposes at the consumers the space declares.

For each change (one constant in one bucket), incumbent (A) against candidate (B) through the
constant's env override, at every consumer of the benches that feed the constant: a bench
consumer runs its cases whose bucket key falls in the changed bucket; an executable consumer
runs as declared. A change is accepted when no consumer gets slower beyond noise, rejected when
one does. The review document comes back with ``accepted`` and the verdicts filled in, which is
what ``port --accepted`` reads.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from benchspace.harness.abtest.ab import (
    ABOptions,
    ABResult,
    Side,
    case_invocation,
    exe_invocation,
    run_ab,
    with_side,
)
from benchspace.harness.abtest.ab_format import comparison_record
from benchspace.harness.errors import BenchspaceError, HeaderError, json_path
from benchspace.harness.execute.invoke import Invocation, RunOptions
from benchspace.harness.measurement import Measurement
from benchspace.harness.review_doc import review_changes
from benchspace.harness.spaces.model import Bench, Consumer, Space
from benchspace.harness.values import Value, render_value

if TYPE_CHECKING:  # the variants' module imports this one's A/B records
    from benchspace.harness.variants.confirm_sides import CompileConfirm

Status = Literal["accepted", "rejected", "unconfirmed", "error", "skipped"]
STATUSES: tuple[Status, ...] = ("accepted", "rejected", "unconfirmed", "error", "skipped")


@dataclass(frozen=True, kw_only=True)
class ProposedChange:
    """What confirm needs of one review change; `entry` is the change as the review wrote it."""

    index: int
    name: str
    constant: str
    bucket: str
    env: str
    env_old: str | None
    env_new: str
    bucket_key: str
    above: int | None
    upto: int | None
    entry: Mapping[str, Any]

    def holds(self, value: Value | None) -> bool:
        """Whether a bucket-key value lies in this change's bucket (above, upto]."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return (self.above is None or value > self.above) and (
            self.upto is None or value <= self.upto
        )

    def range_text(self) -> str:
        """``128 < n <= 256``."""
        low = "" if self.above is None else f"{self.above} < "
        high = "" if self.upto is None else f" <= {self.upto}"
        return f"{low}{self.bucket_key}{high}"


def _field(entry: Mapping[str, Any], key: str, kind: type, where: str, optional: bool) -> Any:
    value = entry.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise HeaderError(
            f"{where}.{key}: {value!r} is not a {kind.__name__}; regenerate the review with "
            "`benchspace review --format json`"
        )
    return value


def parse_changes(document: Mapping[str, Any], source: str) -> list[ProposedChange]:
    """The changes of a review document (format ``benchspace-review``, version 1)."""
    entries = review_changes(document, source)
    changes = []
    for i, entry in enumerate(entries):
        where = f"{source}: {json_path('changes', i)}"
        if not isinstance(entry, dict):
            raise HeaderError(f"{where}: {entry!r} is not an object; regenerate the review")
        changes.append(
            ProposedChange(
                index=i,
                name=_field(entry, "name", str, where, False),
                constant=_field(entry, "constant", str, where, False),
                bucket=_field(entry, "bucket", str, where, False),
                env=_field(entry, "env", str, where, False),
                env_old=_field(entry, "env_old", str, where, True),
                env_new=_field(entry, "env_new", str, where, False),
                bucket_key=_field(entry, "bucket_key", str, where, False),
                above=_field(entry, "bucket_above", int, where, True),
                upto=_field(entry, "bucket_upto", int, where, True),
                entry=entry,
            )
        )
    return changes


@dataclass(frozen=True, kw_only=True)
class Target:
    """One place a change is measured: a consumer bench's case, or a consumer executable."""

    owner: str
    """The bench whose ``consumers`` declared it."""
    consumer: Consumer
    bench: str | None
    case_index: int | None
    fixed: Mapping[str, Value]

    @property
    def label(self) -> str:
        """``lu case 2 (n=256)`` or the executable's command line."""
        if self.bench is None:
            return shlex.join([self.consumer.exe or "", *self.consumer.args])
        fixed = ", ".join(f"{k}={v}" for k, v in self.fixed.items())
        return f"{self.bench} case {self.case_index}" + (f" ({fixed})" if fixed else "")


def feeding_benches(space: Space, constant: str) -> list[str]:
    """The benches whose parameters feed `constant` in the space's header section."""
    if space.header is None:
        raise HeaderError(f'{space.path}: $: the space has no "header" section; nothing to confirm')
    for c in space.header.constants:
        if c.name == constant:
            return list(dict.fromkeys(s.bench for s in c.sources))
    known = ", ".join(c.name for c in space.header.constants)
    raise HeaderError(
        f"{space.path}: $.header.constants: no constant {constant!r} (the review names it; "
        f"known: {known}); review against this space"
    )


def plan_targets(space: Space, change: ProposedChange) -> tuple[list[Target], list[str]]:
    """Where to A/B `change` (pure), and notes on declared consumers it cannot use.

    A consumer declared twice (by two feeding benches, or with a case listed twice) runs once.
    """
    targets: dict[tuple[object, ...], Target] = {}
    notes: list[str] = []
    for owner in feeding_benches(space, change.constant):
        for consumer in space.bench(owner).consumers:
            if consumer.bench is None:
                targets.setdefault(
                    ("exe", consumer.exe, consumer.args, consumer.row, consumer.metric),
                    Target(owner=owner, consumer=consumer, bench=None, case_index=None, fixed={}),
                )
                continue
            bench = space.bench(consumer.bench)
            indices = consumer.cases if consumer.cases is not None else range(len(bench.cases))
            for i in indices:
                fixed = bench.cases[i].fixed
                if change.bucket_key not in fixed:
                    note = (
                        f"{bench.name} case {i} fixes no {change.bucket_key!r}; it cannot be "
                        "placed in a bucket and is not run"
                    )
                    notes += [] if note in notes else [note]
                elif change.holds(fixed[change.bucket_key]):
                    target = Target(
                        owner=owner, consumer=consumer, bench=bench.name, case_index=i,
                        fixed=dict(fixed),
                    )  # fmt: skip
                    key = ("bench", bench.name, i, consumer.row, consumer.metric)
                    targets.setdefault(key, target)
    return list(targets.values()), notes


def _with_overrides(bench: Bench, consumer: Consumer) -> Bench:
    return replace(
        bench,
        row=consumer.row if consumer.row is not None else bench.row,
        metric=consumer.metric or bench.metric,
        direction=consumer.direction or bench.direction,
    )


def target_invocation(space: Space, target: Target, options: RunOptions) -> tuple[Invocation, str]:
    """The base invocation of a target and its direction (resolves the executable)."""
    c = target.consumer
    if target.bench is None or target.case_index is None:
        owner = space.bench(target.owner)
        inv = exe_invocation(
            c.exe or "",
            c.args,
            reader=owner.reader,
            metric=c.metric or owner.metric,
            row=c.row,
            pattern=owner.pattern,
            stream=owner.stream,
            options=options,
        )
        return inv, c.direction or owner.direction
    bench = _with_overrides(space.bench(target.bench), c)
    inv = case_invocation(bench, target.case_index, params={}, options=options)
    return inv, bench.direction


@dataclass(frozen=True, kw_only=True)
class Run:
    """One A/B of one change at one target; `error` when it could not be measured."""

    target: Target
    result: ABResult | None = None
    error: str = ""
    compiled: tuple[Mapping[str, Value], Mapping[str, Value]] | None = None
    """A's and B's compile-time values, when the change is one (two variants ran)."""


@dataclass(frozen=True, kw_only=True)
class ChangeVerdict:
    """A change with its runs and what they decided."""

    change: ProposedChange
    runs: tuple[Run, ...]
    notes: tuple[str, ...]
    status: Status
    reason: str

    @property
    def accepted(self) -> bool:
        """Whether port should take this change."""
        return self.status == "accepted"


def judge(
    change: ProposedChange, runs: Sequence[Run], *, accept_unconfirmed: bool
) -> tuple[Status, str]:
    """The status of a change from its runs: any consumer slower rejects it."""
    failed = [r for r in runs if r.result is None]
    if failed:
        return "error", f"{failed[0].target.label}: {failed[0].error}"
    slower = [r for r in runs if r.result is not None and r.result.comparison.verdict == "A faster"]
    if slower:
        worst = slower[0]
        assert worst.result is not None
        c = worst.result.comparison
        return "rejected", (
            f"{worst.target.label} is slower with {change.env_new}: B/A {c.ratio:.4f} "
            f"({(c.ratio - 1) * 100:+.1f} %), 95 % interval [{c.ci_low:.3f}, {c.ci_high:.3f}]"
        )
    if not runs:
        status: Status = "accepted" if accept_unconfirmed else "unconfirmed"
        return status, f"no declared consumer runs at {change.range_text()}"
    done = [r.result for r in runs if r.result is not None]
    faster = sum(r.comparison.verdict == "B faster" for r in done)
    noisy = sum(bool(r.warnings) for r in done)
    caveat = f"; {noisy} too noisy to resolve small differences" if noisy else ""
    return "accepted", f"no consumer slower ({faster} of {len(runs)} faster{caveat})"


def sides(change: ProposedChange, base: Invocation) -> tuple[Side, Side]:
    """A sets the incumbent through the override (unsets it when unknown), B the candidate."""
    env_a = {change.env: change.env_old}
    env_b = {change.env: change.env_new}
    a = Side(label="A", invocation=with_side(base, env_a), overrides=env_a)
    b = Side(label="B", invocation=with_side(base, env_b), overrides=env_b)
    return a, b


Report = Callable[[ProposedChange, Target, ABResult | None], None]


def confirm_changes(
    space: Space,
    changes: Sequence[ProposedChange],
    *,
    options: RunOptions,
    ab: ABOptions,
    accept_unconfirmed: bool = False,
    record: Callable[[Measurement], None] | None = None,
    report: Report | None = None,
    compile_confirm: CompileConfirm | None = None,
) -> list[ChangeVerdict]:
    """A/B every change at its targets (changes a review marked rejected are skipped); a
    change of a compile-time parameter of the consumer bench A/Bs two variants built through
    `compile_confirm` (`harness.variants.confirm_sides`)."""
    outcomes = []
    for change in changes:
        if change.entry.get("accepted", True) is False:
            outcomes.append(
                ChangeVerdict(
                    change=change,
                    runs=(),
                    notes=(),
                    status="skipped",
                    reason="rejected in the review",
                )
            )
            continue
        targets, notes = plan_targets(space, change)
        runs = []
        for target in targets:
            compiled = None
            try:
                pair = compile_confirm and compile_confirm.pair(
                    target.bench, target.case_index, target.consumer, constant=change.constant,
                    bucket=change.bucket, old=change.env_old, new=change.env_new, options=options,
                )  # fmt: skip
                if pair:
                    a, b, direction = pair.a, pair.b, pair.direction
                    compiled = (dict(pair.a_values), dict(pair.b_values))
                else:
                    base, direction = target_invocation(space, target, options)
                    a, b = sides(change, base)
                result = run_ab(a, b, ab, direction=direction, record=record)
            except BenchspaceError as exc:
                runs.append(Run(target=target, error=str(exc)))
                if report is not None:
                    report(change, target, None)
                continue
            runs.append(Run(target=target, result=result, compiled=compiled))
            if report is not None:
                report(change, target, result)
        status, reason = judge(change, runs, accept_unconfirmed=accept_unconfirmed)
        outcomes.append(
            ChangeVerdict(
                change=change, runs=tuple(runs), notes=tuple(notes), status=status, reason=reason
            )
        )
    return outcomes


def exit_code(outcomes: Sequence[ChangeVerdict]) -> int:
    """1 when a change makes a consumer slower or could not be measured, else 0."""
    return 1 if any(o.status in ("rejected", "error") for o in outcomes) else 0


# ---------------------------------------------------------------- the document


def run_record(run: Run) -> dict[str, Any]:
    """One A/B of a change as JSON-ready data."""
    t = run.target
    out: dict[str, Any] = {
        "consumer": t.label,
        "owner": t.owner,
        "bench": t.bench,
        "case_index": t.case_index,
        "fixed": dict(t.fixed),
    }
    if run.result is None:
        return {**out, "error": run.error}
    r = run.result
    if run.compiled is not None:
        out["compile_a"] = {k: render_value(v) for k, v in run.compiled[0].items()}
        out["compile_b"] = {k: render_value(v) for k, v in run.compiled[1].items()}
        out["exe_a"], out["exe_b"] = str(r.a.invocation.exe_path), str(r.b.invocation.exe_path)
    return {
        **out,
        "argv": list(r.b.invocation.argv),
        "env_a": dict(r.a.overrides),
        "env_b": dict(r.b.overrides),
        "metric": r.a.invocation.metric,
        "direction": r.direction,
        **comparison_record(r.comparison),
        "stop": r.stop,
        "warnings": list(r.warnings),
    }


def confirm_document(
    review: Mapping[str, Any], outcomes: Sequence[ChangeVerdict], settings: Mapping[str, Any]
) -> dict[str, Any]:
    """The review document with ``accepted`` and the verdict fields of every change set."""
    by_index = {o.change.index: o for o in outcomes}
    changes = []
    for i, entry in enumerate(review.get("changes", [])):
        o = by_index.get(i)
        if o is None:  # left out with --only: port must not take it on this file's word
            changes.append({**entry, "accepted": False, "verdict": "not run", "runs": []})
            continue
        changes.append(
            {
                **entry,
                "accepted": o.accepted,
                "verdict": o.status,
                "reason": o.reason,
                "notes": list(o.notes),
                "runs": [run_record(r) for r in o.runs],
            }
        )
    return {**review, "confirm": dict(settings), "changes": changes}
