"""``benchspace cutlass header --from-study DIR``: the tune-my-shapes header of a cuBLASLt
study folder (its selection run's winners), with its figure from the confirmation run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchspace.evaluation.deploy.kernel_header import GemmHeaderSpec, render_gemm_header
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.files import guard_output
from benchspace.harness.jsonio import write_text_atomic


def add_study_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from-study",
        default=None,
        metavar="DIR",
        help="generate from a cuBLASLt study folder (scripts/device/cublaslt_wide.sh): each "
        "shape runs the winner of its selection run a (CUTLASS shortlist, cublas:heuristic, "
        "pinned cuBLASLt configurations); prints the header's figure in confirmation run d",
    )


def from_study(args: argparse.Namespace, spec: GemmHeaderSpec) -> int:
    if args.check or args.from_profile:
        raise UsageError(
            "--from-study writes a study's header; leave out --check and --from-profile"
        )
    from benchspace.evaluation.cutlass.hardware import load_hardware
    from benchspace.evaluation.deploy.measured_header import measured_dispatch
    from benchspace.evaluation.deploy.study_header import (
        header_figure,
        render_header_figure,
        study_table,
    )
    from benchspace.evaluation.study.timing_runs import load_timing

    folder = Path(args.from_study)
    needed = [folder / "finalists.json", folder / "cublas.json"]
    missing = [p for p in needed if not p.is_file()]
    if missing or not list(folder.glob("timing_rows_*.csv.gz")):
        absent = ", ".join(str(p) for p in missing) or f"{folder}/timing_rows_*.csv.gz"
        raise BenchspaceError(
            f"{folder}: not a cuBLASLt study folder ({absent} missing); pass the folder that "
            "scripts/device/cublaslt_wide.sh's results unpack into"
        )
    try:
        finalists = json.loads(needed[0].read_text())
        version = int(json.loads(needed[1].read_text())["version"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = f"finalists.json or cublas.json unreadable ({exc})"
        raise BenchspaceError(f"{folder}: {why}") from exc
    try:
        rows = load_timing(folder)
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise BenchspaceError(f"{folder}: its timing_rows_*.csv.gz are unreadable ({exc})") from exc
    table = study_table(rows, finalists)
    if table.empty:
        raise BenchspaceError(f"{folder}: run a timed none of finalists.json's candidates")
    out = args.out or spec.path
    guard_output(out, option="--out", inputs=[(str(folder), "the study folder")])
    hw = load_hardware(args.hardware)
    origin = f"the selection winners of {folder} (run a), judged in its run d"
    judged = (
        "judged on the study's selection run a; its confirmation run d, which chose nothing, "
        "gives the header's figure (`benchspace cutlass header --from-study` prints it)"
    )
    dispatch = measured_dispatch(table, hw.sms, spec, origin, version, judged)
    write_text_atomic(out, render_gemm_header(dispatch))
    print(render_header_figure(header_figure(dispatch, rows)))
    print(f"wrote {out}: {len(dispatch.tree.leaves)} leaves, {len(dispatch.pinned)} pinned")
    return 0


def cublaslt_version(path: Path) -> int:
    """The 'version' of a --cublas-info JSON file; 0 when absent or unreadable."""
    try:
        value = json.loads(path.read_text()).get("version")
    except (OSError, ValueError, AttributeError):
        return 0
    return int(value) if isinstance(value, int) else 0
