"""The pre_tune tests' bench: ``noisy`` (tests/fakes/fake_noisy.py) with one phase over k in
0..3 on both cases, then j swept per case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import Bench

SPACE = {
    "bench": "noisy",
    "exe": "noisy",
    "metric": "Time (µs) / matrix",
    "arg_spec": ["c", "k", "j"],
    "pre_tune": [{"params": {"k": [0, 1, 2, 3]}, "cases": [0, 1]}],
    "cases": [{"fixed": {"c": c}, "tune": {"j": [0, 1]}} for c in range(2)],
}


def phase_bench(write_space: Callable[..., Path]) -> Bench:
    """The bench, loaded from a space file written by the `write_space` fixture."""
    return load_space(write_space([SPACE])).benches[0]
