"""CUTLASS kernel-selection study: catalogue, shape sets and the actions built on them."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from harness.errors import UsageError

# Action name -> module under evaluation.commands. Each module has a one-line docstring (the
# help text), add_arguments(parser) and run(args) -> int; an action whose module is absent
# is simply not offered.
ACTIONS: dict[str, str] = {
    "catalogue": "catalogue",
    "shapes": "shapes",
    "build": "build",
    "space": "space",
    "export": "export",
    "summary": "summary",
    "evaluate": "evaluate",
    "train": "train",
    "select": "select",
    "header": "header",
    "hpo": "hpo",
}


def _load(action: str) -> ModuleType | None:
    name = f"evaluation.commands.{ACTIONS[action]}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register one sub-subcommand per available action."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for action in ACTIONS:
        module = _load(action)
        if module is None:
            continue
        doc = (module.__doc__ or action).strip().splitlines()[0]
        sp = sub.add_parser(action, help=doc, description=doc)
        module.add_arguments(sp)
        sp.set_defaults(_action=module.run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen action."""
    action = getattr(args, "_action", None)
    if action is None:
        available = [a for a in ACTIONS if _load(a) is not None]
        raise UsageError(f"cutlass needs an action: {', '.join(available)}")
    return int(action(args))
