"""A read-only view of a profile for header work: each bench's measurements by case and value.

Profiles of every known version load here (through `harness.profile.upgrade_profile`); a
BatchLAS profile (version 0) has measurements without a case index, parameters or spread, so
each one's case and parameters are recovered from its ``args``/``env`` and the cases' fixed
values in ``per_case_best``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ProfileError, json_path
from harness.measurement import Value
from harness.profile import better, upgrade_profile


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """One measured configuration of one case (the median over its repeats)."""

    case_index: int
    fixed: Mapping[str, Value]
    params: Mapping[str, Value | None]
    value: float
    stdev: float | None
    n: int | None

    def param(self, name: str) -> Value | None:
        """The value parameter `name` had: tuned first, then the case's fixed value."""
        return self.params[name] if name in self.params else self.fixed.get(name)

    @property
    def rel_error(self) -> float | None:
        """Relative standard error of the value (stdev / sqrt(n) / value); None if unknown."""
        if self.stdev is None or self.n is None or self.n < 2 or self.value <= 0:
            return None
        return self.stdev / math.sqrt(self.n) / self.value


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchResult:
    """One bench's entry in a profile."""

    bench: str
    metric: str
    direction: str
    rows: tuple[Row, ...]
    phase_rows: tuple[Row, ...] = ()
    """What the pre_tune phases measured (from their tables), on the phases' cases."""

    def case_rows(self, case_index: int, *, phase: bool = False) -> tuple[Row, ...]:
        """The rows measured in one case (by the main sweep, or by the pre_tune phases)."""
        return tuple(
            r for r in (self.phase_rows if phase else self.rows) if r.case_index == case_index
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfileView:
    """What header generation and review read from a profile."""

    source: str
    sha256: str
    version: int
    """The version the file was written in (0 = BatchLAS, no ``format`` key)."""
    space_path: str | None
    space_sha256: str | None
    results: Mapping[str, BenchResult]


@dataclass(frozen=True, kw_only=True, slots=True)
class Cell:
    """The best measurement of one parameter value in one case."""

    value: Value
    metric: float
    rel_error: float | None


def case_best(rows: tuple[Row, ...], direction: str) -> float:
    """The best metric among a case's rows (there must be at least one)."""
    values = [r.value for r in rows]
    return max(values) if direction == "max" else min(values)


def value_cells(
    rows: tuple[Row, ...], param: str, direction: str, convert: Callable[[object], Value]
) -> dict[Value, Cell]:
    """Per value of `param` (as `convert` normalises it), its best row; unset values skipped."""
    cells: dict[Value, Cell] = {}
    for row in rows:
        raw = row.param(param)
        if raw is None:
            continue
        value = convert(raw)
        current = cells.get(value)
        if current is None or better(row.value, current.metric, direction):
            cells[value] = Cell(value=value, metric=row.value, rel_error=row.rel_error)
    return cells


def _number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _mapping(value: object, source: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ProfileError(f"{source}: {where}: expected an object, got {value!r}")
    return value


def _recover_case(
    entry: Mapping[str, Any], result: Mapping[str, Any], source: str, where: str
) -> tuple[int, Mapping[str, Value], dict[str, Value | None]]:
    """(case index, fixed, params) of a BatchLAS measurement from its args, env and the cases."""
    names = [str(a) for a in result.get("arg_spec", [])]
    args = list(entry.get("args", []))
    values: dict[str, Value | None] = {}
    for name, arg in zip(names, args, strict=False):
        values[name] = _scalar(arg)
    env = entry.get("env") or {}
    for param, variable in (result.get("env_spec") or {}).items():
        if variable in env:
            values[param] = None if env[variable] is None else _scalar(env[variable])
    for best in result.get("per_case_best", []):
        fixed = _mapping(best.get("fixed", {}), source, where)
        if all(values.get(k) == v for k, v in fixed.items()):
            params = {k: v for k, v in values.items() if k not in fixed}
            return int(best["case_index"]), dict(fixed), params
    raise ProfileError(
        f"{source}: {where}: args {args} match no case of per_case_best; the profile is "
        "incomplete, re-run the sweep"
    )


def _scalar(text: object) -> Value:
    """A BatchLAS argument or env value: integers where they parse."""
    if isinstance(text, bool | int | float):
        return text
    try:
        return int(str(text))
    except ValueError:
        return str(text)


def parse_profile(data: Mapping[str, Any], *, source: str, sha256: str) -> ProfileView:
    """Build the view of a parsed profile document (any known version)."""
    version = 0 if "format" not in data else int(data.get("version", 0))
    doc = upgrade_profile(data, source=source)
    provenance = (doc.get("meta") or {}).get("provenance") or {}
    results: dict[str, BenchResult] = {}
    for i, raw in enumerate(doc.get("results", [])):
        result = _mapping(raw, source, json_path("results", i))
        name = str(result.get("bench", ""))
        rows = []
        for k, raw_entry in enumerate(result.get("measurements", [])):
            where = json_path("results", i, "measurements", k)
            entry = _mapping(raw_entry, source, where)
            value = _number(entry.get("value"))
            if value is None:
                continue  # a configuration without a successful repeat
            fixed: Mapping[str, Value]
            params: Mapping[str, Value | None]
            if "case_index" in entry and "params" in entry:
                case_index = int(entry["case_index"])
                fixed = dict(_mapping(entry.get("fixed", {}), source, where + ".fixed"))
                params = dict(_mapping(entry["params"], source, where + ".params"))
            else:
                case_index, fixed, params = _recover_case(entry, result, source, where)
            stdev = _number(entry.get("stdev"))
            count = entry.get("n")
            rows.append(
                Row(
                    case_index=case_index,
                    fixed=fixed,
                    params=params,
                    value=value,
                    stdev=stdev,
                    n=count if isinstance(count, int) and not isinstance(count, bool) else None,
                )
            )
        results[name] = BenchResult(
            bench=name,
            metric=str(result.get("metric", "")),
            direction="max" if result.get("direction") == "max" else "min",
            rows=tuple(rows),
            phase_rows=_phase_rows(result.get("pre_tune")),
        )
    space_path = provenance.get("space_path")
    space_sha = provenance.get("space_sha256")
    return ProfileView(
        source=source,
        sha256=sha256,
        version=version,
        space_path=space_path if isinstance(space_path, str) else None,
        space_sha256=space_sha if isinstance(space_sha, str) else None,
        results=results,
    )


def _phase_rows(phases: object) -> tuple[Row, ...]:
    """Rows from the pre_tune phases' tables (profiles before the table have none)."""
    rows: list[Row] = []
    for phase in phases if isinstance(phases, list) else []:
        table, cases = phase.get("table"), phase.get("cases")
        if not isinstance(table, list) or not isinstance(cases, list):
            continue
        for entry in table:
            columns = zip(
                cases,
                entry.get("values") or [],
                entry.get("stdevs") or [None] * len(cases),
                entry.get("n") or [None] * len(cases),
                strict=False,
            )
            for case, value, stdev, count in columns:
                if _number(value) is None:
                    continue
                rows.append(
                    Row(
                        case_index=int(case),
                        fixed={},
                        params=dict(entry.get("params") or {}),
                        value=float(value),
                        stdev=_number(stdev),
                        n=count if isinstance(count, int) and not isinstance(count, bool) else None,
                    )
                )
    return tuple(rows)


def load_profile_view(path: str | Path) -> ProfileView:
    """Read a profile file and build its view; the hash is of the file's bytes."""
    source = str(path)
    try:
        blob = Path(path).read_bytes()
    except FileNotFoundError:
        raise ProfileError(f"{source}: no such profile; run `benchspace tune` first") from None
    except OSError as exc:
        raise ProfileError(f"{source}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{source}: not a JSON profile ({exc})") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{source}: $: a profile is a JSON object")
    return parse_profile(data, source=source, sha256=hashlib.sha256(blob).hexdigest())
