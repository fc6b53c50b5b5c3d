"""BatchLAS profiles (version 0): what their measurements lack, recovered from what they have.

A BatchLAS measurement has no case index and no parameters, only its ``args`` and ``env`` as
text: its values are parsed here (and nowhere else), and its case is the one of
``per_case_best`` whose fixed values its args match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.values import ParamValue, Value, parse_value


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
