"""``tune --validate`` and ``--plan`` for benches with compile-time parameters.

Validation builds the first configuration's variant into a scratch folder (nothing is recorded
in the store) and probes the executable it built like any other bench's.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from benchspace.harness.execute.invoke import RunOptions, resolve_values
from benchspace.harness.execute.probe import ProbeResult, first_config, probe_bench
from benchspace.harness.plan import plan_main
from benchspace.harness.spaces.model import Bench
from benchspace.harness.variants.build import build_variant
from benchspace.harness.variants.identity import compiler_identity, input_hashes
from benchspace.harness.variants.spec import FIRST_TIMEOUT_S, compile_values, variant_key
from benchspace.harness.variants.sweep import group_tasks


def count_variants(bench: Bench) -> int:
    """How many variants a sweep of ``bench`` builds (at most: some may be in the store)."""
    if bench.build is None:
        return 0
    return len(group_tasks(bench, list(plan_main(bench, {}).tasks)))


def probe_variant(bench: Bench, options: RunOptions, *, source_dir: Path) -> ProbeResult:
    """Build the first configuration's variant and run one cheap invocation of it."""
    assert bench.build is not None
    values = compile_values(bench, resolve_values(bench.cases[0], first_config(bench)))
    compiler = compiler_identity(bench.build.command[0])
    inputs = input_hashes(bench.build.inputs, source_dir, where=f"$.spaces[{bench.position}].build")
    key = variant_key(bench, values, compiler=compiler, inputs=inputs)
    timeout = bench.build.timeout_s or FIRST_TIMEOUT_S
    with tempfile.TemporaryDirectory(prefix="benchspace-validate-") as scratch:
        attempt = build_variant(
            bench,
            values,
            key=key,
            root=Path(scratch),
            source_dir=source_dir,
            build_dir=options.build_dir.resolve(),
            limit=lambda: timeout,
            compiler=compiler,
        )
        label = " ".join(f"{n}={v}" for n, v in values)
        if not attempt.ok:
            last = (attempt.log_tail.strip().splitlines() or ["(no output)"])[-1]
            return ProbeResult(
                bench=bench.name,
                state="failed",
                message=f"{attempt.status} ({label}, {attempt.seconds:.1f} s): {last}",
            )
        exe = Path(attempt.path) / Path(bench.exe).name
        result = probe_bench(replace(bench, exe=str(exe)), options, skip_missing=False)
    built = f"built {label} in {attempt.seconds:.1f} s; "
    return replace(result, message=built + result.message)
