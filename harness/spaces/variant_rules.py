"""Cross-field rules of compile-time parameters (``compile``) and their ``build`` command.

A compile parameter reaches the executable only through its build: never through argv or the
environment, and every case gives it a value (a fixed one or a grid), so that every
configuration names exactly one variant.
"""

from __future__ import annotations

import re

from benchspace.harness.spaces.model import BUILD_PLACEHOLDERS, Bench, template_fields
from benchspace.harness.spaces.param_rules import Where
from benchspace.harness.spaces.schema import did_you_mean, show

_TOKEN = re.compile(r"[^\s\"'\\]+")
"""What a compile-time string value may be: one C++ token, no blanks, quotes or backslashes."""


def variant_rules(bench: Bench, at: Where) -> list[str]:
    """The rules about ``compile`` and ``build`` of one bench."""
    out: list[str] = []
    if bench.compile and bench.build is None:
        out.append(
            f"{at('compile')}: compile-time parameters need a build; add "
            '"build": {"command": ["c++", "-O2", "{defines}", "-o", "{exe}", "bench.cc"]}'
        )
    if bench.build is not None:
        out += _command_rules(bench, at)
    if not bench.compile:
        return out
    for what, present in (
        ("pre_tune", bool(bench.pre_tune)),
        ("sample", bench.sample is not None),
        ("batch", bench.batch is not None),
    ):
        if present:
            out.append(
                f"{at(what)}: a bench with compile-time parameters cannot use {what!r} (one "
                f"process per variant); remove {what!r} or split the bench"
            )
    args = set(bench.arg_names())
    for k, name in enumerate(bench.compile):
        if name in args:
            out.append(
                f"{at('compile', k)}: {show(name)} is compile-time, so it cannot also be an "
                "argument; remove it from arg_spec (the build delivers it)"
            )
        if name in bench.env:
            out.append(
                f"{at('env', name)}: {show(name)} is compile-time, so it cannot also be an "
                "environment variable; remove it from env (the build delivers it)"
            )
        for case in bench.cases:
            if name not in case.fixed and name not in case.tune:
                known = set(case.fixed) | set(case.tune)
                out.append(
                    f"{at('cases', case.index)}: no value for {show(name)}, which compile "
                    f"declares; add a grid for it to this case's tune{did_you_mean(name, known)}"
                )
    compiled = set(bench.compile)
    for path, name, value in bench.located_values():
        if name in compiled and isinstance(value, str) and not _TOKEN.fullmatch(value):
            out.append(
                f"{at(*path)}: {show(value)} is not one C++ token; a compile-time value is "
                "written into -D and #define as is: drop blanks, quotes and backslashes"
            )
    return out


def _command_rules(bench: Bench, at: Where) -> list[str]:
    assert bench.build is not None
    out: list[str] = []
    names: set[str] = set()
    for k, word in enumerate(bench.build.command):
        try:
            fields = [f for _, f in template_fields(word)]
        except ValueError as exc:
            out.append(f"{at('build', 'command', k)}: {exc}; write {{{{ and }}}} for braces")
            continue
        for name in fields:
            if name is None:
                continue
            names.add(name)
            if name not in BUILD_PLACEHOLDERS:
                out.append(
                    f"{at('build', 'command', k)}: unknown placeholder {{{name}}}"
                    f"{did_you_mean(name, set(BUILD_PLACEHOLDERS))}; the command knows "
                    + ", ".join(f"{{{p}}}" for p in BUILD_PLACEHOLDERS)
                )
        if "{defines}" in word and word != "{defines}":
            out.append(
                f"{at('build', 'command', k)}: {{defines}} expands to several words, so it "
                "must be a word of its own; write it as a separate item"
            )
    if "exe" not in names:
        out.append(
            f"{at('build', 'command')}: the command never names {{exe}}, so the harness "
            'cannot find the executable it builds; write the output as "{exe}", e.g. '
            '"-o", "{exe}"'
        )
    if bench.compile and "defines" not in names and bench.build.deliver == "define":
        out.append(
            f"{at('build', 'command')}: the command never names {{defines}}, so the "
            'compile-time values never reach the compiler; add "{defines}" as one word'
        )
    return out
