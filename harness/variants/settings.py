"""What the command line decides for variant builds: jobs, isolation, cores, the source folder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchspace.harness.execute.affinity import available_cpus
from benchspace.harness.project_paths import find_project_root
from benchspace.harness.spaces.model import Space
from benchspace.harness.variants.gate import split_cores
from benchspace.harness.variants.pipeline import BuildSettings
from benchspace.harness.variants.validate import count_variants


def build_settings(jobs: int, isolation: str, run_jobs: int, *, rebuild: bool) -> BuildSettings:
    """``pin`` when timed runs use one core (``--jobs 1``) and another is free for builds,
    else ``pause`` (``auto``); an explicit ``pin`` without a free core pauses too."""
    split = split_cores(available_cpus(), 1) if run_jobs == 1 else None
    if isolation in ("auto", "pin") and split is not None:
        return BuildSettings(
            jobs=jobs,
            isolation="pin",
            run_cpus=split.run_cpus,
            build_cpus=split.build_cpus,
            rebuild=rebuild,
        )
    return BuildSettings(jobs=jobs, isolation="pause", rebuild=rebuild)


def space_root(space: Space) -> Path:
    """``{source_dir}``: the project root holding the space file (else the file's folder)."""
    folder = space.path.resolve().parent
    return find_project_root(folder) or folder


def variant_plan_lines(space: Space, benches: Sequence[str]) -> list[str]:
    """``--plan``: per bench with compile-time parameters, the variants its sweep builds."""
    out = []
    total = 0
    for bench in space.benches:
        if bench.build is None or (benches and bench.name not in benches):
            continue
        n = count_variants(bench)
        total += n
        out.append(f"{bench.name}: {n} variants to build ({', '.join(bench.compile)})")
    if out:
        out.append(f"builds: {total} variants (fewer where the store holds them)")
    return out
