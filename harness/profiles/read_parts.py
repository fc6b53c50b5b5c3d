"""The profile reader's readers of the small blocks: meta, provenance, pre_tune phases and
their tables, failures and coverage (harness/profiles/read.py reads the rest)."""

from __future__ import annotations

from benchspace.harness.profiles.evidence import read_verdict
from benchspace.harness.profiles.fields import FieldReader, Where
from benchspace.harness.profiles.model import (
    Coverage,
    Failure,
    PhaseTableRow,
    PreTunePhaseResult,
    ProfileMeta,
    ProfileProvenance,
)


class PartsReader(FieldReader):
    """Field readers of the profile's small blocks (each names the JSON path of an error)."""

    def meta(self, value: object, where: Where) -> ProfileMeta:
        """The meta block (names it does not know kept as data)."""
        raw = dict(self.obj(value, where))
        named = {}
        for key in ("backend", "dtype", "build_dir", "hostname", "platform", "generated_at"):
            named[key] = self.opt_text(raw.pop(key, None), (*where, key))
        prov = raw.pop("provenance", None)
        return ProfileMeta(
            **named,
            provenance=None if prov is None else self.provenance(prov, (*where, "provenance")),
            other=raw,
        )

    def provenance(self, value: object, where: Where) -> ProfileProvenance:
        """The provenance block."""
        raw = dict(self.obj(value, where))
        exes = raw.pop("executables", None)
        return ProfileProvenance(
            space_path=self.opt_text(raw.pop("space_path", None), (*where, "space_path")),
            space_sha256=self.opt_text(raw.pop("space_sha256", None), (*where, "space_sha256")),
            executables=None
            if exes is None
            else {
                k: self.text(v, (*where, "executables", k))
                for k, v in self.obj(exes, (*where, "executables")).items()
            },
            other=raw,
        )

    def phase(self, value: object, where: Where, version: int) -> PreTunePhaseResult:
        """A pre_tune phase's summary and table (BatchLAS's ``params``: the winning scalars)."""
        p = self.obj(value, where)

        def at(key: str) -> Where:
            return (*where, key)

        grids = self.obj(p.get("params", {}), at("params"))
        if version == 0:  # a grid of the one value
            grids = {k: v if isinstance(v, list) else [v] for k, v in grids.items()}
        resolved = p.get("resolved_params")
        table = p.get("table")
        return PreTunePhaseResult(
            phase_index=self.integer(p.get("phase_index", where[-1]), at("phase_index")),
            params={
                k: self.each(v, (*at("params"), k), self.param_value) for k, v in grids.items()
            },
            cases=self.each(p.get("cases", []), at("cases"), self.integer),
            resolved_params=None
            if resolved is None
            else self.params(resolved, at("resolved_params")),
            values=self.each(p.get("values") or [], at("values"), self.number),
            score=self.opt_number(p.get("score"), at("score")),
            note=self.opt_text(p.get("note"), at("note")),
            table=None if table is None else self.each(table, at("table"), self.table_row),
            decided=None
            if p.get("decided") is None
            else read_verdict(self, p["decided"], at("decided"), self.params),
        )

    def table_row(self, value: object, where: Where) -> PhaseTableRow:
        """One combo of a phase's table."""
        t = self.obj(value, where)
        stdevs, counts = t.get("stdevs"), t.get("n")
        return PhaseTableRow(
            params=self.params(t.get("params", {}), (*where, "params")),
            values=self.each(t.get("values") or [], (*where, "values"), self.opt_number),
            stdevs=None
            if stdevs is None
            else self.each(stdevs, (*where, "stdevs"), self.opt_number),
            n=None if counts is None else self.each(counts, (*where, "n"), self.opt_integer),
            score=self.opt_number(t.get("score"), (*where, "score")),
            selection_score=self.opt_number(t.get("selection_score"), (*where, "selection_score")),
            confirmed=None
            if t.get("confirmed") is None
            else self.boolean(t["confirmed"], (*where, "confirmed")),
        )

    def failure(self, value: object, where: Where) -> Failure:
        """A failed attempt."""
        f = self.obj(value, where)

        def at(key: str) -> Where:
            return (*where, key)

        return Failure(
            case_index=self.integer(f.get("case_index", 0), at("case_index")),
            phase=self.text(f.get("phase", "main"), at("phase")),
            params=self.params(f.get("params") or {}, at("params")),
            status=self.text(f.get("status", "failed"), at("status")),
            argv=self.texts(f.get("argv", []), at("argv")),
            env=self.env(f.get("env") or {}, at("env")),
            error=self.text(f.get("error") or "", at("error")),
            stderr_tail=self.text(f.get("stderr_tail") or "", at("stderr_tail")),
            repeat=self.integer(f.get("repeat", 0), at("repeat")),
        )

    def coverage(self, value: object, where: Where) -> Coverage:
        """The coverage block."""
        c = self.obj(value, where)
        return Coverage(
            complete=self.boolean(c.get("complete", False), (*where, "complete")),
            note=self.text(c.get("note", ""), (*where, "note")),
            combos=self.opt_integer(c.get("combos"), (*where, "combos")),
            combos_covering_all_cases=self.opt_integer(
                c.get("combos_covering_all_cases"), (*where, "combos_covering_all_cases")
            ),
            combos_scored=self.opt_integer(c.get("combos_scored"), (*where, "combos_scored")),
        )
