"""``benchspace cutlass ACTION``: the CUTLASS kernel-selection study's actions.

One module per action under this package, each with ``add_arguments(parser)`` and
``run(args) -> int``. An action's module (and with it pandas, cutlass_library, xgboost ...) is
imported only when that action is chosen, so ``benchspace --help`` and ``benchspace cutlass
--help`` stay quick while ``benchspace cutlass build --help`` lists build's real options.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any

from benchspace.harness.cli import EXTRAS, MissingExtraError
from benchspace.harness.errors import UsageError

# Action -> (module under benchspace.harness.cli.cutlass, help).
ACTIONS: dict[str, tuple[str, str]] = {
    "catalogue": (
        "catalogue",
        "Enumerate the SM90 bf16 GEMM catalogue and print its counts by field (or its names).",
    ),
    "shapes": (
        "shapes",
        "Build training and evaluation GEMM shape sets for a GPU and write them as a JSON file.",
    ),
    "shapes-v2": (
        "shapes",
        "Old spelling of 'shapes --layers': dataset v2's shape sets (v1 constructions plus layer "
        "shapes, none seen before).",
    ),
    "kernel-set": (
        "kernel_set",
        "Choose the kernels to compile for one layout (default level + stratified max sample).",
    ),
    "build": (
        "build",
        "Emit and compile CUTLASS kernels into batch libraries and the driver (skips what is "
        "built).",
    ),
    "space": (
        "space",
        "Write the GPU study's space file: shape sets as cases, compiled non-spilling kernels "
        "as grid.",
    ),
    "export": (
        "export",
        "Write the measured dataset (csv.gz + provenance) from a study sweep's measurement store.",
    ),
    "summary": (
        "summary",
        "Summarise a measured dataset: groups, kernels, failures, best CUTLASS vs cuBLAS per "
        "shape.",
    ),
    "evaluate": (
        "evaluate",
        "Train the kernel selectors and judge them on held-out exhaustive shapes (regret, cuBLAS).",
    ),
    "correlation": (
        "correlation",
        "Print the within-group Spearman correlation of every model feature with measured "
        "throughput.",
    ),
    "train": (
        "train",
        "Train one selector for deployment and save it as JSON (loads later without training).",
    ),
    "select": (
        "select",
        "Pick the kernel for one GEMM shape with a saved selector, and show the top candidates.",
    ),
    "header": (
        "header",
        "Generate the GEMM kernel header (a dispatch tree derived from the selector); --check "
        "reports its regret against select.",
    ),
    "library": (
        "library",
        "Write a CMake project that builds a GEMM header's dispatch into a library: "
        "benchspace::gemm::run() over its CUTLASS kernels, pinned cuBLASLt entries and cuBLASLt.",
    ),
    "tune-shapes": (
        "tune_shapes",
        "Shortlist the selector's top K candidates per user shape as a space to measure, with "
        "cuBLAS in the same rounds; --report: regret and GPU time against K on recorded data.",
    ),
    "hpo": (
        "hpo",
        "Search XGBoost settings with Optuna TPE on an SQLite study, minimising grouped-CV regret.",
    ),
}


def _attach(action: str, parser: argparse.ArgumentParser) -> None:
    """Import the action's module and register its options on its parser (once)."""
    if parser.get_default("_action") is not None:
        return
    try:
        module = importlib.import_module(f"{__name__}.{ACTIONS[action][0]}")
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top in EXTRAS:
            raise MissingExtraError(f"cutlass {action}", top, EXTRAS[top]) from None
        raise
    module.add_arguments(parser)
    parser.set_defaults(_action=module.run)


class _LazyActions(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Sub-parsers whose options are registered when their action is chosen."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if isinstance(values, list | tuple) and values and values[0] in ACTIONS:
            _attach(values[0], self._name_parser_map[values[0]])
        super().__call__(parser, namespace, values, option_string)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register one sub-subcommand per action; its options load when it is chosen."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", action=_LazyActions)
    for action, (_, help_text) in ACTIONS.items():
        sub.add_parser(action, help=help_text, description=help_text)


def run(args: argparse.Namespace) -> int:
    """Run the chosen action."""
    action = getattr(args, "_action", None)
    if action is None:
        raise UsageError(f"cutlass needs an action: {', '.join(ACTIONS)}")
    return int(action(args))
