"""Batched invocation: one process per batch, rows matched to configurations, crash attribution."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.harness.execute.batch import (
    batch_order,
    execute_batch,
    make_batches,
    stream_batches,
)
from benchspace.harness.execute.invoke import Invocation, RunOptions, build_invocation
from benchspace.harness.plan import plan_main
from benchspace.harness.spaces.load import parse_space


def _members(
    build: Path, configs: list[str], install_fake: Callable[..., Path]
) -> list[Invocation]:
    space = parse_space(
        {
            "spaces": [
                {
                    "bench": "gemm",
                    "exe": "fake_batch",
                    "reader": "csv",
                    "metric": "ms_mean",
                    "arg_spec": ["m", "kernel"],
                    "cases": [{"fixed": {"m": 3}, "tune": {"kernel": configs}}],
                }
            ]
        },
        source="inline",
    )
    bench = space.benches[0]
    exe = install_fake(build, "fake_batch", "fake_batch.py")
    return [
        build_invocation(bench, task, exe_path=exe, exe_sha256="x", options=RunOptions())
        for task in plan_main(bench, {}).tasks
    ]


def test_one_process_measures_the_whole_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installer: Callable[..., Path]
) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    members = _members(tmp_path, ["k1", "k2", "k3", "k4", "k5"], installer)
    batches = make_batches(members, param="kernel", size=3, position=-1)
    assert [len(b.members) for b in batches] == [3, 2]
    results = [m for b in batches for m in execute_batch(b)]
    assert [(m.params["kernel"], m.status, m.value) for m in results] == [
        ("k1", "ok", 3.0), ("k2", "ok", 6.0), ("k3", "ok", 9.0), ("k4", "ok", 12.0),
        ("k5", "ok", 15.0),
    ]  # fmt: skip
    assert len(log.read_text().splitlines()) == 2
    # each configuration keeps its own single-configuration argv and cache key
    assert results[0].argv[-2:] == ("3", "k1")
    assert results[0].cache_key == members[0].cache_key


def test_a_death_is_attributed_and_the_rest_continue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installer: Callable[..., Path]
) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_DIE_ON", "k2,k4")
    monkeypatch.setenv("FAKE_BAD", "k5")
    members = _members(tmp_path, ["k1", "k2", "k3", "k4", "k5", "k6"], installer)
    (batch,) = make_batches(members, param="kernel", size=10, position=-1)
    results = {m.params["kernel"]: m for m in execute_batch(batch)}
    assert {k: m.status for k, m in results.items()} == {
        "k1": "ok", "k2": "crashed", "k3": "ok", "k4": "crashed", "k5": "failed", "k6": "ok",
    }  # fmt: skip
    assert "first configuration without a row" in results["k2"].error
    assert results["k5"].error == "row status cannot_implement"
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r[1:] for r in runs] == [
        ["k1", "k2", "k3", "k4", "k5", "k6"], ["k3", "k4", "k5", "k6"], ["k5", "k6"],
    ]  # fmt: skip


def test_batches_streamed_in_batch_order_are_the_whole_lists() -> None:
    # A plan lists its tasks combo by combo: the cases' configurations interleave. Measured in
    # batch_order, the streamed batches are make_batches' of the whole list, in its order.
    space = parse_space(
        {
            "spaces": [
                {
                    "bench": "gemm",
                    "exe": "fake_batch",
                    "reader": "csv",
                    "metric": "ms_mean",
                    "arg_spec": ["m", "kernel"],
                    "cases": [
                        {"fixed": {"m": m}, "tune": {"kernel": [f"k{i}" for i in range(m)]}}
                        for m in (3, 5, 7)
                    ],
                }
            ]
        },
        source="inline",
    )
    bench = space.benches[0]
    tasks = plan_main(bench, {}).tasks
    assert len({t.case_index for t in tasks[:3]}) == 3  # interleaved

    def invocations(order: list[int]) -> list[Invocation]:
        return [
            build_invocation(
                bench, tasks[i], exe_path=None, exe_sha256="x", options=RunOptions(), repeat=r
            )
            for r in range(2)
            for i in order
        ]

    whole = make_batches(invocations(list(range(len(tasks)))), param="kernel", size=2, position=-1)
    order = batch_order(bench, tasks, "kernel")
    streamed = list(stream_batches(invocations(order), param="kernel", size=2, position=-1))
    assert [[m.cache_key for m in b.members] for b in streamed] == [
        [m.cache_key for m in b.members] for b in whole
    ]
