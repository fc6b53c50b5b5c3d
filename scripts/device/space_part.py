#!/usr/bin/env python3
"""One part of a tune-shapes space, for a device call that measures only some of its shapes:
every OF-th case from PART on, with the kernel list and shortlist of those shapes beside it
(the standard library only: the GPU machine may lack pandas); PART may be a slice START:STOP
of the cases (then every OF-th of those). A fifth argument DROP leaves
out every configuration whose name starts with it (``cublaslt:`` drops the ranker's wider
cuBLASLt configurations, keeping the CUTLASS top K, the heuristic and cuBLASLt's listed 8).

    python3 scripts/device/space_part.py spaces/tune_shapes_ranked_rest.json 0 2 /tmp/part_a
    # -> /tmp/part_a.json, /tmp/part_a.kernels.txt, /tmp/part_a.shortlist.csv
    python3 scripts/device/space_part.py SPACE 0 1 /tmp/listed cublaslt:
    python3 scripts/device/space_part.py SPACE 37: 1 /tmp/tail    # cases 37, 38, ...
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[-3].strip(), file=sys.stderr)
        return 2
    space, part, of, stem = Path(argv[0]), argv[1], int(argv[2]), argv[3]
    drop = argv[4] if len(argv) == 5 else None
    doc = json.loads(space.read_text())
    bench = doc["spaces"][0]
    if ":" in part:
        start, stop = (int(x) if x else None for x in part.split(":", 1))
        bench["cases"] = bench["cases"][start:stop:of]
    else:
        bench["cases"] = bench["cases"][int(part) :: of]
    for case in bench["cases"]:
        grid = case["tune"]["kernel"]
        case["tune"]["kernel"] = [k for k in grid if drop is None or not k.startswith(drop)]
    shapes = {(c["fixed"]["M"], c["fixed"]["N"], c["fixed"]["K"]) for c in bench["cases"]}
    named = {k.split(":")[0] for c in bench["cases"] for k in c["tune"]["kernel"]}
    kernels = sorted(k for k in named if k.startswith("cutlass"))
    Path(f"{stem}.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    base = str(space)[: -len(".json")]
    head = [ln for ln in Path(f"{base}.kernels.txt").read_text().splitlines() if ln.startswith("#")]
    Path(f"{stem}.kernels.txt").write_text("\n".join([*head[:1], *kernels]) + "\n")
    with open(f"{base}.shortlist.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(f"{stem}.shortlist.csv", "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(r for r in rows if (int(r["M"]), int(r["N"]), int(r["K"])) in shapes)
    print(f"{stem}.json: {len(bench['cases'])} shapes, {len(kernels)} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
