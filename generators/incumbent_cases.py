"""Which configuration of each case is the checked-in header's (pure)."""

from __future__ import annotations

from benchspace.generators.header_model import Incumbents
from benchspace.harness.spaces.model import Space, deciding_source
from benchspace.harness.values import Value


def incumbent_configs(
    space: Space, incumbents: Incumbents
) -> dict[str, dict[int, dict[str, Value]]]:
    """Per bench and case, the incumbent values of the parameters that case decides (what
    ``tune --confirm`` re-times beside the sweep's picks)."""
    out: dict[str, dict[int, dict[str, Value]]] = {}
    if space.header is None:
        return out
    for constant in space.header.constants:
        for bucket, _ in space.header.buckets:
            incumbent = incumbents.get(constant.name, {}).get(bucket)
            deciding = deciding_source(space, constant, bucket)
            if incumbent is None or deciding is None:
                continue
            source, cases = deciding
            for case in cases:
                if source.param in case.fixed:
                    continue
                values = out.setdefault(source.bench, {}).setdefault(case.index, {})
                values[source.param] = incumbent
    return out
