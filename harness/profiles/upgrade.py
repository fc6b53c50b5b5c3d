"""Format upgrades of profile documents: small pure steps on the parsed JSON, one per version.

Version 1 -> 2: a row's ``args`` held every argv word after the executable (reader flags, the
space's flags, then the arg_spec words); in version 2 that is ``argv`` (with the executable
first) and ``args`` holds the positional arguments as BatchLAS writes them. Only well-shaped
parts are rewritten: the typed reader reports anything else with its JSON path.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from benchspace.harness.profiles.batchlas import positional_args
from benchspace.harness.values import ParamValue


def _values(*maps: object) -> dict[str, ParamValue]:
    """The scalar values of some objects, later ones first."""
    out: dict[str, ParamValue] = {}
    for m in maps:
        if isinstance(m, Mapping):
            out.update(
                {k: v for k, v in m.items() if v is None or isinstance(v, bool | int | float | str)}
            )
    return out


def _words(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return value
    return None


def _upgrade_row(row: object, exe: str, arg_spec: list[str]) -> None:
    if not isinstance(row, dict):
        return
    words = _words(row.get("args"))
    if words is None:
        return
    row["argv"] = [exe, *words]
    values = _values(row.get("fixed"), row.get("params"))
    row["args"] = list(positional_args(arg_spec, words, values))


def _upgrade_top(entry: object, arg_spec: list[str]) -> None:
    if not isinstance(entry, dict) or not isinstance(entry.get("cases"), list):
        return
    for case in entry["cases"]:
        words = _words(case.get("args")) if isinstance(case, dict) else None
        if words is not None:
            values = _values(case.get("fixed"), entry.get("params"))
            case["args"] = list(positional_args(arg_spec, words, values))


def upgrade_v1(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A version-1 document as version 2 (a new document; `doc` is left as it was)."""
    out = copy.deepcopy(dict(doc))
    out["version"] = 2
    results = out.get("results")
    for result in results if isinstance(results, list) else []:
        if not isinstance(result, dict):
            continue
        arg_spec = _words(result.get("arg_spec")) or []
        exe = result.get("exe")
        exe = exe if isinstance(exe, str) else ""
        for key in ("measurements", "per_case_best"):
            rows = result.get(key)
            for row in rows if isinstance(rows, list) else []:
                _upgrade_row(row, exe, arg_spec)
        _upgrade_top(result.get("best"), arg_spec)
        top = result.get("top")
        for entry in top if isinstance(top, list) else []:
            _upgrade_top(entry, arg_spec)
    return out
