"""Measurements as flat rows for pandas and friends: one per measurement, or per configuration.

A row has the columns `columns` names, in that order: ``bench``, ``phase``, ``case_index``, the
case's fixed values, the parameters, then ``metric``, ``value``, ``status``, ``repeat``,
``exe_sha256`` and ``host`` (``--per-configuration``: ``n``, ``median``, ``mean``, ``stdev`` and
``spread`` in place of ``value`` and ``repeat``). A case field or parameter whose name is one of
those columns is prefixed ``case.`` / ``param.``. Pure: the CLI (harness/cli/export.py) reads
the profile or store and writes the file.

From a profile, a measurement is one sample of a configuration (BatchLAS's profiles: its one
value), a failure one row with no value. From a store, every attempt is a row; a store knows
neither the metric nor the case's fixed values (they are in the space and the profile).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchspace.harness.measurement import Measurement
from benchspace.harness.profiles.model import Profile
from benchspace.harness.values import Value

Cell = Value | None

HEAD = ("bench", "phase", "case_index")
TAIL = ("metric", "value", "status", "repeat", "exe_sha256", "host")
TAIL_PER_CONFIGURATION = (
    "metric", "n", "median", "mean", "stdev", "spread", "status", "exe_sha256", "host",
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class ExportRow:
    """One exported row before its columns are laid out."""

    bench: str
    phase: str
    case_index: int
    fixed: Mapping[str, Cell]
    params: Mapping[str, Cell]
    figures: Mapping[str, Cell]
    """The tail columns (metric, value, status, ...)."""


@dataclass(frozen=True, kw_only=True)
class Table:
    """The rows and their column names."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def records(self) -> list[dict[str, Cell]]:
        """The rows as ``{column: value}``."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _cell(value: object) -> Cell:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def profile_rows(profile: Profile, *, per_configuration: bool = False) -> list[ExportRow]:
    """The profile's measurements (and failures) as rows."""
    host = profile.meta.hostname or ""
    out: list[ExportRow] = []
    for result in profile.results.values():
        base = {"metric": result.metric, "exe_sha256": result.exe_sha256, "host": host}
        fixed_of = {row.case_index: row.fixed for row in result.per_case_best}
        for row in result.measurements:
            fixed_of.setdefault(row.case_index, row.fixed)
            fixed = {k: _cell(v) for k, v in row.fixed.items()}
            params = {k: _cell(v) for k, v in row.params.items()}
            if per_configuration:
                figures: dict[str, Cell] = {
                    **base, "n": row.n if row.n is not None else len(row.samples),
                    "median": row.median, "mean": row.mean, "stdev": row.stdev,
                    "spread": row.spread, "status": "ok" if row.median is not None else "failed",
                }  # fmt: skip
                out.append(
                    ExportRow(
                        bench=result.bench,
                        phase="main",
                        case_index=row.case_index,
                        fixed=fixed,
                        params=params,
                        figures=figures,
                    )
                )
                continue
            samples = row.samples or ((row.median,) if row.median is not None else ())
            for repeat, value in enumerate(samples):
                figures = {**base, "value": value, "status": "ok", "repeat": repeat}
                out.append(
                    ExportRow(
                        bench=result.bench,
                        phase="main",
                        case_index=row.case_index,
                        fixed=fixed,
                        params=params,
                        figures=figures,
                    )
                )
        for failure in result.failures:
            figures = {**base, "value": None, "status": failure.status, "repeat": failure.repeat}
            if per_configuration:
                figures = {**base, "n": 0, "status": failure.status}
            out.append(
                ExportRow(
                    bench=result.bench,
                    phase=failure.phase,
                    case_index=failure.case_index,
                    fixed={k: _cell(v) for k, v in fixed_of.get(failure.case_index, {}).items()},
                    params={k: _cell(v) for k, v in failure.params.items()},
                    figures=figures,
                )
            )
    return out


def store_rows(
    attempts: Iterable[Measurement], *, per_configuration: bool = False
) -> list[ExportRow]:
    """A store's attempts as rows (per configuration: grouped by their cache key)."""
    if not per_configuration:
        return [
            ExportRow(
                bench=m.bench,
                phase=m.phase,
                case_index=m.case_index,
                fixed={},
                params={k: _cell(v) for k, v in m.params.items()},
                figures={
                    "metric": "",
                    "value": m.value,
                    "status": m.status,
                    "repeat": m.repeat,
                    "exe_sha256": m.exe_sha256,
                    "host": m.host,
                },
            )
            for m in attempts
        ]
    groups: dict[str, list[Measurement]] = {}
    for m in attempts:  # a configuration: the same run of the same executable (any repeat)
        key = repr((m.bench, m.case_index, m.phase, sorted(m.params.items(), key=str)))
        key += repr((sorted(m.env.items(), key=str), m.argv, m.exe_sha256, m.row))
        groups.setdefault(key, []).append(m)
    out = []
    for group in groups.values():
        last = group[-1]
        values = [m.value for m in group if m.ok and m.value is not None]
        figures: dict[str, Cell] = {
            "metric": "", "n": len(values),
            "median": statistics.median(values) if values else None,
            "mean": statistics.fmean(values) if values else None,
            "stdev": statistics.stdev(values) if len(values) > 1 else None,
            "spread": None, "status": "ok" if values else last.status,
            "exe_sha256": last.exe_sha256, "host": last.host,
        }  # fmt: skip
        out.append(
            ExportRow(
                bench=last.bench,
                phase=last.phase,
                case_index=last.case_index,
                fixed={},
                params={k: _cell(v) for k, v in last.params.items()},
                figures=figures,
            )
        )
    return out


def table(rows: Sequence[ExportRow], *, per_configuration: bool = False) -> Table:
    """The rows laid out in columns (case fields and parameters sorted by name)."""
    tail = TAIL_PER_CONFIGURATION if per_configuration else TAIL
    taken = set(HEAD) | set(tail)
    fixed_names = sorted({k for r in rows for k in r.fixed})
    param_names = sorted({k for r in rows for k in r.params} - set(fixed_names))
    fixed_cols = [f"case.{k}" if k in taken else k for k in fixed_names]
    param_cols = [f"param.{k}" if k in taken else k for k in param_names]
    columns = (*HEAD, *fixed_cols, *param_cols, *tail)
    laid = tuple(
        (
            r.bench,
            r.phase,
            r.case_index,
            *(r.fixed.get(k) for k in fixed_names),
            *(r.params.get(k) for k in param_names),
            *(r.figures.get(k) for k in tail),
        )
        for r in rows
    )
    return Table(columns=columns, rows=laid)
