"""Every C++ name and comment a space's ``header`` section puts into the generated header.

``validate`` (through the space rules) refuses what the generator would: a name that is not an
identifier, a keyword, a reserved name, a macro of the compiler or of the included headers, two
declarations of one name, a doc the comment cannot hold. The generator (`generators.render`)
derives the same names; this module says which they are.
"""

from __future__ import annotations

from benchspace.harness.cxx_types import check_comment, check_identifier, enum_type_name
from benchspace.harness.errors import json_path
from benchspace.harness.spaces.model import HeaderSpec

ACCESSOR_LOCALS = frozenset({"v", "names", "detail"})
"""Names the accessors' bodies use (a local, a local array, the helpers' namespace): a bucket
key spelled so would shadow them."""


def declared_names(spec: HeaderSpec) -> list[tuple[str, str, str]]:
    """(identifier, what it is, JSON path of its source) for every name the header declares."""
    names: list[tuple[str, str, str]] = []
    for part in spec.namespace.split("::"):
        names.append((part, "namespace part", json_path("header", "namespace")))
    if spec.guard:
        names.append((spec.guard, "include guard", json_path("header", "guard")))
    key = spec.bucket_key
    seen: set[str] = set()
    for i, constant in enumerate(spec.constants):
        if constant.name in seen:
            continue  # a constant defined twice is its own problem (space_header_rules)
        seen.add(constant.name)
        here = json_path("header", "constants", i, "name")
        if constant.type == "enum":
            names.append((enum_type_name(constant.name), "generated enum type", here))
        for bucket, _ in spec.buckets:
            names.append((f"{constant.name}_{bucket}", "generated constant", here))
        lower = constant.name.lower()
        names.append((f"{lower}_default_for_{key}", "generated function", here))
        names.append((f"{lower}_for_{key}", "generated function", here))
    return names


def name_problems(spec: HeaderSpec) -> list[str]:
    """One line per name or doc of the header section the generated header cannot declare."""
    out: list[str] = []
    key = spec.bucket_key
    try:
        check_identifier(key, "bucket key")
        if key in ACCESSOR_LOCALS:
            raise ValueError(
                f"bucket key {key!r} is a name the accessors use inside (one of "
                + ", ".join(sorted(ACCESSOR_LOCALS))
                + "); name the size parameter otherwise"
            )
    except ValueError as exc:
        out.append(f"{json_path('header', 'bucket_key')}: {exc}")
    claimed: dict[str, str] = {}
    failed: set[str] = set()
    for name, what, where in declared_names(spec):
        if where in failed and where.startswith("$.header.constants"):
            continue  # one line per constant: its other names fail the same way
        try:
            check_identifier(name, what)
        except ValueError as exc:
            failed.add(where)
            out.append(f"{where}: {exc}")
            continue
        if name in claimed:
            failed.add(where)
            out.append(f"{where}: {what} {name} is also declared by {claimed[name]}; rename one")
            continue
        if what != "namespace part":  # a namespace may share a name with what it holds
            claimed[name] = where.removesuffix(".name")
    for i, constant in enumerate(spec.constants):
        for k, enumerator in enumerate(constant.enum_values or ()):
            try:
                check_identifier(enumerator, "enumerator")
            except ValueError as exc:
                out.append(f"{json_path('header', 'constants', i, 'values', k)}: {exc}")
        if constant.doc:
            try:
                check_comment(constant.doc, "the doc")
            except ValueError as exc:
                out.append(f"{json_path('header', 'constants', i, 'doc')}: {exc}")
    return out
