"""The ``benchspace`` command: one module per subcommand, errors caught once here."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from benchspace.harness import __version__
from benchspace.harness.cli.exits import (
    MEMORY,
    PROCESSES,
    STREAM_ERRNOS,
    exhaustion,
    failed,
    say,
    silence,
)
from benchspace.harness.errors import EXIT_OUTPUT, EXIT_RESOURCES, BenchspaceError
from benchspace.harness.execute import reaper

# Subcommand -> (module under harness.cli, help). Each module has add_arguments(parser) and
# run(args) -> int. Only the chosen subcommand's module is imported, so a quick command never
# pays for the heavy imports of another (pandas, xgboost, cutlass_library).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "check space files without running anything"),
    "tune": ("tune", "sweep benchmark executables into a profile (resumable)"),
    "sensitivity": ("sensitivity", "measure noise, rank parameters, write a pruned space"),
    "generate": ("generate", "generate the bucketed constexpr header from a profile"),
    "review": ("review", "compare a generated header with the checked-in one"),
    "port": ("port", "write chosen constants into the checked-in header in place"),
    "ab": ("ab", "A/B two environments or executables, interleaved, with statistics"),
    "confirm": ("confirm", "A/B each proposed change at its consumers"),
    "compare": ("compare", "compare two profiles: winners, NEW/OLD with its noise, header changes"),
    "export": ("export", "a profile's or store's measurements as csv, json or parquet"),
    "cutlass": ("cutlass", "CUTLASS SM90 GEMM catalogue, data and kernel selector"),
}


# Third-party packages that live in an extra, not in the core install.
EXTRAS: dict[str, str] = {
    "pandas": "cutlass",
    "cutlass_library": "cutlass",
    "xgboost": "cutlass",
    "sklearn": "cutlass",
    "matplotlib": "plot",
    "dask": "dist",
    "distributed": "dist",
    "torch": "mlp",
    "optuna": "hpo",
}


def _load(name: str) -> ModuleType | None:
    module_name = f"benchspace.harness.cli.{SUBCOMMANDS[name][0]}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        top = (exc.name or "").split(".")[0]
        if top in EXTRAS:
            raise MissingExtraError(name, top, EXTRAS[top]) from None
        raise


class MissingExtraError(BenchspaceError):
    """A subcommand needs a package of an optional extra that is not installed."""

    def __init__(self, command: str, package: str, extra: str) -> None:
        super().__init__(
            f"'benchspace {command}' needs {package}, which is not installed: "
            f"pip install 'benchspace[{extra}]'"
        )


def cmake_helper() -> Path:
    """The CMake helper: shipped in the package, or in a checkout's cmake/ folder."""
    packaged = Path(__file__).resolve().parents[1] / "data" / "benchspace.cmake"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "cmake" / "benchspace.cmake"


class _PrintCMakePath(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(cmake_helper())
        parser.exit()


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only ``chosen``'s module is imported (none for bare ``--help``)."""
    parser = argparse.ArgumentParser(
        prog="benchspace",
        description="Sweep benchmark executables over JSON spaces, prune, and generate "
        "tuned constexpr headers.",
    )
    parser.add_argument("--version", action="version", version=f"benchspace {__version__}")
    parser.add_argument(
        "--cmake-path",
        action=_PrintCMakePath,
        nargs=0,
        help="print the path of the CMake helper benchspace.cmake and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_, help_text) in SUBCOMMANDS.items():
        if name != chosen:
            sub.add_parser(name, help=help_text)
            continue
        module = _load(name)
        if module is None:
            continue
        sp = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sp)
        sp.set_defaults(_run=module.run)
    return parser


#: Modes of a study action spelt as actions of their own: ``cutlass header check`` is
#: ``cutlass header --check``, ``cutlass tune-shapes report D`` is ``--report D``; the flag
#: spellings stay.
MODES: dict[tuple[str, str], str] = {
    ("header", "check"): "--check",
    ("header", "from-profile"): "--from-profile",
    ("header", "from-study"): "--from-study",
    ("tune-shapes", "report"): "--report",
    ("tune-shapes", "measured"): "--measured",
}


def spell_modes(argv: Sequence[str]) -> list[str]:
    """`argv` with a mode written as an action (``cutlass header check``) as its flag."""
    args = list(argv)
    if len(args) >= 3 and args[0] == "cutlass" and (args[1], args[2]) in MODES:
        args[2] = MODES[(args[1], args[2])]
    return args


def misspelt_option(parser: argparse.ArgumentParser, args_list: Sequence[str]) -> str | None:
    """``unrecognized option --spcae; did you mean --space?`` for the first ``--option`` the
    chosen subcommand does not know (nor abbreviates) and that is close to one it does; None
    when there is none (argparse then reports as usual)."""
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    chosen = next((a for a in args_list if not a.startswith("-")), None)
    if sub is None or chosen is None or chosen not in sub.choices:
        return None
    command = sub.choices[chosen]
    if any(isinstance(a, argparse._SubParsersAction) for a in command._actions):
        return None  # nested subcommands (cutlass) load their options lazily: argparse reports
    known = [o for a in command._actions for o in a.option_strings]
    for word in args_list:
        if word == "--":
            break
        name = word.split("=", 1)[0]
        if not name.startswith("--") or name in known:
            continue
        if any(o.startswith(name) for o in known):
            continue  # an abbreviation argparse resolves (or reports as ambiguous)
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        if close:
            return f"benchspace {chosen}: unrecognized option {name}; did you mean {close[0]}?"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (docs: README, Reliability)."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a full device is one line, not a traceback
    except BrokenPipeError:
        # The reader of our output went away (`benchspace ... | head`): not an error of ours.
        silence(sys.stdout)
        return 0
    except OSError as exc:
        # Unnamed (the file layer names every file it writes) and a device's error: a
        # standard stream. Were it stderr, `say` fails too and gives EXIT_OUTPUT all the same.
        if exc.filename is not None or (exc.errno not in STREAM_ERRNOS and not failed(sys.stdout)):
            raise
        silence(sys.stdout)
        return say(f"error: cannot write standard output ({exc.strerror or exc})", EXIT_OUTPUT)
    return code


def _main(argv: Sequence[str] | None) -> int:
    args_list = spell_modes(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in args_list if not a.startswith("-")), None)
    try:
        parser = build_parser(chosen if chosen in SUBCOMMANDS else None)
        misspelt = misspelt_option(parser, args_list)
        if misspelt is not None:
            return say(f"error: {misspelt}", 2)
        args = parser.parse_args(args_list)
        with reaper.handled():
            return int(args._run(args))
    except BenchspaceError as exc:
        return say(f"error: {exc}", exc.exit_code)
    except reaper.Terminated as exc:
        said = f"error: interrupted by {exc.name}; benchmark processes killed, finished "
        return say(f"{said}measurements kept in the store (re-run to resume)", 128 + exc.signum)
    except KeyboardInterrupt:
        return say("error: interrupted", 130)
    except ImportError as exc:
        if "failed to map segment" not in str(exc):  # a shared library under ulimit -v
            raise
        return say(f"error: {exc}: {MEMORY}", EXIT_RESOURCES)
    except MemoryError:
        return say(f"error: {MEMORY}", EXIT_RESOURCES)
    except RuntimeError as exc:
        if "can't start new thread" not in str(exc):
            raise
        return say(f"error: {exc}: {PROCESSES}", EXIT_RESOURCES)
    except BrokenPipeError:
        raise
    except OSError as exc:
        exhausted = exhaustion(exc)
        if exhausted:
            return say(f"error: {exhausted}", EXIT_RESOURCES)
        if exc.filename is None:
            raise
        # The file layer (harness/files.py) words every read and write of a named file; this
        # is the net under the path checks around it (a name too long for the system, a loop
        # of symbolic links): still one line, naming the file.
        return say(f"error: {exc.filename}: {exc.strerror or exc}; check the path", 1)


if __name__ == "__main__":
    sys.exit(main())
