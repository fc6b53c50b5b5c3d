"""A regular expression over what the benchmark printed (pure): named groups are fields.

stdout is read first: stderr only if the space says ``"stream": "stderr"`` (stderr alone) or
``"both"`` (stderr when stdout has no match), so a progress line on stderr never beats the
final figure on stdout.
"""

from __future__ import annotations

import re

from benchspace.harness.errors import ReaderError
from benchspace.harness.execute.readers.base import (
    ArgsReport,
    Output,
    ReadSettings,
    Row,
    TimingSettings,
    cell,
    clean_name,
    no_flags,
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def read_regex(text: str, pattern: str, *, source: str = "output") -> list[Row]:
    """The last match of `pattern` (named groups = fields) in the text, as one row.

    ``\\r`` counts as a line break (progress updates), ANSI colour codes are removed, and ``^``
    and ``$`` match at every line. The row is named by a group called ``name`` if there is one
    (blanks and stray quotes removed: `` "BM_X"`` is ``BM_X``), else by the matched text. No
    match gives no rows.
    """
    try:
        compiled = re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise ReaderError(f"{source}: pattern does not compile ({exc})") from None
    lines = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    last = None
    for match in compiled.finditer(lines):  # progress updates first, the final figures last
        last = match
    if last is None:
        return []
    fields: dict[str, float | str] = {}
    for key, value in last.groupdict().items():
        parsed = None if value is None else cell(value)
        if parsed is not None:
            fields[key] = parsed
    named = last.groupdict().get("name")
    name = clean_name(named) if named else " ".join(last.group(0).split())
    return [Row(name=name, fields=fields)]


class Regex:
    """A pattern over stdout (or stderr, if asked): for tools that print a human summary."""

    name = "regex"
    label = "regex (with pattern, named groups)"
    output_file: str | None = None
    multi_row = False
    needs_row = False
    needs_pattern = True
    reports_args: ArgsReport = "none"
    time_unit: str | None = None

    def flags(self, options: TimingSettings, out: str) -> tuple[str, ...]:
        """None: it reads what the tool prints."""
        return no_flags(options, out)

    def parse(self, output: Output, settings: ReadSettings, *, source: str) -> list[Row]:
        """The last match on the chosen stream; under ``both``, stdout's if it has one."""
        if settings.pattern is None:
            raise ReaderError(f"{source}: the regex reader needs a pattern")
        if settings.stream == "stderr":
            return read_regex(output.stderr, settings.pattern, source=source)
        rows = read_regex(output.text, settings.pattern, source=source)
        if rows or settings.stream == "stdout":
            return rows
        return read_regex(output.stderr, settings.pattern, source=source)
