#!/usr/bin/env bash
# On the GPU machine (dataset v1 workflow): write the study space from what compiled, sweep it
# with benchspace (one driver process per shape, round-robin timing), and bring back the store
# and the profile. cuBLAS is no longer timed here: the separate-process baseline read cuBLAS
# at burst clocks while the kernels ran power-capped; dataset v2 (scripts/device/v2.sh) times
# cuBLASLt as configurations inside the driver's rounds.
source scripts/device/env.sh
start=$(date +%s)
python3 -m benchspace.harness.cli cutlass space --build-dir build/cutlass ${LIMIT:+--limit $LIMIT} \
    --budget "${BUDGET:-200}"
python3 -m benchspace.harness.cli tune --space spaces/cutlass_sm90_bf16.json --build-dir build/cutlass \
    --out "$OUT/profile.json" --store "${STORE:-$OUT/store.sqlite}" --allow-failures ${BENCH:+--bench $BENCH} \
    2>&1 | tail -25
cp build/cutlass/batches.json evaluation/data/h200/kernels_compiled_tnn.txt \
    spaces/cutlass_sm90_bf16.json "$OUT/" || true
echo "measure: $(( $(date +%s) - start )) s"
