"""BatchLAS's profile layout: its ``args``, and what its measurements lack, recovered.

BatchLAS writes a row's ``args`` as the positional arguments in ``arg_spec`` order (integers:
tune.py's ``_args_from_spec``), and its ``sensitivity.py`` zips ``arg_spec`` with them;
`positional_args` gives benchspace's rows the same field. A BatchLAS measurement (version 0)
has no case index and no parameters, only its ``args`` and ``env``: its values are parsed here
(and nowhere else), and its case is the one of ``per_case_best`` whose fixed values its args
match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchspace.harness.spaces.model import ArgItem
from benchspace.harness.values import ParamValue, Value, parse_value


def positional_args(
    arg_spec: Sequence[str], argv: Sequence[str], values: Mapping[str, ParamValue]
) -> tuple[Value, ...]:
    """A row's ``args`` as BatchLAS writes them: per ``arg_spec`` entry, the parameter's value
    (from `values`: an integer stays an integer); for a template entry (``--n={n}``), or a
    value `values` lacks, its word of `argv` (whose last words are the arg_spec's)."""
    words = list(argv[-len(arg_spec) :]) if arg_spec and len(argv) >= len(arg_spec) else []
    out: list[Value] = []
    for i, text in enumerate(arg_spec):
        value = values.get(text) if ArgItem.parse(text).is_param else None
        if value is not None:
            out.append(value)
        elif words:
            out.append(words[i])
    return tuple(out)


def batchlas_scalar(text: object) -> ParamValue:
    """A BatchLAS argument or env value: an integer, else a number, else text."""
    if text is None or isinstance(text, bool | int | float):
        return text
    return parse_value(str(text))


def batchlas_values(
    args: Sequence[Value],
    env: Mapping[str, str | None],
    arg_spec: Sequence[str],
    env_spec: Mapping[str, str],
) -> dict[str, ParamValue]:
    """Every named value of a BatchLAS invocation: its args by name, then its env parameters."""
    values: dict[str, ParamValue] = {}
    for name, arg in zip(arg_spec, args, strict=False):
        values[name] = batchlas_scalar(arg)
    for param, variable in env_spec.items():
        if variable in env:
            values[param] = batchlas_scalar(env[variable])
    return values


def recover_case(
    args: Sequence[Value],
    env: Mapping[str, str | None],
    arg_spec: Sequence[str],
    env_spec: Mapping[str, str],
    cases: Sequence[tuple[int, Mapping[str, Value]]],
) -> tuple[int, Mapping[str, Value], dict[str, ParamValue]] | None:
    """(case index, fixed, params) of a BatchLAS measurement: the case its args match."""
    values = batchlas_values(args, env, arg_spec, env_spec)
    for index, fixed in cases:
        if all(values.get(k) == v for k, v in fixed.items()):
            params = {k: v for k, v in values.items() if k not in fixed}
            return index, dict(fixed), params
    return None
