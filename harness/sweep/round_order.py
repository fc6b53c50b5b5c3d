"""The order of a round's measurements: drawn afresh for every round.

A race or a confirmation measures its configurations in interleaved rounds, and the tests on
their samples take each round's values as paired. A fixed order within the round would put
every configuration at the same place in every round (a confirmation lists a case's picks
best first), so whatever the place itself does to a measurement (the first process after the
harness's look at the samples, the one after a longer or a shorter neighbour) would be the
same in every pair: no test sees it, and it favours or handicaps the same configuration in
every round. Each round therefore runs in an order of its own, drawn from a seeded generator
and balanced over the places (``ab`` draws each pair's order, harness/abtest/ab.py): a
place's effect becomes noise the tests measure, and a rerun or a resumed race draws the same
orders.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED = 0
"""The generator's seed (with the round's index); fixed, so that every run draws alike."""


def round_order(jobs: Sequence[T], round_index: int, seed: int = SEED) -> list[T]:
    """`jobs` in the order round `round_index` (counted from 0) runs them.

    Rounds come in blocks of ``len(jobs)``: a block draws one permutation (from the seed, the
    number of jobs and the block's index) and each of its rounds runs it rotated by one more
    place, so within a block every job runs once at every place (a race's first looks, at
    2 or 3 rounds, are not left to a coin that handed one job the first place every time),
    and from block to block the neighbours change. Drawn from those numbers alone: the same
    jobs given in the same order come out alike in a rerun."""
    n = len(jobs)
    if n < 2:
        return list(jobs)
    block, shift = divmod(round_index, n)
    order = list(range(n))
    random.Random(f"{seed}:{n}:{block}").shuffle(order)
    return [jobs[order[(i + shift) % n]] for i in range(n)]


def interleaved(jobs: Sequence[T], rounds: int, first_repeat: int) -> list[tuple[T, int]]:
    """`rounds` fixed rounds of `jobs`, round-major, each in its `round_order`, paired with
    their repeat indices (from `first_repeat`): a confirmation's rounds at fixed length."""
    return [(j, first_repeat + r) for r in range(rounds) for j in round_order(jobs, r)]
