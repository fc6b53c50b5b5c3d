"""The one profile writer: the records as the JSON document of the current version.

Rows keep BatchLAS's layout (``args`` = the positional arguments, ``env``, ``value``) so that
BatchLAS's own scripts read them; ``measurements`` holds the configurations with a value (a
configuration whose every repeat failed is in ``failures``, as each of its attempts)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchspace.harness.jsonio import Table, write_json_atomic
from benchspace.harness.profiles.evidence import row_evidence, top_evidence, verdict_data
from benchspace.harness.profiles.model import (
    PROFILE_FORMAT,
    PROFILE_VERSION,
    BenchResult,
    Coverage,
    Failure,
    LazyRows,
    MeasurementRow,
    PhaseTableRow,
    PreTunePhaseResult,
    Profile,
    ProfileMeta,
    TopEntry,
)


def row_data(row: MeasurementRow) -> dict[str, Any]:
    """A measurement row (or a case's best) as JSON data."""
    entry: dict[str, Any] = {
        "case_index": row.case_index,
        "fixed": dict(row.fixed),
        "params": dict(row.params),
        "args": list(row.args),
        "argv": list(row.argv),
        "env": dict(row.env),
        "samples": list(row.samples),
        "spread": row.spread,
    }
    if row.median is not None:
        entry["value"] = entry["median"] = row.median
        entry["mean"] = row.mean
        entry["stdev"] = row.stdev
        entry["n"] = row.n
    entry.update(row_evidence(row))
    return entry


def top_data(top: TopEntry) -> dict[str, Any]:
    """A leaderboard entry as JSON data."""
    cases = []
    for case in top.cases:
        entry: dict[str, Any] = {
            "case_index": case.case_index,
            "fixed": dict(case.fixed),
            "args": list(case.args),
            "env": dict(case.env),
        }
        if case.value is not None:
            entry["value"] = case.value
        cases.append(entry)
    return {"params": dict(top.params), "score": top.score, "cases": cases, **top_evidence(top)}


def failure_data(failure: Failure) -> dict[str, Any]:
    """A failed attempt as JSON data."""
    return {
        "case_index": failure.case_index,
        "phase": failure.phase,
        "params": dict(failure.params),
        "status": failure.status,
        "argv": list(failure.argv),
        "env": dict(failure.env),
        "error": failure.error,
        "stderr_tail": failure.stderr_tail,
        "repeat": failure.repeat,
    }


def _table_row(row: PhaseTableRow) -> dict[str, Any]:
    entry: dict[str, Any] = {"params": dict(row.params), "values": list(row.values)}
    if row.stdevs is not None:
        entry["stdevs"] = list(row.stdevs)
    if row.n is not None:
        entry["n"] = list(row.n)
    entry["score"] = row.score
    if row.selection_score is not None:
        entry["selection_score"] = row.selection_score
    if row.confirmed is not None:
        entry["confirmed"] = row.confirmed
    return entry


def phase_data(phase: PreTunePhaseResult) -> dict[str, Any]:
    """A pre_tune phase's summary (and table) as JSON data."""
    entry: dict[str, Any] = {
        "phase_index": phase.phase_index,
        "params": {k: list(v) for k, v in phase.params.items()},
        "cases": list(phase.cases),
        "resolved_params": None if phase.resolved_params is None else dict(phase.resolved_params),
        "values": list(phase.values),
        "score": phase.score,
    }
    if phase.note is not None:
        entry["note"] = phase.note
    if phase.table is not None:
        entry["table"] = [_table_row(row) for row in phase.table]
    if phase.decided is not None:
        entry["decided"] = verdict_data(phase.decided)
    return entry


def _coverage_data(coverage: Coverage) -> dict[str, Any]:
    entry: dict[str, Any] = {"complete": coverage.complete}
    for key, value in (
        ("combos", coverage.combos),
        ("combos_covering_all_cases", coverage.combos_covering_all_cases),
        ("combos_scored", coverage.combos_scored),
    ):
        if value is not None:
            entry[key] = value
    entry["note"] = coverage.note
    return entry


def result_data(result: BenchResult, *, lazy: bool = False) -> dict[str, Any]:
    """One bench's entry as JSON data (``lazy``: its measurements a `Table` made row by row as
    the file is written, never all at once)."""
    rows: Sequence[MeasurementRow]
    if isinstance(result.measurements, LazyRows):
        rows = result.measurements.valued()  # made one at a time as they are written
    else:
        rows = [r for r in result.measurements if r.median is not None]
    return {
        "bench": result.bench,
        "exe": result.exe,
        "exe_sha256": result.exe_sha256,
        "metric": result.metric,
        "direction": result.direction,
        "arg_spec": list(result.arg_spec),
        "env_spec": dict(result.env_spec),
        "report_only": result.report_only,
        "pre_tune": [phase_data(p) for p in result.pre_tune],
        "failures": [failure_data(f) for f in result.failures],
        "best": None if result.best is None else top_data(result.best),
        "top": [top_data(t) for t in result.top],
        "per_case_best": [row_data(r) for r in result.per_case_best],
        "measurements": Table(rows, row_data) if lazy else [row_data(r) for r in rows],
        "coverage": _coverage_data(result.coverage),
    }


def meta_data(meta: ProfileMeta) -> dict[str, Any]:
    """The meta block as JSON data (keys the profile did not have stay absent)."""
    entry: dict[str, Any] = dict(meta.other)
    for key, value in (
        ("backend", meta.backend),
        ("dtype", meta.dtype),
        ("build_dir", meta.build_dir),
        ("hostname", meta.hostname),
        ("platform", meta.platform),
        ("generated_at", meta.generated_at),
    ):
        if value is not None:
            entry[key] = value
    prov = meta.provenance
    if prov is not None:
        block: dict[str, Any] = dict(prov.other)
        if prov.space_path is not None:
            block["space_path"] = prov.space_path
        if prov.space_sha256 is not None:
            block["space_sha256"] = prov.space_sha256
        if prov.executables is not None:
            block["executables"] = dict(prov.executables)
        entry["provenance"] = block
    return entry


def profile_data(profile: Profile, *, lazy: bool = False) -> dict[str, Any]:
    """The whole document, in the current version (``lazy``: see `result_data`)."""
    by_status = profile.failure_counts
    return {
        "format": PROFILE_FORMAT,
        "version": PROFILE_VERSION,
        "meta": meta_data(profile.meta),
        "results": [result_data(r, lazy=lazy) for r in profile.results.values()],
        "failures": {"count": sum(by_status.values()), "by_status": by_status},
    }


def write_profile(path: str | Path, profile: Profile) -> None:
    """Write a profile deterministically (sorted keys) and atomically."""
    write_json_atomic(path, profile_data(profile, lazy=True))
