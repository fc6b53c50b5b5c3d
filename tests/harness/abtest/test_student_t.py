"""Student's t tails in plain Python agree with scipy's, and the sweep's path imports no scipy."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats

from benchspace.harness.abtest import student_t

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("df", [1.0, 2.0, 3.5, 7.0, 30.0, 311.7, 1e4, 1e5, 1e8, math.inf])
@pytest.mark.parametrize("t", [-40.0, -3.1, -1.0, -1e-9, 0.0, 0.4, 1.7, 2.5, 6.0, 25.0])
def test_tails_agree_with_scipy(t: float, df: float) -> None:
    # lgamma's rounding grows with df: 1e-9 relative up to 10^5 degrees of freedom (a sweep's
    # are its rounds), 1e-6 at 10^8
    rel = 1e-9 if df <= 1e5 or math.isinf(df) else 1e-6
    want_sf, want_cdf = float(stats.t.sf(t, df)), float(stats.t.cdf(t, df))
    assert student_t.sf(t, df) == pytest.approx(want_sf, rel=rel, abs=1e-300)
    assert student_t.cdf(t, df) == pytest.approx(want_cdf, rel=rel, abs=1e-300)


def test_edges() -> None:
    assert student_t.sf(math.inf, 3) == 0.0 and student_t.sf(-math.inf, 3) == 1.0
    assert math.isnan(student_t.sf(math.nan, 3)) and math.isnan(student_t.sf(1.0, 0))


def test_a_sweeps_decisions_import_neither_scipy_nor_numpy() -> None:
    # scipy's OpenBLAS loops for ever under `ulimit -v 200000`; numpy's maps buffers per core.
    code = (
        "import sys\n"
        "from benchspace.harness.sweep.decide import slower_p, equivalent_p, welch_slower_p\n"
        "p = welch_slower_p([2.0, 2.1, 2.2, 2.05], [1.0, 1.1, 1.05, 1.02], 'min')\n"
        "assert 0 <= p <= 1, p\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'numpy')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)  # fmt: skip
    assert proc.stdout.strip() == "[]", proc.stdout


@pytest.mark.parametrize(
    ("p", "df", "want"), [(0.025, 10, 2.2281388519863), (0.0125, 1e5, 2.2414364830)]
)
def test_isf_inverts_the_tail(p: float, df: float, want: float) -> None:
    assert student_t.isf(p, df) == pytest.approx(want, rel=1e-7)
    assert student_t.sf(student_t.isf(p, df), df) == pytest.approx(p, rel=1e-6)
