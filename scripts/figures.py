#!/usr/bin/env python3
"""Figures that re-print themselves: every block of measured output in the docs is the output of
the command named beside it.

In README.md, evaluation/README.md and docs/*.md a block reads

    <!-- figures: NAME -->
    ```text
    $ COMMAND
    ...what COMMAND printed...
    ```
    <!-- /figures -->

and NAME is a key of FIGURES below (its command, and whether it is fast). Outside the blocks a
document carries no measured figure of its own (see ``stray_figures``): it quotes a block. ::

    python scripts/figures.py --write           # re-run the fast blocks' commands, rewrite them
    python scripts/figures.py --write --slow    # the slow ones too (minutes: studies, installs)
    python scripts/figures.py --write NAME ...  # only these (slow or not)
    python scripts/figures.py --check           # re-run the fast ones; exit 1 on any drift

A slow block (a long study, a fresh install, a figure of GPU data) is not re-run by
``--check``: it carries the date and commit it was printed at, so a reader sees how old it is,
and ``--check`` fails when that stamp is missing. ``--check`` also fails on a block whose name
is unknown and on a FIGURES entry no document shows.

Names of the blocks (keep them stable; add one per figure): see FIGURES.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = (
    "README.md",
    "evaluation/README.md",
    "evaluation/data/README.md",
    "docs/*.md",
    "examples/*/README.md",
    "benchmarks/*/README.md",
    "packages/*/README.md",
)
BLOCK = re.compile(
    r"(?P<open><!-- figures: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(?P<close><!-- /figures -->)",
    re.S,
)


@dataclass(frozen=True)
class Figure:
    """A block's command (run from the repository root) and whether ``--check`` re-runs it."""

    command: str
    fast: bool = True


FIGURES: dict[str, Figure] = {
    "batchlas-sensitivity": Figure(
        "benchspace sensitivity tests/data/batchlas_real/profile.json --noise 1"
    ),
    "cutlass-evaluate": Figure("benchspace cutlass evaluate evaluation/data/h200", fast=False),
    "install-size": Figure("bash scripts/install_size.sh", fast=False),
    "timing-long": Figure("benchspace cutlass summary evaluation/data/h200/timing_long"),
    "cublaslt-study": Figure("benchspace cutlass summary evaluation/data/h200/cublaslt"),
    "catalogue-bound": Figure("python scripts/catalogue_bound.py"),
    "cublaslt-wide": Figure("benchspace cutlass summary evaluation/data/h200/cublaslt_wide"),
    "cublaslt-rank": Figure("python scripts/cublaslt_rank.py", fast=False),
    "cublaslt-ranked": Figure("benchspace cutlass summary evaluation/data/h200/cublaslt_ranked"),
    "cublaslt-ranked-header": Figure(
        "benchspace cutlass header --from-study evaluation/data/h200/cublaslt_ranked"
        " --out evaluation/data/h200/cublaslt_ranked/gemm_kernels_tuned.hh"
    ),
    "cublaslt-wide-header": Figure(
        "benchspace cutlass header --from-study evaluation/data/h200/cublaslt_wide"
        " --out evaluation/data/h200/cublaslt_wide/gemm_kernels_tuned.hh"
    ),
    "tune-shapes-llm": Figure("python scripts/tune_shapes_summary.py"),
    "tune-shapes-ranked-h100": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/ranked_a"
        " evaluation/data/h100/tune_shapes/ranked_b --shortlist"
        " spaces/tune_shapes_ranked.shortlist.csv --ks 8 --listed"
    ),
    "tune-shapes-h100-64": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/ranked_a"
        " evaluation/data/h100/tune_shapes/ranked_b evaluation/data/h100/tune_shapes/rest_listed"
        " --shortlist spaces/tune_shapes_ranked.shortlist.csv"
        " spaces/tune_shapes_ranked_rest.shortlist.csv --ks 8 --listed"
    ),
    "tune-shapes-h100-64-ranked": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/ranked_a"
        " evaluation/data/h100/tune_shapes/ranked_b evaluation/data/h100/tune_shapes/rest_ranked/a"
        " evaluation/data/h100/tune_shapes/rest_ranked/c"
        " evaluation/data/h100/tune_shapes/rest_ranked/d"
        " --shortlist spaces/tune_shapes_ranked.shortlist.csv"
        " spaces/tune_shapes_ranked_rest.shortlist.csv --ks 8 --listed"
    ),
    "tune-shapes-h100-ranked-rerun": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/rest_ranked/b"
        " --shortlist spaces/tune_shapes_ranked_rest.shortlist.csv --ks 8 --listed"
    ),
    "tune-shapes-h100-union-plain": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/distinct"
        " --shortlist spaces/tune_shapes_ranked.shortlist.csv"
        " spaces/tune_shapes_ranked_rest.shortlist.csv --ks 8"
    ),
    "tune-shapes-h100-union-distinct": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/distinct"
        " --shortlist spaces/tune_shapes_distinct.shortlist.csv --ks 8"
    ),
    "tune-shapes-h100-wide-plain": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/wide"
        " --shortlist spaces/tune_shapes_ranked.shortlist.csv"
        " spaces/tune_shapes_ranked_rest.shortlist.csv --ks 8"
    ),
    "tune-shapes-h100-wide": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/wide"
        " --shortlist spaces/tune_shapes_wide.shortlist.csv --ks 8"
    ),
    "tune-shapes-h100-wide-rerun": Figure(
        "python scripts/tune_shapes_summary.py evaluation/data/h100/tune_shapes/wide_rerun"
        " --shortlist spaces/tune_shapes_wide.shortlist.csv --ks 8"
    ),
    "ship-check": Figure("python scripts/ship_summary.py evaluation/data/h200/ship"),
    "ship-check-v2-one-shape": Figure(
        "python scripts/ship_summary.py evaluation/data/h200/ship_v2"
    ),
    "ship-check-v2": Figure("python scripts/ship_summary.py evaluation/data/h200/ship_v2b"),
    "ship-check-v2-r31": Figure(
        "python scripts/ship_summary.py evaluation/data/h200/ship_v2b lib_r31"
    ),
    "ship-check-v2-ws32": Figure("python scripts/ship_summary.py evaluation/data/h200/ship_v2c"),
    "ship-check-v2-in-driver": Figure(
        "python scripts/ship_summary.py evaluation/data/h200/ship_v2d"
    ),
    "leaf-rule-cv": Figure("python scripts/leaf_rule_cv.py", fast=False),
    "shipped-decision": Figure(
        "benchspace cutlass evaluate evaluation/data/h200/v2 --shipped"
        " evaluation/data/models/h200_selector.json"
        " evaluation/data/models/h200_selector_v2_train.json",
        fast=False,
    ),
    "reduce-held-out": Figure(
        "python examples/cuda_reduce/speedup.py --profile evaluation/data/h200/reduce/profile.json"
        " --space spaces/h200_reduce.json --timed-in evaluation/data/h200/reduce/run_b/profile.json"
    ),
    "timing-study": Figure("benchspace cutlass summary evaluation/data/h200/timing"),
    "h200-summary": Figure("benchspace cutlass summary evaluation/data/h200"),
    "v2-summary": Figure("benchspace cutlass summary evaluation/data/h200/v2"),
    "v2-evaluate": Figure(
        "benchspace cutlass evaluate evaluation/data/h200/v2 --no-cv --no-header --repetitions 20",
        fast=False,
    ),
    "header-check": Figure(
        "benchspace cutlass header --model evaluation/data/models/h200_selector.json --check"
        " --dataset evaluation/data/h200/v2 --check-samples 1000",
        fast=False,
    ),
    "tune-shapes-report": Figure("benchspace cutlass tune-shapes --report evaluation/data/h200"),
    "tune-shapes-report-v2": Figure(
        "benchspace cutlass tune-shapes --report evaluation/data/h200/v2 --heat-s 0.5 --warmups 2"
    ),
    "tune-shapes-measured": Figure(
        "benchspace cutlass tune-shapes --measured evaluation/data/h200/v2"
        " --shortlist spaces/tune_shapes_eval.shortlist.csv"
    ),
    "cap-resolution": Figure(
        "python benchmarks/cap_resolution.py evaluation/data/demo_retunes/amd_2core_resolution"
        " evaluation/data/demo_retunes/referee"
    ),
    "demo-confirm": Figure(
        "python scripts/confirm_summary.py include/benchspace_demo/confirm.json"
    ),
    "v2-correlation": Figure("benchspace cutlass correlation evaluation/data/h200/v2 --limit 30"),
    "race-synthetic": Figure("python benchmarks/race.py --skip-demo", fast=False),
    "round-places": Figure(
        "python benchmarks/round_places.py --build-dir build --bench matvec --case 0 --config 0"
        " --rounds 60",
        fast=False,
    ),
    "reduce-confirm": Figure(
        "python examples/cuda_reduce/speedup.py --profile"
        " evaluation/data/h200/reduce/confirm/profile.json --space spaces/h200_reduce.json"
    ),
    "variant-pipeline-h200": Figure(
        "python benchmarks/variant_pipeline.py --from"
        " evaluation/data/h200/variants/pipeline_n32.json"
    ),
    "variant-pipeline-h200-2cpu": Figure(
        "python benchmarks/variant_pipeline.py --from"
        " evaluation/data/h200/variants/pipeline_2cpu.json"
    ),
    "variant-pipeline-2core": Figure(
        "python benchmarks/variant_pipeline.py --from evaluation/data/variants_2core/pipeline.json"
    ),
    "reduce-speedup": Figure(
        "python examples/cuda_reduce/speedup.py --profile evaluation/data/h200/reduce/profile.json"
        " --space spaces/h200_reduce.json"
    ),
}
STAMP = re.compile(r"^# printed \d{4}-\d{2}-\d{2} at commit \w+$", re.M)

# A measured figure: a number with the unit of a measurement (a percentage, a ratio, a time, a
# size in decimal units), a count "N of M" or a change "N → M". Sizes in binary units (KiB,
# MiB, GiB) are inputs and limits, not measurements; a number after a comparison sign
# (<, >, ≤, ≥, ±, <=, >=) is a goal, target or threshold.
FIGURE = re.compile(
    r"(?<![\w.\-/:=])(?P<num>\d+(?:\.\d+)?)"
    r"(?:(?P<unit>\s?%|\s?×|x(?![\w])"
    r"|\s?(?:ms|µs|us|ns|s|min|h|MB|GB|kB|KB|seconds?|minutes?|hours?)(?![\w/]))"
    r"|(?P<count> of \d+)(?![\w.,])|(?P<arrow> → \d+(?:\.\d+)?))"
)
THRESHOLD = re.compile(r"(?:[<>≤≥±]=?|<=|>=)\s*$")
# Inputs written with a unit, not measured: (the figure, the words around it) as they stand.
INPUTS: tuple[tuple[str, str], ...] = (
    ("50 ms", "benchmarks of 50 ms"),
    ("5 s", "(5 s timeout)"),
)


def figures_in(text: str) -> list[tuple[int, str]]:
    """(line number, figure) of every measured figure in ``text`` (see FIGURE)."""
    out: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in FIGURE.finditer(line):
            if THRESHOLD.search(line[: m.start()]):
                continue
            if not any(m[0] == figure and words in line for figure, words in INPUTS):
                out.append((number, m[0]))
    return out


def _key(figure: str) -> str:
    """What a quote must match in a block: the number, with its unit where it is a % or a
    time (a ratio's × is left out: blocks print ratios bare)."""
    m = FIGURE.fullmatch(figure)
    if m is None or m["count"] or m["arrow"]:
        return re.sub(r"\s", "", figure)
    unit = (m["unit"] or "").strip()
    return m["num"] + ("" if unit in ("×", "x") else unit)


def block_figures(texts: list[str]) -> set[str]:
    """The keys of every number the blocks of ``texts`` print (a bare number counts as a
    ratio)."""
    keys: set[str] = set()
    for text in texts:
        for m in BLOCK.finditer(text):
            body = m["body"]
            keys |= {_key(f) for _, f in figures_in(body)}
            keys |= set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.%])", body))
    return keys


def stray_figures(text: str, quoted: set[str]) -> list[tuple[int, str]]:
    """The measured figures of ``text`` outside its blocks that no block prints (``quoted``:
    the keys of ``block_figures``): each must move into a block, quote one, or go."""
    outside = BLOCK.sub(lambda m: "\n" * m[0].count("\n"), text)
    return [(n, f) for n, f in figures_in(outside) if _key(f) not in quoted]


def documents() -> list[Path]:
    """The documents whose blocks are kept."""
    out: list[Path] = []
    for pattern in DOCS:
        out += sorted(ROOT.glob(pattern))
    return [p for p in out if p.is_file()]


def run(figure: Figure) -> str:
    """The command's output, as the block shows it (with ``$ COMMAND`` first)."""
    argv = shlex.split(figure.command)
    if argv[0] == "benchspace":
        argv = [sys.executable, "-m", "benchspace.harness.cli", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "NO_COLOR": "1"}
    proc = subprocess.run(
        argv,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600 if figure.fast else 3600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"figures: `{figure.command}` failed ({proc.returncode}):\n{proc.stderr}")
    text = proc.stdout.rstrip("\n")  # stderr is progress and notes, not the figure
    if not figure.fast:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        text += f"\n# printed {dt.date.today().isoformat()} at commit {commit or 'unknown'}"
    return f"```text\n$ {figure.command}\n{text}\n```\n"


def main(argv: list[str] | None = None) -> int:
    """Rewrite or check the blocks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only these figures")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="re-run the fast ones; no writes")
    mode.add_argument("--write", action="store_true", help="re-run and rewrite the blocks")
    parser.add_argument("--slow", action="store_true", help="with --write: the slow ones too")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in FIGURES]
    if unknown:
        print(f"figures: unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
        return 1
    problems: list[str] = []
    shown: set[str] = set()
    for doc in documents():
        text = doc.read_text(encoding="utf-8")
        rel = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc

        def redo(m: re.Match[str], doc: Path = rel) -> str:
            name = m["name"]
            shown.add(name)
            figure = FIGURES.get(name)
            if figure is None:
                problems.append(f"{doc}: block {name!r} names no figure of scripts/figures.py")
                return m[0]
            if args.check and not figure.fast:
                if not STAMP.search(m["body"]):
                    problems.append(
                        f"{doc}: slow figure {name!r} carries no '# printed DATE at commit C' "
                        "line; run python scripts/figures.py --write " + name
                    )
                return m[0]
            if args.names and name not in args.names:
                return m[0]
            if not args.names and not figure.fast and not args.slow:
                return m[0]
            body = run(figure)
            if args.check and body != m["body"]:
                problems.append(
                    f"{doc}: figure {name!r} drifted; run python scripts/figures.py --write"
                )
            return m["open"] + body + m["close"]

        new = BLOCK.sub(redo, text)
        if not args.check and new != text:
            doc.write_text(new, encoding="utf-8")
            print(f"figures: rewrote {rel}")
    texts = {doc: doc.read_text(encoding="utf-8") for doc in documents()}
    quoted = block_figures(list(texts.values()))
    for doc, text in texts.items():
        for number, figure in stray_figures(text, quoted):
            rel = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc
            problems.append(
                f"{rel}:{number}: measured figure {figure!r} outside a block and printed by "
                "none; move it into a block (a FIGURES entry), quote a block, or remove it"
            )
    missing = sorted(set(FIGURES) - shown)
    if missing and not args.names:
        problems.append(f"figures shown in no document: {', '.join(missing)}")
    for problem in problems:
        print(f"figures: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
