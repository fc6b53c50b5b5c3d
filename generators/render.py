"""Render a HeaderModel as C++: Python prepares and checks every name and literal, Jinja lays out.

The template (``templates/tuning_params.hh.j2``) only loops and substitutes; the Jinja
environment is strict (``StrictUndefined``), so a missing field is an error, never empty text.
Output is deterministic: no timestamp, no paths beyond the space's display path, so the same
profile and space always give the same bytes.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from benchspace.generators.gain import Gain
from benchspace.generators.header_model import ConstantChoice, HeaderModel
from benchspace.harness.cxx_types import (
    CxxType,
    check_comment,
    check_env_name,
    check_identifier,
    check_namespace,
    literal,
    range_literals,
)
from benchspace.harness.errors import HeaderError

TEMPLATE = "tuning_params.hh.j2"
_WIDTH = 88  # comment lines, "// " included
_GLUE = "\u00a0"  # a space the comment wrapper must not break at


@dataclass(frozen=True, kw_only=True, slots=True)
class Provenance:
    """What the banner line says the header came from."""

    benchspace_version: str
    profile_sha256: str
    space_path: str
    """As shown: relative to the repository root where possible, so output is portable."""
    space_sha256: str


def environment() -> jinja2.Environment:
    """The strict Jinja environment over the bundled templates."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def comment_text(text: str, what: str) -> list[str]:
    """Lines safe inside ``//`` comments: no control characters, trigraphs or splicing backslash."""
    try:
        check_comment(text, what)
    except ValueError as exc:
        raise HeaderError(str(exc)) from None
    # A trailing backslash would splice the next line into the comment.
    return [line.replace("\t", "    ").rstrip().rstrip("\\").rstrip() for line in text.split("\n")]


def _wrap(text: str) -> list[str]:
    lines = textwrap.wrap(text, width=_WIDTH - 3, break_long_words=False, break_on_hyphens=False)
    return [line.replace(_GLUE, " ") for line in lines]


def _commented(lines: list[str]) -> list[str]:
    """``//`` comment lines without trailing blanks (an empty line is a bare ``//``)."""
    return [f"// {line}" if line else "//" for line in lines]


def _percent(gain: Gain) -> str:
    """``+2.9 % +/- 4.0 %``, kept together by the wrapper."""
    g, n = (gain.gain or 0.0) * 100, (gain.noise or 0.0) * 100
    return f"{g:+.1f}{_GLUE}%{_GLUE}+/-{_GLUE}{n:.1f}{_GLUE}%"


def _range_text(ctype: CxxType) -> str:
    if ctype.kind == "bool":
        return "0 or 1"
    if ctype.kind == "enum":
        return f"an enumerator name or its code 0..{len(ctype.enumerators) - 1}"
    what = "an integer" if ctype.kind == "int" else "a number"
    return f"{what} in [{ctype.low},{_GLUE}{ctype.high}]"


def _constant_view(
    choice: ConstantChoice, model: HeaderModel, names: dict[str, str]
) -> dict[str, Any]:
    spec = model.spec
    constant = choice.constant
    ctype = choice.ctype
    key = spec.bucket_key

    def claim(name: str, what: str) -> str:
        check_identifier(name, what)
        if name in names:
            raise ValueError(f"{what} {name} is also the name of {names[name]}; rename one")
        names[name] = f"{what} of {constant.name}"
        return name

    env = check_env_name(spec.env_prefix + constant.name)
    pre = {b.source for b in choice.buckets if b.source is not None and b.pre_tuned}
    comment = []
    doc_lines = comment_text(constant.doc or "", f"the doc of constant {constant.name}")
    first = f"{constant.name}: {doc_lines[0]}" if constant.doc else f"{constant.name}."
    comment += _wrap(first)
    for line in doc_lines[1:]:
        comment += _wrap(line) or [""]
    sources = ", then ".join(
        f"{s.bench}.{s.param}" + (" (pre-tuned: one value for every bucket)" if s in pre else "")
        for s in constant.sources
    )
    fallback = [b.bucket for b in choice.buckets if b.origin == "fallback"]
    kept = [b.bucket for b in choice.buckets if b.origin == "incumbent"]
    held = [b for b in choice.buckets if b.origin == "held"]
    tail = f"Source: {sources}."
    if fallback:
        tail += f" Fallback: {', '.join(fallback)}."
    if kept:
        tail += f" Kept from the checked-in header: {', '.join(kept)}."
    for b in held:
        tail += f" {b.bucket} held at {literal(ctype, b.value)}: {b.held_reason}."
    for b in choice.buckets:
        if b.origin != "profile" or b.challenger is None:
            continue
        if b.challenger_gain is not None:
            tail += (
                f" {b.bucket} kept at {literal(ctype, b.value)}: within noise (the profile's "
                f"winner {literal(ctype, b.challenger)} gains {_percent(b.challenger_gain)})."
            )
        else:
            tail += (
                f" {b.bucket} at {literal(ctype, b.value)}: not separated from the profile's "
                f"winner {literal(ctype, b.challenger)} (the verdicts left it unbeaten)."
            )
    tail += f" Override: {env}, {_range_text(ctype)}."
    comment += _wrap(tail)

    if ctype.kind == "enum":
        claim(ctype.spelling, "enum type")
    values = [
        {
            "name": claim(f"{constant.name}_{b.bucket}", "constant"),
            "literal": literal(ctype, b.value),
        }
        for b in choice.buckets
    ]
    low, high = range_literals(ctype) if ctype.kind in ("int", "real") else ("0", "1")
    return {
        "comment": _commented(comment),
        "kind": ctype.kind,
        "type": ctype.spelling,
        "enumerators": ", ".join(f"{e} = {i}" for i, e in enumerate(ctype.enumerators)),
        "names": ", ".join(f'"{e}"' for e in ctype.enumerators),
        "count": len(ctype.enumerators),
        "rows": values,
        "default_fn": claim(f"{constant.name.lower()}_default_for_{key}", "function"),
        "accessor": claim(f"{constant.name.lower()}_for_{key}", "function"),
        "branches": [
            {"edge": edge, "name": v["name"]}
            for (_, edge), v in zip(spec.buckets[:-1], values[:-1], strict=True)
        ],
        "last": values[-1]["name"],
        "env": env,
        "low": low,
        "high": high,
    }


def _overview(model: HeaderModel) -> list[str]:
    spec = model.spec
    key = spec.bucket_key
    parts = []
    previous = None
    for name, edge in spec.buckets:
        parts.append(
            f"{name} ({key} <= {edge})" if edge is not None else f"{name} ({key} > {previous})"
        )
        previous = edge
    kinds = {c.ctype.kind for c in model.constants}
    text = [
        f"Each constant has one value per bucket of {key}: {', '.join(parts)}. A bucket's value "
        "is the one with the best geometric mean of ratio-to-best over the bucket's measured "
        "cases.",
        f"<name>_for_{key}({key}) reads the environment variable {spec.env_prefix}<NAME> first, "
        "on every call: a value in the constant's range overrides every bucket, while an "
        "empty, unparsable or out-of-range value keeps the compiled one (0 is a value, not "
        '"unset").'
        + (" Booleans take 0 or 1." if "bool" in kinds else "")
        + (
            " Enumerations take the enumerator's name or its integer code."
            if "enum" in kinds
            else ""
        ),
    ]
    if any(
        b.challenger is not None and b.origin == "profile"
        for c in model.constants
        for b in c.buckets
    ):
        text[0] += (
            " A bucket keeps the incumbent unless the winner beats it beyond the measured noise "
            "(its comment says where it was kept)."
        )
    out: list[str] = []
    for paragraph in text:
        if out:
            out.append("")
        out += _wrap(paragraph)
    return out


def header_view(model: HeaderModel, provenance: Provenance) -> dict[str, Any]:
    """The checked values the template substitutes."""
    spec = model.spec
    try:
        namespace = check_namespace(spec.namespace)
        guard = check_identifier(spec.guard, "include guard") if spec.guard else None
        key = check_identifier(spec.bucket_key, "bucket key")
        names: dict[str, str] = {}
        constants = [_constant_view(c, model, names) for c in model.constants]
    except ValueError as exc:
        raise HeaderError(f"{spec.path}: cannot generate: {exc}") from None
    kinds = {c.ctype.kind for c in model.constants}
    includes = {"cerrno", "cstdint", "cstdlib"}
    if "enum" in kinds:
        includes.add("cstring")
    if "real" in kinds:
        includes.add("cmath")
    if any(c.ctype.spelling == "std::size_t" for c in model.constants):
        includes.add("cstddef")
    space_path = " ".join(comment_text(provenance.space_path, "the space path"))
    banner = (
        f"Generated by benchspace {provenance.benchspace_version} from profile "
        f"{provenance.profile_sha256[:12]} (space {space_path} {provenance.space_sha256[:12]}); "
        "do not edit values by hand, regenerate or use `benchspace port`."
    )
    return {
        "guard": guard,
        "banner": banner,
        "overview": _commented(_overview(model)),
        "includes": sorted(includes),
        "namespace": namespace,
        "needs_enum": "enum" in kinds,
        "needs_real": "real" in kinds,
        "key": key,
        "constants": constants,
    }


def render_header(model: HeaderModel, provenance: Provenance) -> str:
    """The header's text."""
    template = environment().get_template(TEMPLATE)
    try:
        return template.render(**header_view(model, provenance))
    except jinja2.UndefinedError as exc:  # a template/view mismatch: a bug, not user input
        raise RuntimeError(f"{TEMPLATE}: {exc}") from exc
