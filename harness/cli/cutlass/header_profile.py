"""``benchspace cutlass header --from-profile PROFILE``: the header from a tune-shapes profile's
measured winners (each measured shape its own leaf), with the figures of rounds that did not
pick them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchspace.evaluation.deploy.kernel_header import GemmHeaderSpec, render_gemm_header
from benchspace.harness.cli.cutlass.header_study import add_study_argument, cublaslt_version
from benchspace.harness.errors import UsageError
from benchspace.harness.files import guard_output
from benchspace.harness.jsonio import write_text_atomic
from benchspace.harness.profiles.model import Profile
from benchspace.harness.project_paths import add_root_arguments


def profile_arguments(parser: argparse.ArgumentParser) -> None:
    add_study_argument(parser)
    parser.add_argument(
        "--from-profile",
        default=None,
        metavar="PROFILE",
        help="generate from the measured winners of a tune-shapes profile instead of the "
        "selector (each measured shape its own leaf; cublas may win)",
    )
    parser.add_argument(
        "--shortlist",
        default=None,
        help="with --from-profile: the tune-shapes shortlist CSV, to keep only the top --topk",
    )
    parser.add_argument(
        "--topk", type=int, default=None, help="with --shortlist: candidates per shape kept"
    )
    parser.add_argument(
        "--no-listed",
        action="store_true",
        help="with --from-profile: leave out the pinned cublaslt: configurations of cuBLASLt's "
        "listed space (tune-shapes --cublaslt-space): the header of the shortlist and "
        "cuBLASLt's own top N alone, from the same rounds",
    )
    parser.add_argument(
        "--hardware", default="h200", help="with --from-profile: the SM count's descriptor"
    )
    parser.add_argument(
        "--store",
        default=None,
        help="with --from-profile: the run's measurement store, whose cublas_algo columns make "
        "cublas:algo<i> winners pinned cuBLASLt entries (default: <profile stem>.store.sqlite "
        "or store.sqlite[.gz] beside the profile; 'none': cublas:algo<i> only reported)",
    )
    parser.add_argument(
        "--cublaslt-version",
        type=int,
        default=None,
        help="with --from-profile: cublasLtGetVersion() of the run (default: the 'version' of "
        "cublas.json beside the profile, as scripts/device/tune_shapes.sh writes it)",
    )
    add_root_arguments(parser)


def _measured(args: argparse.Namespace) -> tuple[Any, Any, Profile, Path | None]:
    """The profile's measured table (restricted to the shortlist's top K), its full summary,
    the profile and the store the cuBLASLt attributes came from."""
    from benchspace.evaluation.deploy.measured_header import (
        measured_table,
        restrict_to_top,
        shape_summary,
    )
    from benchspace.evaluation.deploy.shortlist import read_shortlist
    from benchspace.evaluation.deploy.store_algos import cublas_algos
    from benchspace.harness.profiles.read import load_profile

    profile = load_profile(args.from_profile)
    store = _store(args)
    algos = cublas_algos(store, _bench(profile)) if store is not None else {}
    table = measured_table(profile, algos=algos)
    if args.topk is not None and not args.shortlist:
        raise UsageError("--topk needs --shortlist (the tune-shapes <stem>.shortlist.csv)")
    full = shape_summary(table)
    if args.no_listed:
        from benchspace.evaluation.deploy.measured_header import drop_listed

        table = drop_listed(table)
    if args.shortlist:
        short = read_shortlist(args.shortlist)
        table = restrict_to_top(table, short, args.topk or int(short["rank"].max()))
    return table, full, profile, store


def from_profile(args: argparse.Namespace, spec: GemmHeaderSpec, out: str | Path) -> int:
    """The header from measured winners; one line per shape."""
    from benchspace.evaluation.cutlass.hardware import load_hardware
    from benchspace.evaluation.deploy.measured_header import measured_dispatch

    table, full, profile, store = _measured(args)
    hw = load_hardware(args.hardware)
    origin = (
        f"the measured winners of {Path(args.from_profile).name} ({profile.sha256[:12]})"
        + (f", top {args.topk} of each shortlist" if args.topk else "")
        + (", no listed cuBLASLt configuration" if args.no_listed else "")
    )
    guard_output(
        out,
        option="--out",
        inputs=[
            (args.from_profile, "the profile"),
            (args.shortlist, "the shortlist"),
            (args.space, "the space"),
        ],
    )
    version = args.cublaslt_version
    if version is None:
        version = cublaslt_version(Path(args.from_profile).parent / "cublas.json")
    dispatch = measured_dispatch(table, hw.sms, spec, origin, version)
    write_text_atomic(out, render_gemm_header(dispatch))
    _report_measured(args, spec, out, dispatch, table, full, profile, store)
    return 0


def _report_measured(
    args: argparse.Namespace,
    spec: GemmHeaderSpec,
    out: str | Path,
    dispatch: Any,
    table: Any,
    full: Any,
    profile: Profile,
    store: Path | None,
) -> None:
    """The winners, the prefix regret, where the winners were judged, the position warning
    and the header's line."""
    from benchspace.evaluation.deploy.measured_header import dispatch_hits, shape_summary
    from benchspace.evaluation.deploy.shortlist_format import render_prefix_regret, render_winners

    summary = shape_summary(table)
    hits = dispatch_hits(dispatch, summary)
    print("\n".join(render_winners(summary, hits)))
    print(render_prefix_regret(summary, full, args.topk))
    from benchspace.evaluation.deploy.pick_figures import (
        pick_figures,
        render_pick_figures,
        selection_medians,
        selection_table,
    )

    picks = pick_figures(table, selection_table(table, selection_medians(profile)))
    print(render_pick_figures(picks, args.topk))
    confirmed = sum(w.source == "confirmation" for w in summary)
    print(
        f"winners judged on the confirmation rounds for {confirmed} of {len(summary)} shapes"
        + ("" if confirmed == len(summary) else " (the rest: the selection rounds, no --confirm)")
        + (
            f"; cuBLASLt configurations from {store}"
            if store
            else "; no store: cublas:algo<i> only reported"
        )
    )
    if store is not None:
        from benchspace.evaluation.deploy.store_algos import sentinel_ratios
        from benchspace.evaluation.study.position import warning_line

        warning = warning_line(sentinel_ratios(store, _bench(profile)))
        if warning:
            print(warning)
    print(
        f"{out}: {sum(hits)} of {len(summary)} measured shapes dispatch their winner; "
        f"{len(dispatch.tree.leaves)} leaves ({len(summary)} exact-match), "
        f"{dispatch.cublas_leaves} leaves cublas, {len(dispatch.pinned)} pinned cuBLASLt "
        f"entries; override with {spec.env_var}=<kernel name>"
    )


def _bench(profile: Profile) -> str:
    names = list(profile.results)
    return names[0] if len(names) == 1 else "gemm_tune_shapes"


def _store(args: argparse.Namespace) -> Path | None:
    from benchspace.evaluation.deploy.store_algos import store_beside

    if args.store == "none":
        return None
    if args.store:
        path = Path(args.store)
        if not path.is_file():
            raise UsageError(f"--store {path}: no such file; pass the run's store or 'none'")
        return path
    return store_beside(Path(args.from_profile))
