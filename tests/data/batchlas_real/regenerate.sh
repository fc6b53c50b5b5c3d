#!/usr/bin/env bash
# Rewrite the profiles in this folder with BatchLAS's own tune.py and sensitivity.py (README.md).
#   bash tests/data/batchlas_real/regenerate.sh /path/to/BatchLAS
set -euo pipefail
SRC=$(cd "${1:?usage: regenerate.sh BATCHLAS_TREE (a BatchLAS checkout at ad0fae7)}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SPACE=$ROOT/tests/generators/spaces/batchlas.json
BUILD=$(mktemp -d /tmp/batchlas-build.XXXXXX)
trap 'rm -rf "$BUILD"' EXIT
mkdir -p "$BUILD/benchmarks"
for exe in stedc_benchmark sytrd_blocked_benchmark ormqr_blocked_benchmark \
    gesvd_blocked_benchmark sb2st_hh_benchmark syev_benchmark; do
    ln -s "$ROOT/tests/fakes/minibench_batchlas.py" "$BUILD/benchmarks/$exe"
done
cd "$SRC"
python3 evaluation/tuning/tune.py --build-dir "$BUILD" --space "$SPACE" --backend CUDA \
    --type float --out "$HERE/profile.json" >/dev/null
MINIBENCH_DRIFT=1 python3 evaluation/tuning/tune.py --build-dir "$BUILD" --space "$SPACE" \
    --backend CUDA --type float --topk 3 --out "$HERE/profile_drift.json" >/dev/null
python3 evaluation/tuning/sensitivity.py "$HERE/profile.json" >"$HERE/sensitivity.txt"
python3 evaluation/tuning/sensitivity.py "$HERE/profile_drift.json" --noise 2 \
    >"$HERE/sensitivity_drift.txt"
