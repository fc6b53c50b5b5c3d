#!/usr/bin/env bash
# On the GPU machine: compile the kernel set's pending batches (what the carried build dir
# lacks) for at most $1 seconds, then bring back the index and logs. Libraries stay on the
# machine for the measuring call that follows while it is warm.
source scripts/device/env.sh
LIMIT_S=${1:-500}
JOBS=${JOBS:-14}
PER_TU=${PER_TU:-12}
start=$(date +%s)
timeout --signal=INT "$LIMIT_S" python3 -m evaluation.cutlass_build \
    --kernels evaluation/data/h200/kernel_set_tnn.txt --build-dir build/cutlass \
    --per-tu "$PER_TU" --jobs "$JOBS" 2>&1 | tee "$OUT/build.log" | tail -40 || true
echo "build: $(( $(date +%s) - start )) s"
cp build/cutlass/batches.json "$OUT/" 2>/dev/null || true
ls build/cutlass/*.so | wc -l
