#!/usr/bin/env python3
"""Two tune-shapes spaces of the same shapes as one, so that both shortlists are timed in the
same interleaved rounds (one driver process per shape over the union of their configurations):
each case keeps the first space's configurations in order, then the second's it lacks. Beside
the union: the kernel list to build, and both shortlists in one csv with a column ``list``
naming the space each row came from (the standard library only: the GPU machine may lack
pandas). Each shortlist is judged on the union's profile by its own csv
(``cutlass header --from-profile P --shortlist CSV --topk K`` keeps its top K and cuBLAS).

    python3 scripts/device/space_union.py spaces/a.json spaces/b.json /tmp/ab
    # -> /tmp/ab.json, /tmp/ab.kernels.txt, /tmp/ab.shortlist.csv
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

Shape = tuple[int, int, int]


def _cases(doc: dict[str, Any]) -> dict[Shape, list[str]]:
    bench = doc["spaces"][0]
    return {
        (c["fixed"]["M"], c["fixed"]["N"], c["fixed"]["K"]): list(c["tune"]["kernel"])
        for c in bench["cases"]
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    first, second, stem = Path(argv[0]), Path(argv[1]), argv[2]
    doc, other = json.loads(first.read_text()), json.loads(second.read_text())
    if doc["spaces"][0]["flags"] != other["spaces"][0]["flags"]:
        print(f"{second}: its driver flags differ from {first}'s; write both with the same "
              "tune-shapes options", file=sys.stderr)  # fmt: skip
        return 1
    mine, theirs = _cases(doc), _cases(other)
    if set(mine) != set(theirs):
        print(f"{second}: its shapes differ from {first}'s ({len(set(mine) ^ set(theirs))} not "
              "in both); write both from one shapes file", file=sys.stderr)  # fmt: skip
        return 1
    added = 0
    for case in doc["spaces"][0]["cases"]:
        shape = (case["fixed"]["M"], case["fixed"]["N"], case["fixed"]["K"])
        grid = case["tune"]["kernel"]
        extra = [c for c in theirs[shape] if c not in grid]
        added += len(extra)
        case["tune"]["kernel"] = grid + extra
    doc["_comment"] = [
        f"The union of {first} and {second} (scripts/device/space_union.py): per shape the first's "
        f"configurations, then the second's it lacks ({added} in all), timed in the same rounds.",
        *doc.get("_comment", []),
    ]
    named = {k.split(":")[0] for g in _cases(doc).values() for k in g}
    kernels = sorted(k for k in named if k.startswith("cutlass"))
    Path(f"{stem}.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    Path(f"{stem}.kernels.txt").write_text(
        "\n".join(
            [
                "# format: benchspace-kernel-list 1",
                f"# the kernels of {first} and {second}",
                *kernels,
            ]
        )
        + "\n"
    )
    rows = []
    for space in (first, second):
        with open(f"{str(space)[: -len('.json')]}.shortlist.csv", newline="") as f:
            rows += [{**r, "list": space.name} for r in csv.DictReader(f)]
    with open(f"{stem}.shortlist.csv", "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    total = sum(len(g) for g in _cases(doc).values())
    print(f"{stem}.json: {len(mine)} shapes, {total} configurations ({added} from {second.name}), "
          f"{len(kernels)} kernels")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
