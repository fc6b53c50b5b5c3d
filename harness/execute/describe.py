"""The ``--describe`` convention, and what ``tune --validate`` can and cannot check (pure).

An executable that follows the convention answers ``<exe> --describe`` (no other argument)
by printing one JSON line and exiting 0 without measuring anything::

    {"format": "benchspace-describe", "version": 1, "args": ["n", "block"], "rows": ["BM_matmul"]}

``args`` are its positional argument names in order, ``rows`` the benchmark names its runs can
print (a run's row name starts with one of them). ``--validate`` checks ``args`` against the
bench's ``arg_spec`` and its ``row`` against ``rows``. An executable that does not know the
convention (no such line, a non-zero exit, a timeout) leaves those checks "not checked".

Without a description, what a run reports is used where it can tell, as the reader table says
(``Reader.reports_args``): Google Benchmark names its arguments (``ArgNames``) or at least
counts them in the run name; minibench's CSV has one ``argK`` column per argument it was
*given*, so it cannot tell; csv and regex outputs carry no arguments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchspace.harness.execute.readers import REGISTRY, Row
from benchspace.harness.spaces.model import Bench

DESCRIBE_FORMAT = "benchspace-describe"
DESCRIBE_VERSION = 1
DESCRIBE_FLAG = "--describe"

CheckState = Literal["ok", "failed", "not checked"]


@dataclass(frozen=True, kw_only=True)
class Description:
    """What an executable says of itself."""

    args: tuple[str, ...]
    rows: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Check:
    """One thing ``--validate`` checked, or says it could not."""

    name: str
    state: CheckState
    detail: str = ""

    def text(self) -> str:
        """``args: not checked (why)``."""
        return f"{self.name}: {self.state}" + (f" ({self.detail})" if self.detail else "")


def parse_description(stdout: str) -> Description | str:
    """The description in an executable's ``--describe`` output, or why there is none."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # tolerant with what tools print
            continue
        if not isinstance(doc, dict) or doc.get("format") != DESCRIBE_FORMAT:
            continue
        version = doc.get("version")
        if not isinstance(version, int) or version > DESCRIBE_VERSION:
            return f"--describe version {version!r} is newer than this benchspace reads"
        args, rows = doc.get("args"), doc.get("rows", [])
        if not _texts(args) or not _texts(rows):
            return '--describe printed "args" or "rows" that are not lists of strings'
        assert isinstance(args, list) and isinstance(rows, list)
        return Description(args=tuple(args), rows=tuple(rows))
    return f"the executable does not answer {DESCRIBE_FLAG}"


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _bare_spec(bench: Bench) -> list[str] | None:
    """The arg_spec names, or None when it has templates (not one name per positional)."""
    if not all(item.is_param for item in bench.arg_spec):
        return None
    return [item.text for item in bench.arg_spec]


def args_check(bench: Bench, description: Description | str, row: Row | None) -> Check:
    """``arg_spec`` against what the executable says (its description, else its output)."""
    expected = _bare_spec(bench)
    if expected is None:
        return Check(name="args", state="not checked", detail="arg_spec has templates")
    if isinstance(description, Description):
        if list(description.args) != expected:
            return Check(
                name="args",
                state="failed",
                detail=f"{DESCRIBE_FLAG} says the arguments are {list(description.args)} but "
                f"arg_spec is {expected}; fix arg_spec to match the executable",
            )
        return Check(name="args", state="ok", detail=f"{DESCRIBE_FLAG}: {expected}")
    reader = REGISTRY.get(bench.reader)
    report = "none" if reader is None else reader.reports_args
    if report == "given":
        why = "minibench writes as many argK columns as it was given"
        return Check(name="args", state="not checked", detail=f"{why}; {description}")
    if report == "none":
        why = f"the {bench.reader} reader reports no arguments"
        return Check(name="args", state="not checked", detail=f"{why}; {description}")
    if row is None or not row.args:
        why = "the run name carries no arguments"
        return Check(name="args", state="not checked", detail=f"{why}; {description}")
    names = [name for name, _ in row.args]
    if all(name is not None for name in names):
        if names != expected:
            return Check(
                name="args",
                state="failed",
                detail=f"the executable reports arguments {names} but arg_spec is {expected}; "
                "fix arg_spec to match the executable",
            )
        return Check(name="args", state="ok", detail=f"named in the run name: {names}")
    if len(names) != len(expected):
        return Check(
            name="args",
            state="failed",
            detail=f"the executable reports {len(names)} arguments but arg_spec has "
            f"{len(expected)} ({expected}); fix arg_spec to match the executable",
        )
    return Check(
        name="args",
        state="ok",
        detail=f"count only: {len(names)} unnamed arguments in the run name; {description}",
    )


def _could_match(row: str, name: str) -> bool:
    """Whether substring `row` can occur in a run name that starts with `name`."""
    return row in name or any(row.startswith(name[k:]) for k in range(len(name)))


def rows_check(bench: Bench, description: Description | str) -> Check:
    """The bench's ``row`` against the row names the executable describes."""
    if not isinstance(description, Description):
        return Check(name="rows", state="not checked", detail=description)
    names: Sequence[str] = description.rows
    if not names:
        return Check(name="rows", state="not checked", detail=f"{DESCRIBE_FLAG} lists no rows")
    if bench.row is None:
        if len(names) > 1:
            return Check(
                name="rows",
                state="failed",
                detail=f"the executable prints {len(names)} rows ({', '.join(names)}) and the "
                'bench sets no "row"; set it to a substring of one of them',
            )
        return Check(name="rows", state="ok", detail=f"one row: {names[0]}")
    matches = [n for n in names if _could_match(bench.row, n)]
    if len(matches) == 1:
        return Check(name="rows", state="ok", detail=f"row {bench.row!r} picks {matches[0]}")
    which = "none" if not matches else f"{len(matches)} ({', '.join(matches)})"
    return Check(
        name="rows",
        state="failed",
        detail=f"row {bench.row!r} matches {which} of the executable's rows "
        f'({", ".join(names)}); fix the bench\'s "row"',
    )
