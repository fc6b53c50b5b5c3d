"""Planning: union grids, per-case legality, projection, pre-tune and invocation counts."""

from __future__ import annotations

from pathlib import Path

from benchspace.harness.plan import ParamValue, count_invocations, plan_main, plan_pre_tune
from benchspace.harness.spaces.load import load_space
from benchspace.harness.spaces.model import bench_invocations

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "spaces"


def test_batchlas_default_space_costs_269_invocations() -> None:
    # 265 in the main sweeps plus 4 pre-tune runs, as BatchLAS's own tune.py runs it.
    space = load_space(FIXTURES / "batchlas_default.json")
    assert count_invocations(space) == 269
    assert count_invocations(load_space(FIXTURES / "batchlas_unwired.json")) == 36


def test_plans_run_exactly_what_the_space_counts() -> None:
    for name in ("batchlas_default.json", "batchlas_unwired.json"):
        for bench in load_space(FIXTURES / name).benches:
            resolved: dict[str, ParamValue] = {}
            total = 0
            for index, phase in enumerate(bench.pre_tune):
                total += len(plan_pre_tune(bench, index, {}).tasks)
                resolved.update({k: v[0] for k, v in phase.params.items()})
            total += len(plan_main(bench, resolved).tasks)
            assert total == bench_invocations(bench), bench.name


def test_union_grid_legality_and_projection() -> None:
    space = load_space(FIXTURES / "batchlas_default.json")
    ormqr = space.bench("ormqr_blocked")
    plan = plan_main(ormqr, {})
    assert plan.grid["block_size"] == (4, 8, 12, 16, 24, 32, 40, 48, 56, 64)
    assert plan.covering(len(ormqr.cases)) == ()  # n=64 and n=1024 grids do not overlap
    assert len(plan.tasks) == 46
    syev = space.bench("syev")
    plan = plan_main(syev, {})
    legal_fuse1 = [c for c in plan.combos if dict(c)["fuse"] == 1]
    # fuse=1 is only in the n=256 case's grid (a tripwire): legal there or nowhere.
    assert {plan.legal[c] for c in legal_fuse1} == {(2,), ()}


def test_pre_tune_uses_first_grid_values_for_the_rest() -> None:
    space = load_space(FIXTURES / "batchlas_default.json")
    stedc = space.bench("stedc")
    pre = plan_pre_tune(stedc, 0, {})
    assert len(pre.tasks) == 4
    params = pre.tasks[0][1].params()
    assert params == {"recursion_threshold": 8, "flat": 1, "threads_per_root": 4,
                      "wg_multiplier": 2}  # fmt: skip
    main = plan_main(stedc, {"recursion_threshold": 16})
    assert len(main.tasks) == 60
    assert all(t.params()["recursion_threshold"] == 16 for t in main.tasks)
