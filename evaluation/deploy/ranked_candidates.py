"""Pinned cuBLASLt candidates for tune-my-shapes: per user shape, the ranker's top k of the
configurations cuBLASLt lists for it.

cuBLASLt's heuristic returns at most a handful of configurations per shape (``cublas:algo0``
… ``cublas:algo7``), but accepts thousands more (``cutlass_bench --cublas-space`` lists them on
the GPU: ``scripts/device/cublaslt_space.py`` writes ``space.csv.gz``, columns ``shape``
``MxNxK`` and ``config`` ``cublaslt:id=..;...;cluster=..``). Timing all of them per shape is
minutes; the ranker of :mod:`evaluation.study.cublaslt_rank` (XGBoost ``rank:ndcg`` on the
wide study's screen) keeps the ``k`` most promising, each shape scored by a model that never
saw it (other folds of the screen, or the whole screen for a shape it does not hold). They join
each shape's case as pinned configurations, timed in the same rounds as the CUTLASS shortlist
and the heuristic's eight, and the header dispatches to whichever wins
(:mod:`evaluation.deploy.measured_header`).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from benchspace.evaluation.deploy.pinned import parse_key
from benchspace.harness.errors import BenchspaceError, UsageError
from benchspace.harness.files import decode, read_bytes

Shape = tuple[int, int, int]
LISTED_COLUMNS = ("shape", "config")
DEFAULT_SCREEN = Path("evaluation/data/h200/cublaslt_wide")
"""The wide study's folder: run ``s`` timed every listed configuration of 64 shapes once."""
DEFAULT_RANKED = 256
"""Configurations per shape (the ranked study: 0.9968 of the whole screen's best, geomean)."""
FIX = "pass the space.csv.gz that scripts/device/cublaslt_space.py wrote on the GPU"


def _text(path: str | Path) -> str:
    blob = read_bytes(path, error=BenchspaceError, kind="listed cuBLASLt space")
    if blob[:2] == b"\x1f\x8b":
        try:
            blob = gzip.decompress(blob)
        except (OSError, EOFError, zlib.error) as exc:
            raise BenchspaceError(f"{path}: not a gzip file ({exc}); {FIX}") from None
    return decode(blob, str(path), error=BenchspaceError)


def read_listed_space(path: str | Path) -> pd.DataFrame:
    """A listed space (``shape``, ``config``; gzip or plain csv), every key checked; one line
    naming the file, the row and the fix when it is not one."""
    try:
        listed = pd.read_csv(io.StringIO(_text(path)), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise BenchspaceError(f"{path}: not a listed cuBLASLt space csv ({exc}); {FIX}") from None
    need = set(LISTED_COLUMNS) - set(listed.columns)
    if need:
        raise BenchspaceError(f"{path}: lacks the columns {', '.join(sorted(need))}; {FIX}")
    for i, (shape, config) in enumerate(zip(listed["shape"], listed["config"], strict=True)):
        where = f"{path}: row {i + 2}"
        try:
            dims = [int(v) for v in shape.split("x")]
        except ValueError:
            dims = []
        if len(dims) != 3 or min(dims) < 1:
            raise BenchspaceError(f"{where}: shape {shape!r} is not MxNxK; {FIX}")
        try:
            parse_key(config, f"{where}: config")
        except UsageError as exc:
            raise BenchspaceError(f"{exc}; {FIX}") from None
    return listed[list(LISTED_COLUMNS)].reset_index(drop=True)


def shape_name(shape: Shape) -> str:
    """``MxNxK``: how a listed space names a shape."""
    return "x".join(str(int(v)) for v in shape)


def ranked_candidates(
    listed: pd.DataFrame,
    screen: pd.DataFrame,
    shapes: Sequence[Shape],
    k: int,
    *,
    source: str = "listed space",
    screen_source: str = "screen",
) -> dict[Shape, list[str]]:
    """Per user shape, the ranker's top ``k`` keys of ``listed`` (best first), scored against
    ``screen`` (a :func:`evaluation.study.cublaslt_rank.screen_frame`); every user shape must
    be listed."""
    from benchspace.evaluation.study.cublaslt_rank import ranked_space

    if k < 1:
        raise UsageError(f"--cublaslt-ranked {k} must be at least 1")
    if screen.empty:
        raise BenchspaceError(f"{screen_source}: holds no cuBLASLt screen readings (run s); "
                              f"pass --ranker-screen {DEFAULT_SCREEN}")  # fmt: skip
    names = {shape: shape_name(shape) for shape in shapes}
    missing = sorted(set(names.values()) - set(listed["shape"]))
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise BenchspaceError(
            f"{source}: lists no configuration for {', '.join(missing[:3])}{more}; list them on "
            "the GPU (scripts/device/cublaslt_space.py) or leave --cublaslt-space out"
        )
    wanted = listed[listed["shape"].isin(set(names.values()))]
    ranked = ranked_space(wanted, screen, k)
    return {shape: ranked[name] for shape, name in names.items()}
