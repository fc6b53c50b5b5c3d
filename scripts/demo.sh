#!/usr/bin/env bash
# The main job on the bundled CPU demo: build the demo benchmarks, tune the demo space into a
# profile (every attempt kept in the store beside it), and generate the tuned header.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
.venv/bin/benchspace tune --space spaces/demo.json --build-dir "$BUILD" --validate
.venv/bin/benchspace tune --space spaces/demo.json --build-dir "$BUILD" \
    --out "$BUILD/tuning/profile.json" "$@"
.venv/bin/benchspace generate --profile "$BUILD/tuning/profile.json" --space spaces/demo.json \
    --out "$BUILD/tuning/tuning_params.hh"
.venv/bin/benchspace review --generated "$BUILD/tuning/tuning_params.hh" \
    --header include/benchspace_demo/tuning_params.hh --profile "$BUILD/tuning/profile.json" \
    --format text || true
# The compile-time bench: one g++ build per REDUCE_LANES value (a re-run builds and runs nothing).
.venv/bin/benchspace tune --space spaces/demo_variants.json --build-dir "$BUILD" \
    --out "$BUILD/tuning/variants_profile.json"
.venv/bin/benchspace generate --profile "$BUILD/tuning/variants_profile.json" \
    --space spaces/demo_variants.json --out "$BUILD/tuning/reduce_params.hh"
echo "demo: profile $BUILD/tuning/profile.json, header $BUILD/tuning/tuning_params.hh"
