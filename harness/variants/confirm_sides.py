"""``confirm`` of a compile-time constant: the incumbent's variant (A) against the candidate's (B).

An environment override cannot change a value the preprocessor fixed, so where a change's
constant feeds a compile-time parameter of the consumer bench (its header ``sources`` name that
bench and one of its ``compile`` parameters), confirm builds two variants instead: A with the
incumbent value (``env_old``), B with the candidate (``env_new``). The consumer's other
compile-time parameters take, in order: ``--compile NAME=VALUE``, the checked-in header's value
for the change's bucket (of the constant that feeds them), the case's fixed value. Both
variants are built (or found) through the same store ``builds`` table as a sweep's and ``ab``'s,
so a confirm after a sweep builds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from benchspace.harness.abtest.ab import Side, case_invocation
from benchspace.harness.errors import UsageError
from benchspace.harness.execute.invoke import Invocation, RunOptions
from benchspace.harness.spaces.model import Bench, Consumer, Space
from benchspace.harness.values import Value, parse_value
from benchspace.harness.variants.ab_sides import build_sides
from benchspace.harness.variants.settings import space_root
from benchspace.harness.variants.spec import CompileValues, compile_values


@dataclass(frozen=True, kw_only=True)
class VariantPair:
    """The two sides of a compile-time change and the values each variant was built with."""

    a: Side
    b: Side
    a_values: CompileValues
    b_values: CompileValues
    direction: str


@dataclass(frozen=True, kw_only=True)
class CompileConfirm:
    """What confirm needs to build the two variants of a compile-time change."""

    space: Space
    build_dir: Path
    store_path: Path
    """The store whose ``builds`` table finds (and records) the variants."""
    given: Mapping[str, Value] = field(default_factory=dict)
    """``--compile NAME=VALUE``: values of the other compile-time parameters, both sides."""
    incumbents: Mapping[str, Mapping[str, Value]] = field(default_factory=dict)
    """The checked-in header's values: constant -> bucket -> value."""

    def compile_param(self, constant: str, bench: Bench) -> str | None:
        """The compile-time parameter of `bench` that `constant` feeds (None: none does)."""
        if bench.build is None or self.space.header is None:
            return None
        for c in self.space.header.constants:
            if c.name == constant:
                for source in c.sources:
                    if source.bench == bench.name and source.param in bench.compile:
                        return source.param
        return None

    def _feeding(self, bench: Bench, param: str) -> str | None:
        assert self.space.header is not None
        for c in self.space.header.constants:
            if any(s.bench == bench.name and s.param == param for s in c.sources):
                return c.name
        return None

    def values(
        self, bench: Bench, case_index: int, bucket: str, param: str, text: str | None, side: str
    ) -> CompileValues:
        """One side's compile-time values: `param` from the change, the others resolved."""
        if text is None:
            raise UsageError(
                f"confirm: {bench.name} case {case_index}: the checked-in header has no value "
                f"for the compile-time {param} in bucket {bucket}, so side {side} has no variant; "
                "generate the header once and check it in, then confirm"
            )
        fixed = bench.cases[case_index].fixed
        chosen: dict[str, Value] = {param: parse_value(text)}
        for name in bench.compile:
            if name == param:
                continue
            constant = self._feeding(bench, name)
            header_value = self.incumbents.get(constant or "", {}).get(bucket)
            value = self.given.get(name, header_value if header_value is not None else None)
            if value is None:
                value = fixed.get(name)
            if value is None:
                raise UsageError(
                    f"confirm: {bench.name} case {case_index}: no value for the compile-time "
                    f"{name} (the checked-in header has none for bucket {bucket}); pass "
                    f"--compile {name}=VALUE"
                )
            chosen[name] = value
        return compile_values(bench, chosen)

    def sides(
        self,
        bench: Bench,
        case_index: int,
        *,
        constant: str,
        bucket: str,
        old: str | None,
        new: str,
        options: RunOptions,
    ) -> VariantPair:
        """A on the incumbent's variant, B on the candidate's: both built where missing."""
        param = self.compile_param(constant, bench)
        assert param is not None
        a = self.values(bench, case_index, bucket, param, old, "A")
        b = self.values(bench, case_index, bucket, param, new, "B")
        exe_a, exe_b = build_sides(
            bench,
            (a, b),
            store_path=self.store_path,
            build_dir=self.build_dir,
            source_dir=space_root(self.space),
        )

        tuned = bench.cases[case_index].tune

        def side(label: str, values: CompileValues, exe: Path) -> Side:
            params = {k: v for k, v in values if k in tuned}  # a fixed one is no --param
            inv: Invocation = case_invocation(
                bench, case_index, params=params, options=options, exe=str(exe)
            )
            return Side(label=label, invocation=inv)

        return VariantPair(
            a=side("A", a, exe_a),
            b=side("B", b, exe_b),
            a_values=a,
            b_values=b,
            direction=bench.direction,
        )

    def pair(
        self,
        bench_name: str | None,
        case_index: int | None,
        c: Consumer,
        *,
        constant: str,
        bucket: str,
        old: str | None,
        new: str,
        options: RunOptions,
    ) -> VariantPair | None:
        """The variants of a change of `constant` at a consumer's case; None where an env
        override delivers it (an executable consumer, or a bench none of whose compile
        parameters it feeds)."""
        if bench_name is None or case_index is None:
            return None
        bench = self.space.bench(bench_name)
        if self.compile_param(constant, bench) is None:
            return None
        bench = replace(
            bench,
            row=c.row if c.row is not None else bench.row,
            metric=c.metric or bench.metric,
            direction=c.direction or bench.direction,
        )
        return self.sides(
            bench, case_index, constant=constant, bucket=bucket, old=old, new=new, options=options
        )


def unknown_given(space: Space, given: Mapping[str, Value]) -> list[str]:
    """``--compile`` names that are no compile-time parameter of any bench of the space."""
    known = {name for bench in space.benches for name in bench.compile}
    return [name for name in given if name not in known]
