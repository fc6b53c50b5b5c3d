#!/usr/bin/env python3
"""What a ``benchspace confirm`` record says, one line per proposed change: the bench's gain
from the profile and each consumer's A/B ratio (B = the new value), accepted or rejected.

    python scripts/confirm_summary.py [include/benchspace_demo/confirm.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "include/benchspace_demo/confirm.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    print(f"{path}: {len(record['changes'])} proposed changes")
    for change in record["changes"]:
        cases = ", ".join(
            f"{'/'.join(f'{k} = {v}' for k, v in case['fixed'].items())} {case['speedup']:.3f}"
            for case in change["cases"]
        )
        print(
            f"{change['name']}: {change['old_text']} → {change['new_text']}; the bench's gain "
            f"+{100 * change['gain']:.1f} % ({cases})"
        )
        for run in change["runs"]:
            slower = run["ratio"] > 1 if run["direction"] == "min" else run["ratio"] < 1
            print(
                f"  {run['consumer']}: B/A {run['ratio']:.4f} ({run['metric']}, "
                f"{abs(100 * (run['ratio'] - 1)):.1f} % {'slower' if slower else 'faster'})"
            )
        print(f"  {'accepted' if change['accepted'] else 'rejected'}: {change['reason']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
