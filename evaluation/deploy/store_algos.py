"""The cuBLASLt configuration behind each ``cublas:*`` row of a tune-shapes run, read from the
run's measurement store (the profile keeps the figures, the store every driver column).

``benchspace tune`` records each attempt's driver row; the v2 driver's ``cublas_algo`` column
says which cuBLASLt algorithm ``cublas:heuristic`` and ``cublas:algo<i>`` ran at that shape
(``id=..;tile=..;...;cluster=..;ws=..;waves=..``), which :mod:`evaluation.deploy.pinned` turns
into a pinned key. The store is read-only here; a gzip of it (as committed) is read in memory.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

from benchspace.evaluation.deploy.pinned import PinnedConfig, from_cublas_algo
from benchspace.harness.errors import UsageError

Shape = tuple[int, int, int]


def store_beside(profile: Path) -> Path | None:
    """The store ``benchspace tune`` wrote beside ``profile`` (``<stem>.store.sqlite``), or a
    committed ``store.sqlite[.gz]``; None when there is none."""
    stem = profile.name.removesuffix(".json")
    for name in (
        f"{stem}.store.sqlite",
        f"{stem}.store.sqlite.gz",
        "store.sqlite",
        "store.sqlite.gz",
    ):
        if (profile.parent / name).is_file():
            return profile.parent / name
    return None


def _connect(path: Path) -> sqlite3.Connection:
    try:
        if path.suffix == ".gz":
            data = bytearray(gzip.decompress(path.read_bytes()))
            if len(data) > 19 and data[18:20] == b"\x02\x02":
                data[18:20] = b"\x01\x01"  # a WAL-mode file, read as a rollback-journal one
            db = sqlite3.connect(":memory:")
            db.deserialize(bytes(data))
            return db
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except (OSError, EOFError, sqlite3.Error) as exc:
        raise UsageError(
            f"{path}: cannot read the measurement store ({exc}); pass --store"
        ) from None


def cublas_algos(path: Path, bench: str) -> dict[tuple[Shape, str], PinnedConfig]:
    """Per (shape, ``cublas:*`` configuration) of ``bench``: the configuration it ran (the
    latest ok attempt's ``cublas_algo``; rows without one are left out)."""
    db = _connect(path)
    try:
        rows = db.execute(
            "SELECT params, extra FROM attempts WHERE bench = ? AND status = 'ok' "
            "AND params LIKE '%cublas:%' ORDER BY id",
            (bench,),
        ).fetchall()
    except sqlite3.Error as exc:
        raise UsageError(
            f"{path}: not a benchspace measurement store ({exc}); pass --store"
        ) from None
    finally:
        db.close()
    out: dict[tuple[Shape, str], PinnedConfig] = {}
    for params_text, extra_text in rows:
        try:
            params, extra = json.loads(params_text), json.loads(extra_text)
        except json.JSONDecodeError:
            continue
        config, algo = params.get("kernel"), extra.get("cublas_algo")
        if not isinstance(config, str) or not isinstance(algo, str) or not algo:
            continue
        try:
            shape = (int(extra["M"]), int(extra["N"]), int(extra["K"]))
        except (KeyError, TypeError, ValueError):
            continue
        out[shape, config] = from_cublas_algo(algo, f"{path}: {config} at {shape}")
    return out


def sentinel_ratios(path: Path, bench: str) -> dict[str, float]:
    """Per shape (``MxNxK``) of ``bench``: the position sentinel's last/first of its driver
    run (driver v3 on: the first copy's row carries ``sentinel_ratio``); {} when none."""
    db = _connect(path)
    try:
        rows = db.execute(
            "SELECT extra FROM attempts WHERE bench = ? AND status = 'ok' "
            "AND extra LIKE '%sentinel_ratio%' ORDER BY id",
            (bench,),
        ).fetchall()
    except sqlite3.Error as exc:
        raise UsageError(
            f"{path}: not a benchspace measurement store ({exc}); pass --store"
        ) from None
    finally:
        db.close()
    out: dict[str, float] = {}
    for (extra_text,) in rows:
        try:
            extra = json.loads(extra_text)
            ratio = float(extra["sentinel_ratio"])
            name = f"{int(extra['M'])}x{int(extra['N'])}x{int(extra['K'])}"
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
        if str(extra.get("sentinel", "first")) == "first" and ratio > 0:
            out[name] = ratio
    return out
