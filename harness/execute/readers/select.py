"""Choosing the row and the metric (pure): strict, whatever the reader.

No match, several matches or a missing metric is a ReaderError that lists what was found.
"""

from __future__ import annotations

import difflib
import math
import unicodedata
from collections.abc import Mapping, Sequence

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers.base import Row, clean_name


def _names(rows: Sequence[Row], limit: int = 12) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1
    shown = [f"{n!r}" + (f" (x{c})" if c > 1 else "") for n, c in counts.items()]
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def select_row(rows: Sequence[Row], row: str | None, *, source: str) -> Row:
    """The one row whose name contains `row` (an exact name wins); the only row if `row` is None.

    `row` is compared as a name is read (blanks and stray quotes removed), so a space that
    spells ``"row": "\\"BM_X\\""`` selects the row the benchmark printed as ``"BM_X"``."""
    if not rows:
        raise ReaderError(
            f"{source}: the output has no rows; was the benchmark compiled out for this "
            "backend/type, or did it stop before printing?"
        )
    if row is None:
        if len(rows) == 1:
            return rows[0]
        raise ReaderError(
            f'{source}: the output has {len(rows)} rows and the bench sets no "row"; set it to '
            f"a substring of one of: {_names(rows)}"
        )
    quoted = row[:1] == '"' or row[-1:] == '"'
    wanted = (clean_name(row) or row) if quoted else row
    matches = [r for r in rows if wanted in r.name]
    exact = [r for r in matches if r.name == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ReaderError(
            f"{source}: no row name contains {row!r}; rows found: {_names(rows)}; fix the "
            'bench\'s "row"'
        )
    same = exact if len(exact) > 1 else matches
    if len({r.name for r in same}) == 1:
        raise ReaderError(
            f"{source}: {len(same)} rows are named {same[0].name!r} (two benchmarks of one "
            "name, e.g. two Google Benchmark families); register them under different names"
        )
    raise ReaderError(
        f'{source}: row {row!r} matches {len(matches)} rows: {_names(matches)}; make "row" '
        "long enough to match one"
    )


def _field_name(fields: Mapping[str, object], metric: str) -> str | None:
    if metric in fields:
        return metric
    # U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU look the same; NFKC folds them.
    folded = unicodedata.normalize("NFKC", metric)
    same = [k for k in fields if unicodedata.normalize("NFKC", k) == folded]
    return same[0] if len(same) == 1 else None


def metric_of(row: Row, metric: str, *, source: str) -> tuple[float, float | None]:
    """The row's metric and its reported spread (None when the benchmark reported none)."""
    key = _field_name(row.fields, metric)
    if key is None:
        error = row.fields.get("error_message")
        if error is not None:
            raise ReaderError(f"{source}: row {row.name!r} reported an error: {error}")
        numeric = [k for k, v in row.fields.items() if isinstance(v, float)]
        close = difflib.get_close_matches(metric, numeric, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        listed = ", ".join(repr(k) for k in numeric) or "none"
        raise ReaderError(
            f"{source}: row {row.name!r} has no field {metric!r}{hint}; numeric fields: "
            f'{listed}; fix the bench\'s "metric"'
        )
    value = row.fields[key]
    if isinstance(value, str):
        raise ReaderError(f"{source}: row {row.name!r}: {metric!r} is {value!r}, not a number")
    if not math.isfinite(value):
        raise ReaderError(f"{source}: row {row.name!r}: {metric!r} is {value}, not a finite number")
    return value, row.spread.get(key)
