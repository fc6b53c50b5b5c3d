#!/usr/bin/env bash
# Tune my shapes on dataset v2 before it is merged: regret and GPU time against K on the v2
# evaluation shapes (selector trained on the v2 training shapes only).
#
#   bash scripts/analysis/tune_shapes_v2.sh [BRANCH]      # default BRANCH: gpu-v2
#
# The branch's evaluation/ package (its v2 reader and data) is unpacked with `git archive`
# into a temporary folder, this checkout's tune-shapes study modules are laid over it, and
# `benchspace cutlass tune-shapes --report` runs there with the v2 protocol (0.5 s heat). Once
# main has the v2 data, `benchspace cutlass tune-shapes --report evaluation/data/h200/v2
# --heat-s 0.5 --warmups 2` does the same without this script. Nothing here is a test.
set -euo pipefail
branch=${1:-gpu-v2}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$branch" evaluation | tar -x -C "$tmp"
for f in shortlist_study.py shortlist_format.py measured_header.py shortlist.py user_shapes.py; do
  cp "$root/evaluation/deploy/$f" "$tmp/evaluation/deploy/$f"
done
cp "$root/evaluation/deploy/kernel_header.py" "$tmp/evaluation/deploy/kernel_header.py"
cd "$tmp"
PYTHONPATH="$tmp:$root" "${PYTHON:-$root/.venv/bin/python}" -c "
import sys
from harness.cli import main
sys.exit(main(['cutlass', 'tune-shapes', '--report', 'evaluation/data/h200/v2',
               '--hardware', 'h200', '--heat-s', '0.5', '--warmups', '2']))"
