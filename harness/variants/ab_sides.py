"""``ab`` on a bench with compile-time parameters: build the A and the B variant, then compare.

A's compile-time values come from the case (fixed values) and ``--param``, with ``--compile-a``
on top; B's are A's with ``--compile-b`` on top. Both variants are built (or found) through a
store's ``builds`` table like a sweep's, so an A/B after a sweep builds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from benchspace.harness.errors import UsageError
from benchspace.harness.execute.invoke import resolve_values
from benchspace.harness.spaces.model import Bench
from benchspace.harness.store import Store
from benchspace.harness.values import Value
from benchspace.harness.variants.pipeline import BuildSettings, Variants
from benchspace.harness.variants.spec import CompileValues, compile_values, values_label
from benchspace.harness.variants.sweep import VARIANTS_DIR


def side_values(
    bench: Bench, case_index: int, params: Mapping[str, Value], over: Mapping[str, Value]
) -> CompileValues:
    """One side's compile-time values; a usage error names any that is missing or unknown."""
    unknown = [name for name in over if name not in bench.compile]
    if unknown:
        raise UsageError(
            f"--compile-a/--compile-b: {', '.join(unknown)} is not a compile-time parameter of "
            f"bench {bench.name!r} (it has {', '.join(bench.compile)})"
        )
    values = {**resolve_values(bench.cases[case_index], dict(params)), **over}
    missing = [name for name in bench.compile if values.get(name) is None]
    if missing:
        raise UsageError(
            f"bench {bench.name!r} case {case_index}: no value for compile-time "
            f"{', '.join(missing)}; pass --param {missing[0]}=VALUE (or --compile-a/--compile-b)"
        )
    return compile_values(bench, values)


def build_sides(
    bench: Bench,
    sides: tuple[CompileValues, CompileValues],
    *,
    store_path: Path,
    build_dir: Path,
    source_dir: Path,
) -> tuple[Path, Path]:
    """The executables of the A and B variants, built where the store has none."""
    with Store(store_path, lock=True) as store:
        variants = Variants(
            bench,
            store,
            root=(build_dir / VARIANTS_DIR).absolute(),
            source_dir=source_dir,
            build_dir=build_dir.resolve(),
            settings=BuildSettings(jobs=2),
        )
        exes = []
        for values, attempt in variants.stream(list(dict.fromkeys(sides))):
            if not attempt.ok:
                last = (attempt.log_tail.strip().splitlines() or ["(no output)"])[-1]
                raise UsageError(
                    f"bench {bench.name!r}: variant {values_label(values)} did not build "
                    f"({attempt.status}): {last}"
                )
            exes.append((values, variants.exe_of(attempt)))
    found = dict(exes)
    return found[sides[0]], found[sides[1]]
