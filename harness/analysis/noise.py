"""A bench's noise floor: the spread below which a difference between configurations is noise
(from repeats, else from the benchmark's reported spread; see harness/analysis/sensitivity.py)."""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence

from benchspace.harness.analysis.sensitivity_report import NoiseFloor
from benchspace.harness.profiles.model import MeasurementRow


def _chi_median_factor(n: int) -> float:
    """Median of the sample stdev over sigma for n normal samples."""
    from scipy.stats import chi2

    df = n - 1
    return math.sqrt(float(chi2.ppf(0.5, df)) / df)


@functools.cache
def median_sd(n: int) -> float:
    """Standard deviation of the median of ``n`` standard normal samples (exact for n <= 2,
    else from 400,000 seeded draws: deterministic, within 0.2 %)."""
    if n <= 2:
        return 1.0 / math.sqrt(n)
    import numpy as np

    draws = np.random.default_rng(20261129).standard_normal((400_000, n))
    return float(np.median(draws, axis=1).std())


def measured_noise(measurements: Sequence[MeasurementRow]) -> tuple[float | None, str, int]:
    """(noise floor in percent, its source, measurements pooled) from a bench's measurements."""
    rel: list[float] = []
    repeats: list[int] = []
    for m in measurements:
        n, stdev, median = m.n, m.stdev, m.median
        if n is not None and n >= 2 and stdev is not None and median:
            rel.append(float(stdev) / abs(float(median)) / _chi_median_factor(n))
            repeats.append(n)
    if rel:
        n = round(statistics.median(repeats))
        se_diff = math.sqrt(2.0) * median_sd(n) * statistics.median(rel)
        return 200.0 * se_diff, "repeats", len(rel)
    # A reported spread of 0 is no measurement of noise (minibench writes stddev 0 for a
    # configuration it timed once); such rows say nothing.
    reported = [
        float(m.spread) / abs(float(m.median))
        for m in measurements
        if m.spread is not None and m.spread > 0 and m.median is not None and m.median
    ]
    if reported:
        return 200.0 * statistics.median(reported), "reported spread", len(reported)
    return None, "unknown", 0


def noise_floor(
    measurements: Sequence[MeasurementRow], *, noise_pct: float | None, fallback_pct: float
) -> NoiseFloor:
    """The floor used for verdicts: `noise_pct` when given, else measured, else the fallback."""
    measured, source, basis = measured_noise(measurements)
    if noise_pct is not None:
        return NoiseFloor(pct=noise_pct, source="flag", measured_pct=measured, basis=basis)
    if measured is None:
        return NoiseFloor(pct=fallback_pct, source="unknown", measured_pct=None, basis=0)
    return NoiseFloor(pct=measured, source=source, measured_pct=measured, basis=basis)
