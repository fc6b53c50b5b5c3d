"""Port chosen constants from a generated header into the checked-in one, in place.

Only the literal of each chosen ``NAME = literal;`` line changes; every other byte of the
checked-in header (hand-written comments, trailing comments on the value lines, blank lines,
line endings) stays. Port refuses, and changes nothing, when any chosen constant is missing,
defined more than once, or defined in a form it cannot edit safely (a multi-line definition,
an expression, a macro, a different type).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchspace.generators.header_parse import ParsedConstant, ParsedHeader
from benchspace.harness.errors import HeaderError
from benchspace.harness.review_doc import review_changes


@dataclass(frozen=True, kw_only=True, slots=True)
class PortEdit:
    """One value line rewritten."""

    name: str
    line: int
    """1-based line number in the checked-in header."""
    old_text: str
    new_text: str


def select_constants(generated: ParsedHeader, only: Sequence[str]) -> list[str]:
    """Expand ``--only`` items: a family (all its buckets) or one ``NAME_BUCKET`` constant."""
    names: list[str] = []
    for item in only:
        if item in generated.constants:
            names.append(item)
        elif item.upper() in generated.families:
            names += generated.families[item.upper()]
        else:
            known = ", ".join(sorted(generated.families)) or "none"
            raise HeaderError(
                f"{generated.source}: defines no constant or family {item!r}; name a family "
                f"({known}) or one of its constants"
            )
    return list(dict.fromkeys(names))


def accepted_constants(document: Mapping[str, Any], source: str) -> dict[str, str]:
    """``NAME_BUCKET`` -> proposed literal of each change in a review not marked rejected."""
    changes = review_changes(document, source)
    out: dict[str, str] = {}
    for i, change in enumerate(changes):
        if not isinstance(change, dict):
            raise HeaderError(f"{source}: $.changes[{i}]: {change!r} is not an object")
        name, text = change.get("name"), change.get("new_text")
        if not isinstance(name, str) or not isinstance(text, str):
            raise HeaderError(
                f"{source}: $.changes[{i}]: needs string fields name and new_text; regenerate "
                "the review"
            )
        accepted = change.get("accepted", True)
        if not isinstance(accepted, bool):
            raise HeaderError(
                f"{source}: $.changes[{i}].accepted: {accepted!r} is not true or false"
            )
        if accepted:
            out[name] = text
    return out


def _definition(header: ParsedHeader, name: str) -> ParsedConstant | str:
    """The one editable definition of `name`, or why there is none."""
    found = header.constants.get(name, ())
    other = [n + 1 for n in header.other_definitions.get(name, ())]
    lines = sorted([d.line + 1 for d in found] + other)
    if not lines:
        return f"{name} is not defined; add `inline constexpr TYPE {name} = VALUE;` by hand first"
    if len(lines) > 1:
        where = ", ".join(str(n) for n in lines)
        return f"{name} is defined on lines {where}; keep one definition or edit it by hand"
    if not found:
        return (
            f"line {lines[0]}: {name} is not defined as one `constexpr TYPE {name} = LITERAL;` "
            "line, so port cannot edit it safely; edit it by hand"
        )
    if found[0].value is None:
        return (
            f"line {lines[0]}: {name} = {found[0].text} is not a plain literal, so port cannot "
            "edit it safely; edit it by hand"
        )
    return found[0]


def port_values(
    header: ParsedHeader, generated: ParsedHeader, names: Sequence[str]
) -> tuple[str, tuple[PortEdit, ...]]:
    """The checked-in header's text with the `names` set to the generated values (pure)."""
    problems = []
    lines = list(header.lines)
    edits = []
    for name in names:
        new = _definition(generated, name)
        if isinstance(new, str):
            problems.append(f"{generated.source}: {new}")
            continue
        old = _definition(header, name)
        if isinstance(old, str):
            problems.append(f"{header.source}: {old}")
            continue
        if old.type != new.type:
            problems.append(
                f"{header.source}:{old.line + 1}: {name} has type {old.type}, the generated "
                f"header {new.type}; change the type by hand (or the space's constant type)"
            )
            continue
        if old.text == new.text:
            continue
        line = lines[old.line]
        lines[old.line] = line[: old.start] + new.text + line[old.end :]
        edits.append(PortEdit(name=name, line=old.line + 1, old_text=old.text, new_text=new.text))
    if problems:
        raise HeaderError("\n".join(problems))
    return "".join(lines), tuple(edits)


def check_accepted(generated: ParsedHeader, accepted: Mapping[str, str], source: str) -> None:
    """Refuse a review whose proposed values are not the generated header's."""
    for name, text in accepted.items():
        found = generated.constants.get(name, ())
        if len(found) == 1 and found[0].text != text:
            raise HeaderError(
                f"{source}: {name}: the review proposes {text}, but {generated.source} has "
                f"{found[0].text}; review the header you are porting from"
            )
