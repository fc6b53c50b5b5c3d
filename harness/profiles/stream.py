"""A profile's JSON read a piece at a time: its long measurement tables never whole in memory.

``json.loads`` of a profile of 10^6 configurations builds every row as a dictionary before the
first is read into its record (1.8 GB of Python objects for 270 MB of text). `walk_profile`
reads the file in chunks, decodes the document's small parts with the standard decoder as it
meets them, and hands each element of ``$.results[i].measurements`` to a callback as soon as
it is decoded, so that only the records stay. It reads any JSON layout (BatchLAS's indented
files as well as ``tune``'s one row per line); anything it does not expect is a `NotStreamed`,
and the caller reads the file the ordinary way (which gives the ordinary error messages).
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Callable
from typing import IO, Any

CHUNK = 1 << 20
"""Bytes read at a time."""

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


class NotStreamed(Exception):
    """The file cannot be read piece by piece (not JSON, not the expected layout): read it
    whole."""


class _Pull:
    """A window over the file's text, refilled as the parser moves through it."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self.sha256 = hashlib.sha256()
        self.buf = ""
        self.pos = 0
        self.eof = False

    def _more(self, size: int = CHUNK) -> None:
        if self.eof:
            raise NotStreamed("unexpected end of file")
        blob = self._fh.read(size)
        self.sha256.update(blob)
        try:
            text = self._utf8.decode(blob, final=not blob)
        except UnicodeDecodeError:
            raise NotStreamed("not UTF-8") from None
        if not blob:
            self.eof = True
        if self.pos > CHUNK:  # drop what was read
            self.buf, self.pos = self.buf[self.pos :], 0
        self.buf += text

    def peek(self) -> str:
        """The next character after white space ('' at the end of the file)."""
        while True:
            buf, pos = self.buf, self.pos
            while pos < len(buf) and buf[pos] in _SPACE:
                pos += 1
            self.pos = pos
            if pos < len(buf):
                return buf[pos]
            if self.eof:
                return ""
            self._more()

    def take(self, char: str) -> None:
        """Consume `char` (after white space), or the file is not of the expected layout."""
        if self.peek() != char:
            raise NotStreamed(f"expected {char!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next JSON value, decoded by the standard decoder."""
        self.peek()
        grow = CHUNK
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                obj, end = None, -1
            # A value that ends at the window's edge may go on (a number cut in two).
            if end != -1 and (end < len(self.buf) or self.eof):
                self.pos = end
                return obj
            self._more(grow)
            grow *= 2

    def members(self) -> Any:
        """The keys of the object that starts here, one at a time (its values are the
        caller's to read)."""
        self.take("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise NotStreamed("a key that is not a string")
            self.take(":")
            yield key
            sep = self.peek()
            self.pos += 1
            if sep == "}":
                return
            if sep != ",":
                raise NotStreamed("expected ',' or '}'")

    def items(self) -> Any:
        """The elements of the list that starts here, one at a time (read by the caller)."""
        self.take("[")
        if self.peek() == "]":
            self.pos += 1
            return
        index = 0
        while True:
            yield index
            index += 1
            sep = self.peek()
            self.pos += 1
            if sep == "]":
                return
            if sep != ",":
                raise NotStreamed("expected ',' or ']'")


RowHook = Callable[[int, int, Any], object]
"""Called with (result index, row index, the row's data); returns what the row becomes."""


def walk_profile(fh: IO[bytes], on_row: RowHook) -> tuple[dict[str, Any], str]:
    """The document with each ``results[i].measurements`` a list of what `on_row` made of its
    rows, and the SHA-256 of the file's bytes. `NotStreamed` when it is not a JSON object
    whose ``results`` is a list of objects."""
    pull = _Pull(fh)
    doc: dict[str, Any] = {}
    for key in pull.members():
        if key != "results" or pull.peek() != "[":
            doc[key] = pull.value()
            continue
        results: list[Any] = []
        for r in pull.items():
            if pull.peek() != "{":
                raise NotStreamed("a result that is not an object")
            result: dict[str, Any] = {}
            for field in pull.members():
                if field == "measurements" and pull.peek() == "[":
                    result[field] = [on_row(r, i, pull.value()) for i in pull.items()]
                else:
                    result[field] = pull.value()
            results.append(result)
        doc[key] = results
    if pull.peek() != "":
        raise NotStreamed("extra data after the document")
    return doc, pull.sha256.hexdigest()
