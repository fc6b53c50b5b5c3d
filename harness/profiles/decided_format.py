"""How a profile's winners were decided, as lines for ``review`` and ``compare`` (pure)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from benchspace.harness.profiles.model import BenchResult, PreTunePhaseResult, Profile, Verdict


def _verdict(v: Verdict) -> str:
    return f"{v.decided} ({v.samples} samples, {v.confidence:.0%})"


def _resolution(v: Verdict) -> str:
    """What the cap could resolve (empty when the profile does not say)."""
    if v.resolves_pct is None:
        return ""
    read = "" if v.read_pct is None else f"; they read within {v.read_pct:.1f} % of the best"
    rounds = "" if v.rounds_for_margin is None else f"; the margin: ~{v.rounds_for_margin} rounds"
    return f" (the cap resolves gaps over {v.resolves_pct:.1f} %{read}{rounds})"


def bench_line(result: BenchResult) -> str | None:
    """One line: the cross-case best's decision, and how the cases' winners were decided
    (None when the profile does not say: written before ``decided`` existed)."""
    verdicts = [r.decided for r in result.per_case_best if r.decided is not None]
    if not verdicts:
        return None
    counts = Counter(v.decided for v in verdicts)
    cases = ", ".join(f"{counts[k]} {k}" for k in ("separated", "tie", "cap") if counts[k])
    best = (
        ""
        if result.best is None or result.best.decided is None
        else (f"best {_verdict(result.best.decided)}; ")
    )
    gaps = sorted(v.resolves_pct for v in verdicts if v.resolves_pct is not None)
    if gaps:
        low, high = f"{gaps[0]:.1f}", f"{gaps[-1]:.1f}"
        span = low if low == high else f"{low} to {high}"
        cases += f" (the caps resolve gaps over {span} %)"
    confirmed = any(r.selection is not None for r in result.per_case_best)
    tail = "; figures from the confirmation rounds" if confirmed else ""
    return f"{result.bench}: {best}case winners: {cases}{tail}"


def case_lines(result: BenchResult) -> list[str]:
    """One line per case winner that a tie or the cap decided (the ones to read twice)."""
    out = []
    for row in result.per_case_best:
        v = row.decided
        if v is None or v.decided == "separated":
            continue
        tied = f", tied with {len(v.tied) - 1} others" if v.decided == "tie" else ""
        if v.decided == "cap" and v.unbeaten:
            tied = f", {len(v.unbeaten) - 1} others unbeaten{_resolution(v)}"
        params = " ".join(f"{k}={val}" for k, val in row.params.items())
        out.append(f"  case {row.case_index} {params}: {_verdict(v)}{tied}")
    return out


def _params(params: Mapping[str, object]) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def phase_line(bench: str, phase: PreTunePhaseResult) -> str | None:
    """How a pre_tune phase's winner was decided, and the combination that read better where
    the verdict kept another (None when the profile does not say)."""
    v = phase.decided
    if v is None or phase.resolved_params is None:
        return None
    others = ""
    if v.decided == "tie":
        others = f", tied with {len(v.tied) - 1} others"
    elif v.decided == "cap" and v.unbeaten:
        others = f", {len(v.unbeaten) - 1} others unbeaten{_resolution(v)}"
    line = f"{bench} pre_tune[{phase.phase_index}] {_params(phase.resolved_params)}: "
    line += f"{_verdict(v)}{others}"
    # Rows the confirmation left out carry the sweep's scores, on another scale: not compared.
    scored = [
        (r.score, r) for r in phase.table or () if r.score is not None and r.confirmed is not False
    ]
    if not scored or phase.score is None:
        return line
    score, read = min(scored, key=lambda pair: pair[0])
    if dict(read.params) != dict(phase.resolved_params) and phase.score > score:
        gap = (phase.score / score - 1.0) * 100.0
        line += (
            f"; kept over {_params(read.params)}, whose medians read {gap:.2f} % better, "
            "not separated"
        )
    return line


def decided_lines(profile: Profile, *, label: str = "", detail: bool = True) -> list[str]:
    """Every bench's decision line (and, with `detail`, its undecided cases), and how each of
    its pre_tune phases' winners was decided."""
    lines = []
    for result in profile.results.values():
        line = bench_line(result)
        if line is not None:
            lines.append(f"{label}{line}")
            if detail:
                lines += case_lines(result)
        phases = (phase_line(result.bench, phase) for phase in result.pre_tune)
        lines += [f"{label}{text}" for text in phases if text is not None]
    return lines
