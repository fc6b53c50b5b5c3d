"""Typed access to the fields of a parsed JSON document: a wrong type is a `ProfileError`
naming the file, the JSON path and the value (``p.json: $.meta: [] is not an object``)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from benchspace.harness.errors import ProfileError, json_path
from benchspace.harness.measurement import Value
from benchspace.harness.plan import ParamValue

T = TypeVar("T")
Where = tuple[str | int, ...]
"""A JSON path as its parts: ``("results", 0, "median")`` is ``$.results[0].median``."""


def shown(value: object) -> str:
    """A value as the error shows it: its JSON text, cut to 60 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class FieldReader:
    """Reads typed fields of one file's document, naming the file in every error."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._shared: dict[tuple[object, ...], Any] = {}

    def shared(self, value: T) -> T:
        """One object for equal mappings or tuples of plain values (their types part of the
        key, so that 1, 1.0 and true stay apart)."""
        items = value.items() if isinstance(value, Mapping) else value
        try:
            key = (type(value), *((k, type(v), v) for k, v in items))  # type: ignore[union-attr]
        except (TypeError, ValueError):
            key = (type(value), *((type(v), v) for v in items))  # type: ignore[union-attr]
        try:
            return self._shared.setdefault(key, value)  # type: ignore[no-any-return]
        except TypeError:  # an unhashable member: kept as it is
            return value

    def fail(self, where: Where, value: object, what: str) -> ProfileError:
        """The error for the value at `where`, which is not `what`."""
        return ProfileError(f"{self.source}: {json_path(*where)}: {shown(value)} is not {what}")

    def obj(self, value: object, where: Where) -> Mapping[str, Any]:
        """A JSON object."""
        if not isinstance(value, Mapping):
            raise self.fail(where, value, "an object")
        return value

    def array(self, value: object, where: Where) -> list[Any]:
        """A JSON list."""
        if not isinstance(value, list):
            raise self.fail(where, value, "a list")
        return value

    def text(self, value: object, where: Where) -> str:
        """A string."""
        if not isinstance(value, str):
            raise self.fail(where, value, "a string")
        return value

    def opt_text(self, value: object, where: Where) -> str | None:
        """A string or null."""
        return None if value is None else self.text(value, where)

    def number(self, value: object, where: Where) -> float:
        """A number (not a boolean)."""
        if not _is_number(value):
            raise self.fail(where, value, "a number")
        assert isinstance(value, int | float)
        return value

    def opt_number(self, value: object, where: Where) -> float | None:
        """A number or null."""
        return None if value is None else self.number(value, where)

    def finite(self, value: object, where: Where) -> float:
        """A finite number: a measured value is never NaN or infinite (the profile's readers all
        refuse such a profile here, so sensitivity, generate, review and confirm agree)."""
        number = self.number(value, where)
        if not math.isfinite(number):
            raise ProfileError(
                f"{self.source}: {json_path(*where)}: {shown(value)} is not a finite number; a "
                "measurement is finite (re-run `benchspace tune --rerun`, or delete the row)"
            )
        return number

    def opt_finite(self, value: object, where: Where) -> float | None:
        """A finite number or null."""
        return None if value is None else self.finite(value, where)

    def opt_spread(self, value: object, where: Where) -> float | None:
        """A finite number at least 0 (a standard deviation, a reported spread), or null."""
        number = self.opt_finite(value, where)
        if number is not None and number < 0:
            raise self.fail(where, value, "a spread (a number at least 0)")
        return number

    def index(self, value: object, where: Where) -> int:
        """An integer at least 0 (a case index, a count)."""
        number = self.integer(value, where)
        if number < 0:
            raise self.fail(where, value, "an integer at least 0")
        return number

    def integer(self, value: object, where: Where) -> int:
        """An integer (not a boolean)."""
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, value, "an integer")
        return value

    def opt_integer(self, value: object, where: Where) -> int | None:
        """An integer or null."""
        return None if value is None else self.integer(value, where)

    def boolean(self, value: object, where: Where) -> bool:
        """true or false."""
        if not isinstance(value, bool):
            raise self.fail(where, value, "true or false")
        return value

    def param_value(self, value: object, where: Where) -> ParamValue:
        """A tuned value: a number, string, boolean or null."""
        if value is None or isinstance(value, bool | int | float | str):
            return value
        raise self.fail(where, value, "a parameter value (a number, string, boolean or null)")

    def value(self, value: object, where: Where) -> Value:
        """A fixed value: a number, string or boolean."""
        if isinstance(value, bool | int | float | str):
            return value
        raise self.fail(where, value, "a value (a number, string or boolean)")

    def each(self, value: object, where: Where, read: Callable[[Any, Where], T]) -> tuple[T, ...]:
        """A list, each item read by `read` at its own path."""
        return tuple(read(item, (*where, i)) for i, item in enumerate(self.array(value, where)))

    def params(self, value: object, where: Where) -> dict[str, ParamValue]:
        """An object of tuned values."""
        return {k: self.param_value(v, (*where, k)) for k, v in self.obj(value, where).items()}

    def fixed(self, value: object, where: Where) -> dict[str, Value]:
        """An object of fixed values."""
        return {k: self.value(v, (*where, k)) for k, v in self.obj(value, where).items()}

    def env(self, value: object, where: Where) -> dict[str, str | None]:
        """An object of environment values (null: unset)."""
        return {k: self.opt_text(v, (*where, k)) for k, v in self.obj(value, where).items()}

    def texts(self, value: object, where: Where) -> tuple[str, ...]:
        """A list of strings."""
        return self.each(value, where, self.text)

    def args(self, value: object, where: Where) -> tuple[Value, ...]:
        """A list of arguments (as written: text or numbers)."""
        return self.each(value, where, self.value)
