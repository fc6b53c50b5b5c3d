"""Export a profile's or a store's measurements as a table: csv, json or parquet.

    benchspace export PROFILE.json|STORE.sqlite --format csv|json|parquet [--out F]
                      [--per-configuration]

One row per measurement (``--per-configuration``: one per configuration), columns as
harness/profiles/export.py lays them out. csv and json need only the standard library; parquet
goes through pandas and pyarrow (``pip install 'benchspace[parquet]'``) and needs ``--out``.
Without ``--out`` the table goes to stdout.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

from benchspace.harness.errors import BenchspaceError
from benchspace.harness.files import guard_output, write_bytes_atomic, write_text_atomic
from benchspace.harness.profiles.export import Table, profile_rows, store_rows, table
from benchspace.harness.profiles.read import load_profile

SQLITE_MAGIC = b"SQLite format 3\x00"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``export``."""
    parser.add_argument("source", type=Path, help="a profile (JSON) or a measurement store")
    parser.add_argument("--format", choices=("csv", "json", "parquet"), default="csv")
    parser.add_argument("--out", type=Path, help="file to write (default: stdout)")
    parser.add_argument(
        "--per-configuration",
        action="store_true",
        help="one row per configuration (n, median, mean, stdev, spread) instead of per "
        "measurement",
    )


def _is_store(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def load_table(source: Path, *, per_configuration: bool) -> Table:
    """The table of a profile or store file."""
    if _is_store(source):
        from benchspace.harness.store import Store  # sqlite only when it is a store

        with Store(source) as store:
            rows = store_rows(store.attempts(), per_configuration=per_configuration)
    else:
        rows = profile_rows(load_profile(source), per_configuration=per_configuration)
    return table(rows, per_configuration=per_configuration)


def csv_text(t: Table) -> str:
    """The table as CSV (an empty cell for no value)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(t.columns)
    writer.writerows(["" if c is None else c for c in row] for row in t.rows)
    return out.getvalue()


def json_text(t: Table) -> str:
    """The table as a JSON array of records."""
    return json.dumps(t.records(), indent=1, ensure_ascii=False) + "\n"


def parquet_bytes(t: Table) -> bytes:
    """The table as Parquet; a column of mixed kinds of values is written as text."""
    try:
        import pandas as pd
        import pyarrow  # noqa: F401  (pandas' parquet engine)
    except ModuleNotFoundError as exc:
        raise BenchspaceError(
            f"export --format parquet needs {exc.name}, which is not installed: "
            "pip install 'benchspace[parquet]' (or use --format csv|json)"
        ) from None
    frame = pd.DataFrame(list(t.rows), columns=list(t.columns))
    for name in t.columns:
        kinds = {type(v) for v in frame[name] if v is not None and v == v}
        if len(kinds) > 1 and kinds != {int, float}:
            frame[name] = [None if v is None else str(v) for v in frame[name]]
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def run(args: argparse.Namespace) -> int:
    """Write the table."""
    if args.format == "parquet" and args.out is None:
        raise BenchspaceError("export --format parquet: pass --out FILE (parquet is binary)")
    if args.out is not None:
        guard_output(
            args.out, option="--out", inputs=[(args.source, "the profile or store exported")]
        )
    t = load_table(args.source, per_configuration=args.per_configuration)
    if args.format == "parquet":
        write_bytes_atomic(args.out, parquet_bytes(t))
    else:
        text = csv_text(t) if args.format == "csv" else json_text(t)
        if args.out is None:
            sys.stdout.write(text)
            return 0
        write_text_atomic(args.out, text)
    print(f"wrote {args.out}: {len(t.rows)} rows, {len(t.columns)} columns", file=sys.stderr)
    return 0
