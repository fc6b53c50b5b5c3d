"""Shortlist the selector's top K candidates per user shape as a space to measure (+ cuBLAS)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchspace.evaluation.cutlass.batches import read_kernel_list
from benchspace.evaluation.cutlass.catalogue import WIDE_LEVEL
from benchspace.evaluation.deploy.ranked_candidates import DEFAULT_RANKED, DEFAULT_SCREEN
from benchspace.evaluation.deploy.shortlist import (
    DEFAULT_CUBLAS_ALGOS,
    kernels_to_build,
    shortlist,
    shortlist_space,
)
from benchspace.evaluation.deploy.user_shapes import read_user_shapes
from benchspace.evaluation.selector.extra_kernels import with_extra_kernels
from benchspace.evaluation.selector.model_file import SHIPPED_SELECTOR, load_selector
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.files import guard_output
from benchspace.harness.jsonio import write_json_atomic, write_text_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the shapes, K, the selector, the outputs and ``--report``."""
    _shortlist_arguments(parser)
    _cublaslt_arguments(parser)
    _mode_arguments(parser)


def _shortlist_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "shapes",
        nargs="*",
        help="files of 'M N K' lines or JSON shape sets ({'shapes'|'train'|'eval': [...]})",
    )
    parser.add_argument(
        "--shape", action="append", default=[], metavar="MxNxK", help="a shape (repeatable)"
    )
    parser.add_argument("--topk", type=int, default=8, help="candidates per shape (default: 8)")
    parser.add_argument(
        "--per-kernel",
        type=int,
        default=None,
        metavar="N",
        help="at most N knob settings (raster, swizzle) of one kernel per shape, its best-scored "
        "first, so that the K slots reach more kernels (default: no limit, score order)",
    )
    parser.add_argument(
        "--model",
        default=str(SHIPPED_SELECTOR),
        help=f"saved selector (default: the shipped {SHIPPED_SELECTOR.name}, the better on "
        "held-out shapes)",
    )
    parser.add_argument(
        "--extra-kernels",
        type=Path,
        default=None,
        metavar="FILE",
        help="kernels beyond the selector's pool (procedural names, one a line, e.g. the 128x160 "
        "and 128x192 tiles of the wide-tile level), scored from their static facts beside it",
    )
    parser.add_argument("--layout", default=None, help="operand layout (default: the only one)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("spaces/tune_shapes.json"),
        help="the space file (default: spaces/tune_shapes.json); beside it <stem>.kernels.txt "
        "(the kernels to build) and <stem>.shortlist.csv (each shape's ranked shortlist)",
    )
    parser.add_argument(
        "--cublas-algos",
        type=int,
        default=DEFAULT_CUBLAS_ALGOS,
        help="cuBLASLt configurations: cublas:heuristic and cublas:algo0..N-1 (default: "
        f"{DEFAULT_CUBLAS_ALGOS}; -1: no cuBLAS, for a driver before v2)",
    )
    parser.add_argument(
        "--heat-s", type=float, default=1.0, help="heating per shape (s; default: 1)"
    )
    parser.add_argument(
        "--warmups", type=int, default=5, help="warm-ups per configuration (default: 5)"
    )


def _cublaslt_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cublaslt-space",
        type=Path,
        default=None,
        metavar="CSV",
        help="cuBLASLt's listed configurations per shape (space.csv.gz of "
        "scripts/device/cublaslt_space.py): the ranker's top --cublaslt-ranked of each shape "
        "join its case as pinned configurations (driver v4)",
    )
    parser.add_argument(
        "--cublaslt-ranked",
        type=int,
        default=DEFAULT_RANKED,
        metavar="K",
        help=f"with --cublaslt-space: configurations per shape (default: {DEFAULT_RANKED})",
    )
    parser.add_argument(
        "--ranker-screen",
        type=Path,
        default=DEFAULT_SCREEN,
        metavar="DIR",
        help="with --cublaslt-space: the screen the ranker learns from (default: "
        f"{DEFAULT_SCREEN})",
    )


def _mode_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--report",
        default=None,
        metavar="DATASET",
        help="also print regret and GPU time against K (1, 2, 4, 8, 16) on DATASET's held-out "
        "exhaustive shapes (e.g. evaluation/data/h200)",
    )
    parser.add_argument(
        "--measured",
        default=None,
        metavar="DATASET",
        help="print the K curve measured on the GPU: a v2 dataset whose evaluation sweeps timed "
        "the shortlist (--shortlist) in the oracle's rounds (e.g. evaluation/data/h200/v2)",
    )
    parser.add_argument(
        "--shortlist",
        type=Path,
        default=None,
        help="with --measured: the shortlist csv (e.g. spaces/tune_shapes_eval.shortlist.csv)",
    )
    parser.add_argument(
        "--measured-out",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --measured: also write per_shape.csv and k_curve.png (the plot extra) here",
    )
    parser.add_argument("--hardware", default=None, help="with --report: hardware descriptor")
    parser.add_argument("--seed", type=int, default=0, help="with --report: training seed")


def _inputs(args: argparse.Namespace) -> list[tuple[str | Path | None, str]]:
    return [
        *((s, "a shapes file") for s in args.shapes),
        (args.model, "the selector"),
        (args.cublaslt_space, "the listed cuBLASLt space"),
    ]


def _outputs(space: Path) -> tuple[Path, Path]:
    stem = space.with_suffix("")
    return Path(f"{stem}.kernels.txt"), Path(f"{stem}.shortlist.csv")


def _guard(args: argparse.Namespace) -> None:
    """Every file the command will write, through the one output guard, before the work."""
    if args.measured and args.measured_out is not None:
        for name in ("per_shape.csv", "k_curve.png"):
            guard_output(args.measured_out / name, option="--measured-out",
                         inputs=[(args.shortlist, "the shortlist")])  # fmt: skip
    if args.shapes or args.shape:
        kernels_out, shortlist_out = _outputs(args.out)
        for path, option in ((args.out, "--out"), (kernels_out, "--out's kernel list"),
                             (shortlist_out, "--out's shortlist")):  # fmt: skip
            guard_output(path, option=option, inputs=_inputs(args))


def run(args: argparse.Namespace) -> int:
    """Write the space, the kernel list and the shortlist; print the report if asked."""
    if not args.shapes and not args.shape and not args.report and not args.measured:
        raise UsageError(
            "tune-shapes needs SHAPES files, --shape MxNxK, --report DATASET or --measured DATASET"
        )
    if args.measured and args.shortlist is None:
        raise UsageError("--measured needs --shortlist CSV (the shortlist that was timed)")
    _guard(args)
    if args.shapes or args.shape:
        _write_space(args)
    if args.report:
        from benchspace.evaluation.deploy.shortlist_format import render_curve
        from benchspace.evaluation.deploy.shortlist_study import Protocol, shortlist_study
        from benchspace.harness.cli.cutlass.dataset_args import load

        dataset, hw = load(argparse.Namespace(dataset=args.report, hardware=args.hardware))
        protocol = Protocol(warmups=args.warmups, heat_s=args.heat_s)
        study = shortlist_study(dataset, hw, protocol=protocol, seed=args.seed)
        print("\n".join(render_curve(study)))
    if args.measured:
        print("\n".join(_measured(Path(args.measured), args.shortlist, args)))
    return 0


def _write_space(args: argparse.Namespace) -> None:
    """The shortlist, the kernel list and the space (with the ranker's pinned candidates)."""
    kernels_out, shortlist_out = _outputs(args.out)
    shapes = read_user_shapes(args.shapes, args.shape)
    selector = load_selector(args.model)
    if args.extra_kernels is not None:
        extra = read_kernel_list(args.extra_kernels)
        if not extra:
            raise BenchspaceError(
                f"{args.extra_kernels}: no kernel names; write one procedural name a line "
                f"('benchspace cutlass catalogue --level {WIDE_LEVEL} --names' lists them)"
            )
        selector = with_extra_kernels(selector, extra)
    short = shortlist(selector, shapes, args.topk, args.layout, args.per_kernel)
    ranked = _ranked(args, shapes)
    kernels = kernels_to_build(short)
    n = args.per_kernel
    spread = f"(at most {n} knob setting{'s' * (n > 1)} a kernel) " if n else ""
    if args.extra_kernels is not None:
        spread += f"(with {args.extra_kernels.name}'s kernels) "
    write_text_atomic(
        kernels_out,
        "\n".join(
            [
                "# format: benchspace-kernel-list 1",
                f"# the top {args.topk} kernels of {len(shapes)} shapes by {selector.name} "
                + spread
                + f"({Path(args.model).name}); build: benchspace cutlass build --kernels "
                f"{kernels_out}",
                *kernels,
            ]
        )
        + "\n",
    )
    write_text_atomic(shortlist_out, short.to_csv(index=False))
    origin = f"{selector.name} ({Path(args.model).name} {selector.sha256[:12]})"
    space = shortlist_space(
        short,
        cublas_algos=args.cublas_algos,
        heat_s=args.heat_s,
        warmups=args.warmups,
        origin=origin,
        ranked=ranked,
    )
    write_json_atomic(args.out, space)
    cublas = max(args.cublas_algos + 1, 0)
    pinned = sum(len(keys) for keys in ranked.values())
    print(
        f"{args.out}: {len(shapes)} shapes x (top {args.topk} + {cublas} cuBLASLt) "
        + (f"+ {pinned} ranked pinned " if pinned else "")
        + f"= {len(short) + cublas * len(shapes) + pinned} configurations; {len(kernels)} "
        f"distinct kernels in {kernels_out}; shortlist in {shortlist_out}\n"
        f"next: benchspace cutlass build --kernels {kernels_out} --build-dir build/cutlass; "
        f"benchspace tune --space {args.out} --build-dir build/cutlass --out profile.json; "
        f"benchspace cutlass header --from-profile profile.json --shortlist {shortlist_out}"
    )


def _ranked(
    args: argparse.Namespace, shapes: list[tuple[int, int, int]]
) -> dict[tuple[int, int, int], list[str]]:
    """Per shape, the ranker's top ``--cublaslt-ranked`` of ``--cublaslt-space`` (none without)."""
    if args.cublaslt_space is None:
        return {}
    from benchspace.evaluation.deploy.ranked_candidates import (
        ranked_candidates,
        read_listed_space,
    )
    from benchspace.evaluation.study.cublaslt_rank import screen_frame
    from benchspace.evaluation.study.timing_runs import load_timing

    listed = read_listed_space(args.cublaslt_space)
    rows = load_timing(Path(args.ranker_screen))
    screen = screen_frame(rows) if not rows.empty else rows
    return ranked_candidates(
        listed,
        screen,
        shapes,
        args.cublaslt_ranked,
        source=str(args.cublaslt_space),
        screen_source=str(args.ranker_screen),
    )


def _measured(folder: Path, shortlist_csv: Path, args: argparse.Namespace) -> list[str]:
    from benchspace.evaluation.cutlass.dataset_read import load_dataset
    from benchspace.evaluation.cutlass.dataset_runs import per_config
    from benchspace.evaluation.deploy.shortlist import read_shortlist
    from benchspace.evaluation.deploy.shortlist_format import render_measured
    from benchspace.evaluation.deploy.shortlist_measured import measured_curve
    from benchspace.evaluation.deploy.shortlist_study import Protocol

    short = read_shortlist(shortlist_csv)
    dataset = load_dataset(folder)
    if not dataset.has_rounds:
        raise UsageError(
            f"{folder}: a version {dataset.version} dataset holds no rounds; --measured needs "
            "cuBLASLt timed in the shortlist's rounds (version 2 on, e.g. evaluation/data/h200/v2)"
        )
    table = per_config(dataset.rounds)
    protocol = Protocol(warmups=args.warmups, heat_s=args.heat_s)
    try:
        curve = measured_curve(table, short, protocol=protocol)
    except ValueError as exc:
        raise UsageError(f"{folder}: {exc}") from None
    lines = render_measured(curve)
    from benchspace.evaluation.study.position import run_ratios, warning_line

    warning = warning_line(run_ratios(dataset.rows))
    if warning:
        lines.append(warning)
    if args.measured_out is not None:
        out: Path = args.measured_out  # guarded in run, before the work
        write_text_atomic(out / "per_shape.csv", curve.per_shape.to_csv(index=False))
        lines.append(f"wrote {out / 'per_shape.csv'}")
        try:
            from benchspace.evaluation.deploy.shortlist_format import write_curve_figure

            lines.append(f"wrote {write_curve_figure(curve, out / 'k_curve.png')}")
        except ModuleNotFoundError:
            lines.append("k_curve.png not drawn: pip install 'benchspace[plot]' for matplotlib")
    return lines
