"""The one profile reader: every format version into the records of harness/profiles/model.py.

Version 2 is what ``tune`` writes; version 1 is upgraded to it first (harness/profiles/
upgrade.py: its ``args`` were the whole argv). Version 0 is BatchLAS's profile (no ``format``
key): it is
upgraded here, once and fully, so no consumer sees a difference. Its measurements have no case
index, parameters or spread: each one's case and parameters are recovered from its ``args`` /
``env`` (BatchLAS writes them as text: harness/profiles/batchlas.py parses them) and the cases'
fixed values in ``per_case_best``; its median is its one value (one sample, stdev 0).

A field of the wrong type is a `ProfileError` naming the file, the JSON path and the value:
``p.json: $.results[0].measurements[3].median: "abc" is not a number``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from benchspace.harness.errors import ProfileError, json_path
from benchspace.harness.execute.metric_check import is_time_metric
from benchspace.harness.files import decode, gunzipped, read_bytes
from benchspace.harness.measurement import Value
from benchspace.harness.plan import ParamValue
from benchspace.harness.profiles.batchlas import batchlas_values, recover_case
from benchspace.harness.profiles.evidence import read_row_evidence, read_top_evidence
from benchspace.harness.profiles.fields import Where, shown
from benchspace.harness.profiles.model import (
    PROFILE_FORMAT,
    PROFILE_VERSION,
    BenchResult,
    Coverage,
    MeasurementRow,
    Profile,
    TopCase,
    TopEntry,
)
from benchspace.harness.profiles.read_parts import PartsReader
from benchspace.harness.profiles.stream import NotStreamed, walk_profile
from benchspace.harness.profiles.time_check import positive_times
from benchspace.harness.profiles.upgrade import upgrade_v1

Cases = Sequence[tuple[int, Mapping[str, Value]]]


def load_profile(path: str | Path) -> Profile:
    """Read a profile file (any known version); its hash is of the file's bytes.

    A profile of the current version is read a piece at a time (harness/profiles/stream.py):
    each measurement becomes its record as it is decoded, so a profile of 10^6 rows never
    exists as a document of dictionaries. Anything else (an older version, BatchLAS's, a file
    with an error) is read whole, which also gives every error its message. A ``.json.gz``
    profile (one kept compressed) is read whole; its hash is of the decompressed bytes."""
    source = str(path)
    compressed = source.endswith(".gz")
    streamed = None if compressed else _streamed(path)
    if streamed is not None:
        return streamed
    blob = read_bytes(
        path,
        error=ProfileError,
        kind="profile",
        missing="no such profile; run `benchspace tune` first",
    )
    if compressed:
        blob = gunzipped(blob, source, error=ProfileError, kind="profile")
    sha256 = hashlib.sha256(blob).hexdigest()
    text = decode(blob, source, error=ProfileError)
    del blob  # a profile of 10^6 rows: its bytes, its text and its data are not held at once
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg})"
        ) from None
    except RecursionError:
        raise ProfileError(f"{source}: $: nested too deeply to be a profile") from None
    del text
    return _Reader(source, consume=True).profile(data, sha256=sha256)


def _streamed(path: str | Path) -> Profile | None:
    """The profile read a piece at a time; None when it is not a current one read without a
    problem (the whole-file reader then reads it, and words any error)."""
    reader = _Reader(str(path), streamed=True)

    def on_row(result: int, index: int, data: object) -> MeasurementRow | None:
        if not isinstance(data, dict) or "case_index" not in data or "params" not in data:
            raise NotStreamed("a row without its case and parameters")
        where = ("results", result, "measurements", index)
        return reader.row(data, where, (), {}, (), PROFILE_VERSION)

    try:
        with open(path, "rb") as fh:
            doc, sha256 = walk_profile(fh, on_row)
        if doc.get("format") != PROFILE_FORMAT or doc.get("version") != PROFILE_VERSION:
            return None
        return reader.profile(doc, sha256=sha256)
    except (OSError, NotStreamed, ProfileError, RecursionError):
        return None


def parse_profile(data: object, *, source: str, sha256: str = "") -> Profile:
    """The records of a parsed profile document (any known version)."""
    return _Reader(source).profile(data, sha256=sha256)


_ZERO = 0.0


def _same_float(a: object, b: object) -> bool:
    return type(a) is float and type(b) is float and a == b and str(a) == str(b)


def _one_of(samples: tuple[float, ...], median: float | None) -> tuple[float, ...]:
    """One sample equal to the median is the median's object (a million rows: 48 MB less)."""
    if len(samples) == 1 and median is not None and _same_float(samples[0], median):
        return (median,)
    return samples


def _stdev(value: float | None) -> float | None:
    return _ZERO if _same_float(value, _ZERO) else value


class _Reader(PartsReader):
    """Reads a profile document into its records (rows share equal values: `shared`)."""

    def __init__(self, source: str, *, consume: bool = False, streamed: bool = False) -> None:
        super().__init__(source)
        self.consume = consume
        """Free each measurement's data once read (the document is the reader's own)."""
        self.streamed = streamed
        """The document's measurements are already records (harness/profiles/stream.py)."""
        self._atoms: dict[tuple[type, Value], Value] = {}

    def atom(self, value: object, where: Where) -> Value:
        """An argument (`value`), one object for equal integers and strings: each row's
        arguments repeat its case's and its parameters' few values."""
        checked = self.value(value, where)
        if type(checked) is int or type(checked) is str:
            return self._atoms.setdefault((type(checked), checked), checked)
        return checked

    # ------------------------------------------------------------ typed fields

    def profile(self, data: object, *, sha256: str) -> Profile:
        """The whole document, dispatched on its version."""
        doc = self.obj(data, ())
        if "format" not in doc:
            if not isinstance(doc.get("results"), list):
                raise ProfileError(f"{self.source}: $.results: missing; this is not a profile")
            version = 0
        else:
            if doc["format"] != PROFILE_FORMAT:
                raise ProfileError(
                    f"{self.source}: $.format: {shown(doc['format'])} is not a profile "
                    f"(expected {PROFILE_FORMAT!r})"
                )
            version = self.integer(doc.get("version"), ("version",))
            if version > PROFILE_VERSION:
                raise ProfileError(
                    f"{self.source}: $.version: {version} is newer than this benchspace reads "
                    f"({PROFILE_VERSION}); upgrade benchspace"
                )
            if version == 1:
                doc = upgrade_v1(doc)
        meta = self.meta(doc.get("meta", {}), ("meta",))
        results = self.each(
            doc.get("results", []), ("results",), lambda v, w: self.result(v, w, version)
        )
        return Profile(
            meta=meta,
            results={r.bench: r for r in results},
            version=version,
            source=self.source,
            sha256=sha256,
        )

    def result(self, value: object, where: Where, version: int) -> BenchResult:
        """One bench's entry; BatchLAS rows recover their cases from per_case_best."""
        r = self.obj(value, where)

        def at(key: str) -> Where:
            return (*where, key)

        arg_spec = self.texts(r.get("arg_spec", []), at("arg_spec"))
        env_spec = {
            k: self.text(v, (*at("env_spec"), k))
            for k, v in self.obj(r.get("env_spec") or {}, at("env_spec")).items()
        }
        per_case_best = self.each(
            r.get("per_case_best", []),
            at("per_case_best"),
            lambda v, w: self.best_row(v, w, arg_spec, env_spec, version),
        )
        cases = [(b.case_index, b.fixed) for b in per_case_best]
        raw_rows = self.array(r.get("measurements", []), at("measurements"))
        rows = []
        for i, v in enumerate(raw_rows):
            if self.streamed:
                rows.append(v)
                continue
            rows.append(self.row(v, (*at("measurements"), i), arg_spec, env_spec, cases, version))
            if self.consume:
                raw_rows[i] = None  # read: its data is freed as its record is made

        top = self.each(r.get("top", []), at("top"), lambda v, w: self.top(v, w, cases))
        raw_best = r.get("best")
        coverage = r.get("coverage")
        metric = self.text(r.get("metric", ""), at("metric"))
        direction = r.get("direction", "min")
        if direction not in ("min", "max"):
            raise self.fail(at("direction"), direction, '"min" or "max"')
        if direction == "min" and is_time_metric(metric):
            tables = {"per_case_best": per_case_best, "measurements": rows}
            positive_times(self, r, where, metric, tables, version)
        return BenchResult(
            bench=self.text(r.get("bench", ""), at("bench")),
            metric=metric,
            direction=direction,
            exe=self.text(r.get("exe", ""), at("exe")),
            exe_sha256=self.text(r.get("exe_sha256", ""), at("exe_sha256")),
            arg_spec=arg_spec,
            env_spec=env_spec,
            report_only=self.boolean(r.get("report_only", False), at("report_only")),
            pre_tune=self.each(
                r.get("pre_tune") or [], at("pre_tune"), lambda v, w: self.phase(v, w, version)
            ),
            failures=self.each(r.get("failures") or [], at("failures"), self.failure),
            best=None if raw_best is None else self.top(raw_best, at("best"), cases),
            top=top,
            per_case_best=per_case_best,
            measurements=tuple(row for row in rows if row is not None),
            coverage=Coverage(complete=bool(top), note="")
            if coverage is None
            else self.coverage(coverage, at("coverage")),
        )

    def row(
        self,
        value: object,
        where: Where,
        arg_spec: Sequence[str],
        env_spec: Mapping[str, str],
        cases: Sequence[tuple[int, Mapping[str, Value]]] | None,
        version: int,
    ) -> MeasurementRow | None:
        """A measurement (or per-case best) row; None for a BatchLAS measurement without a
        value whose case cannot be told (it carries nothing a consumer reads)."""
        m = self.obj(value, where)

        def at(key: str) -> Where:
            return (*where, key)

        args = self.each(m.get("args", []), at("args"), self.atom)
        env = self.env(m.get("env") or {}, at("env"))
        median = self.opt_finite(
            m.get("median", m.get("value")), at("median" if "median" in m else "value")
        )
        if "case_index" in m and "params" in m:
            case_index = self.index(m["case_index"], at("case_index"))
            fixed: Mapping[str, Value] = self.fixed(m.get("fixed", {}), at("fixed"))
            params: Mapping[str, ParamValue] = self.params(m["params"], at("params"))
        elif cases is None:  # a per-case best names its own case
            case_index = self.index(m.get("case_index"), at("case_index"))
            fixed = self.fixed(m.get("fixed", {}), at("fixed"))
            values = batchlas_values(args, env, arg_spec, env_spec)
            params = {k: v for k, v in values.items() if k not in fixed}
        else:
            found = recover_case(args, env, arg_spec, env_spec, cases)
            if found is None:
                if median is None:
                    return None
                raise ProfileError(
                    f"{self.source}: {json_path(*where)}: args {list(args)} match no case of "
                    "per_case_best; the profile is incomplete, re-run the sweep"
                )
            case_index, fixed, params = found
        spread = self.opt_spread(m.get("spread"), at("spread"))
        argv = tuple(sys.intern(word) for word in self.texts(m.get("argv") or [], at("argv")))
        fixed, params = self.shared(fixed), self.shared(params)
        env = self.shared(env)  # (args differ from row to row: sharing them costs memory)
        if version == 0:
            # BatchLAS measured once per configuration: the value is the median of one sample.
            if median is None:
                return MeasurementRow(
                    case_index=case_index, fixed=fixed, params=params, args=args, argv=argv,
                    env=env, spread=spread, median=median,
                )  # fmt: skip
            return MeasurementRow(
                case_index=case_index, fixed=fixed, params=params, args=args, argv=argv,
                env=env, spread=spread, median=median, samples=(median,), mean=median,
                stdev=0.0, n=1,
            )  # fmt: skip
        samples = self.each(m.get("samples") or [], at("samples"), self.finite)
        mean = self.opt_finite(m.get("mean"), at("mean"))
        row = MeasurementRow(
            case_index=case_index,
            fixed=fixed,
            params=params,
            args=args,
            argv=argv,
            env=env,
            spread=spread,
            median=median,
            samples=_one_of(samples, median),
            mean=median if _same_float(mean, median) else mean,
            stdev=_stdev(self.opt_spread(m.get("stdev"), at("stdev"))),
            n=None if m.get("n") is None else self.index(m["n"], at("n")),
        )
        return read_row_evidence(self, m, where, row, self.params)

    def best_row(  # a case's best row (it names its case)
        self, value: object, where: Where, arg_spec: Sequence[str], env_spec: Mapping[str, str],
        version: int,
    ) -> MeasurementRow:  # fmt: skip
        row = self.row(value, where, arg_spec, env_spec, None, version)
        assert row is not None
        return row

    def top(self, value: object, where: Where, cases: Cases) -> TopEntry:
        """A leaderboard entry."""
        t = self.obj(value, where)
        params = self.params(t.get("params", {}), (*where, "params"))
        listed = self.each(t.get("cases", []), (*where, "cases"), partial(self.top_case, cases))
        top = TopEntry(
            params=params, score=self.number(t.get("score"), (*where, "score")), cases=listed
        )
        return read_top_evidence(self, t, where, top, self.params)

    def top_case(self, cases: Cases, value: object, where: Where) -> TopCase:
        """One leaderboard case (no ``case_index`` from BatchLAS: per_case_best's by fixed)."""
        c = self.obj(value, where)
        fixed = self.fixed(c.get("fixed", {}), (*where, "fixed"))
        found = [i for i, f in cases if dict(f) == dict(fixed)]
        if c.get("case_index") is None and len(found) != 1:
            raise ProfileError(
                f"{self.source}: {json_path(*where, 'case_index')}: missing, and the fixed values "
                f"{dict(fixed)} name {len(found)} cases of per_case_best; add the case_index"
            )
        index = c.get("case_index")
        return TopCase(
            case_index=found[0] if index is None else self.index(index, (*where, "case_index")),
            fixed=fixed,
            args=self.args(c.get("args", []), (*where, "args")),
            env=self.env(c.get("env") or {}, (*where, "env")),
            value=self.opt_finite(c.get("value"), (*where, "value")),
        )
